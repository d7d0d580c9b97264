import {
  addMonths, countOccurrencesBetween, firstOccurrenceAfter, firstOccurrenceOnOrAfter, isCalendarDate, occurrenceAt,
  occurrencesBetween, type RecurringFrequency,
} from '../recurring/calendar';

/** Dates of recurring gifts and periodic pledges: anchored on the start date, month ends clamped, never drifting. */
describe('recurring gift calendar', () => {
  it.each<[string, RecurringFrequency, number, string]>([
    ['2026-01-05', 'weekly', 0, '2026-01-05'],
    ['2026-01-05', 'weekly', 1, '2026-01-12'],
    ['2026-12-28', 'weekly', 1, '2027-01-04'],
    ['2026-01-05', 'fortnightly', 3, '2026-02-16'],
    ['2028-02-22', 'fortnightly', 1, '2028-03-07'],
    ['2026-01-15', 'monthly', 1, '2026-02-15'],
    ['2026-01-31', 'monthly', 1, '2026-02-28'],
    ['2028-01-31', 'monthly', 1, '2028-02-29'],
    ['2026-01-31', 'monthly', 2, '2026-03-31'],
    ['2026-01-31', 'monthly', 3, '2026-04-30'],
    ['2026-01-30', 'monthly', 1, '2026-02-28'],
    ['2026-01-29', 'monthly', 13, '2027-02-28'],
    ['2026-08-31', 'monthly', 4, '2026-12-31'],
    ['2026-11-30', 'monthly', 3, '2027-02-28'],
    ['2026-11-30', 'quarterly', 1, '2027-02-28'],
    ['2026-11-30', 'quarterly', 2, '2027-05-30'],
    ['2026-03-31', 'quarterly', 1, '2026-06-30'],
    ['2026-03-31', 'quarterly', 2, '2026-09-30'],
    ['2026-03-31', 'quarterly', 3, '2026-12-31'],
    ['2028-02-29', 'yearly', 1, '2029-02-28'],
    ['2028-02-29', 'yearly', 4, '2032-02-29'],
    ['2026-04-06', 'yearly', 10, '2036-04-06'],
  ])('%s %s, occurrence %i is %s', (anchor, frequency, n, expected) => {
    expect(occurrenceAt(anchor, frequency, n)).toBe(expected);
  });

  it.each<[string, RecurringFrequency, string, string]>([
    // [anchor, frequency, on or after, expected]
    ['2026-01-05', 'weekly', '2025-06-01', '2026-01-05'],
    ['2026-01-05', 'weekly', '2026-01-05', '2026-01-05'],
    ['2026-01-05', 'weekly', '2026-01-06', '2026-01-12'],
    ['2026-01-05', 'weekly', '2026-01-12', '2026-01-12'],
    ['2026-01-05', 'fortnightly', '2026-01-13', '2026-01-19'],
    ['2026-01-31', 'monthly', '2026-02-27', '2026-02-28'],
    ['2026-01-31', 'monthly', '2026-03-01', '2026-03-31'],
    ['2026-01-31', 'monthly', '2026-04-30', '2026-04-30'],
    ['2026-01-31', 'monthly', '2026-05-01', '2026-05-31'],
    ['2026-01-15', 'monthly', '2026-06-16', '2026-07-15'],
    ['2026-01-15', 'quarterly', '2026-04-16', '2026-07-15'],
    ['2028-02-29', 'yearly', '2029-03-01', '2030-02-28'],
    ['2028-02-29', 'yearly', '2031-03-01', '2032-02-29'],
  ])('%s %s: first on or after %s is %s', (anchor, frequency, date, expected) => {
    expect(firstOccurrenceOnOrAfter(anchor, frequency, date)).toBe(expected);
  });

  it('first occurrence strictly after a date skips that date', () => {
    expect(firstOccurrenceAfter('2026-01-05', 'weekly', '2026-01-12')).toBe('2026-01-19');
    expect(firstOccurrenceAfter('2026-01-31', 'monthly', '2026-02-28')).toBe('2026-03-31');
  });

  it.each<[string, RecurringFrequency, string, string, string[]]>([
    ['2026-01-05', 'weekly', '2026-01-01', '2026-01-31', ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26']],
    ['2026-01-31', 'monthly', '2026-01-01', '2026-06-30', ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30']],
    ['2026-01-31', 'monthly', '2026-02-01', '2026-02-27', []],
    ['2026-01-05', 'fortnightly', '2026-01-06', '2026-01-18', []],
  ])('%s %s between %s and %s', (anchor, frequency, from, to, expected) => {
    expect(occurrencesBetween(anchor, frequency, from, to, 100)).toEqual(expected);
    expect(countOccurrencesBetween(anchor, frequency, from, to)).toBe(expected.length);
  });

  it('lists at most the maximum asked for', () => {
    expect(occurrencesBetween('2026-01-01', 'weekly', '2026-01-01', '2030-01-01', 3)).toEqual(['2026-01-01', '2026-01-08', '2026-01-15']);
  });

  it.each<[RecurringFrequency, string, string, number]>([
    ['weekly', '2026-01-01', '2026-12-31', 53],
    ['fortnightly', '2026-01-01', '2026-12-31', 27],
    ['monthly', '2026-01-01', '2026-12-31', 12],
    ['quarterly', '2026-01-01', '2026-12-31', 4],
    ['yearly', '2026-01-01', '2035-12-31', 10],
    ['monthly', '2026-01-01', '2025-12-31', 0],
  ])('counts %s occurrences from %s to %s: %i', (frequency, from, to, count) => {
    expect(countOccurrencesBetween(from, frequency, from, to)).toBe(count);
  });

  it('agrees with stepping one by one over ten years for every frequency and awkward anchor', () => {
    for (const anchor of ['2026-01-31', '2026-02-28', '2028-02-29', '2026-08-30', '2026-12-31']) {
      for (const frequency of ['weekly', 'fortnightly', 'monthly', 'quarterly', 'yearly'] as const) {
        const all = occurrencesBetween(anchor, frequency, anchor, '2036-12-31', 1000);
        for (let i = 1; i < all.length; i += 1) {
          expect(all[i] > all[i - 1]).toBe(true);
          expect(firstOccurrenceAfter(anchor, frequency, all[i - 1])).toBe(all[i]);
        }
      }
    }
  });

  it('knows real calendar dates and month arithmetic across years', () => {
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-13-01')).toBe(false);
    expect(isCalendarDate('26-01-01')).toBe(false);
    expect(addMonths('2026-12-31', 2)).toBe('2027-02-28');
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28');
  });
});
