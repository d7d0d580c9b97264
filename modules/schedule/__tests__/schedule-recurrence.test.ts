import { StewardError } from '../../../core/errors';
import { expand, firstOccurrence, localToUtc, parseRule, ruleEndingBefore, ruleFrom } from '../recurrence';

const weeklySunday = (timeZone: string, startDate = '2026-03-01', startTime = '10:30') => ({ rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate, startTime, timeZone });
const between = (from: string, to: string) => [new Date(from), new Date(to)] as const;

function refusal(run: () => unknown): StewardError {
  try {
    run();
  } catch (error) {
    return error as StewardError;
  }
  throw new Error('expected a refusal');
}

describe('schedule recurrence across clock changes', () => {
  it('keeps 10:30 local across the UK spring change (29 March 2026): 10:30Z before, 09:30Z after', () => {
    const occurrences = expand(weeklySunday('Europe/London'), ...between('2026-03-20T00:00:00Z', '2026-04-06T00:00:00Z'));
    expect(occurrences.map((o) => [o.localDate, o.localStartTime, o.startsAt.toISOString()])).toEqual([
      ['2026-03-22', '10:30', '2026-03-22T10:30:00.000Z'],
      ['2026-03-29', '10:30', '2026-03-29T09:30:00.000Z'],
      ['2026-04-05', '10:30', '2026-04-05T09:30:00.000Z'],
    ]);
  });

  it('keeps 10:30 local across the UK autumn change (25 October 2026)', () => {
    const occurrences = expand(weeklySunday('Europe/London'), ...between('2026-10-17T00:00:00Z', '2026-11-02T00:00:00Z'));
    expect(occurrences.map((o) => [o.localDate, o.localStartTime, o.startsAt.toISOString()])).toEqual([
      ['2026-10-18', '10:30', '2026-10-18T09:30:00.000Z'],
      ['2026-10-25', '10:30', '2026-10-25T10:30:00.000Z'],
      ['2026-11-01', '10:30', '2026-11-01T10:30:00.000Z'],
    ]);
  });

  it('keeps 10:30 local in New York across its own change dates (8 March and 1 November 2026)', () => {
    const spring = expand(weeklySunday('America/New_York'), ...between('2026-03-01T00:00:00Z', '2026-03-09T00:00:00Z'));
    expect(spring.map((o) => o.startsAt.toISOString())).toEqual(['2026-03-01T15:30:00.000Z', '2026-03-08T14:30:00.000Z']);
    const autumn = expand(weeklySunday('America/New_York'), ...between('2026-10-25T00:00:00Z', '2026-11-02T00:00:00Z'));
    expect(autumn.map((o) => o.startsAt.toISOString())).toEqual(['2026-10-25T14:30:00.000Z', '2026-11-01T15:30:00.000Z']);
    expect(autumn.every((o) => o.localStartTime === '10:30')).toBe(true);
  });

  it('moves a time that does not exist (01:30 on the UK spring-forward day) forward by the gap, and places the repeated hour once', () => {
    const gap = expand({ rrule: 'FREQ=DAILY', startDate: '2026-03-28', startTime: '01:30', timeZone: 'Europe/London' }, ...between('2026-03-28T00:00:00Z', '2026-03-30T12:00:00Z'));
    expect(gap.map((o) => o.startsAt.toISOString())).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect(gap[1].localStartTime).toBe('02:30');
    const repeated = expand({ rrule: 'FREQ=DAILY;COUNT=1', startDate: '2026-10-25', startTime: '01:30', timeZone: 'Europe/London' }, ...between('2026-10-24T00:00:00Z', '2026-10-26T00:00:00Z'));
    expect(repeated).toHaveLength(1);
  });

  it('converts a local date and time to UTC in the zone', () => {
    expect(localToUtc('2026-07-05', '10:30', 'Europe/London').toISOString()).toBe('2026-07-05T09:30:00.000Z');
    expect(localToUtc('2026-01-04', '10:30', 'America/New_York').toISOString()).toBe('2026-01-04T15:30:00.000Z');
  });
});

describe('schedule rules: count, until and monthly rules', () => {
  it('stops after COUNT occurrences', () => {
    const occurrences = expand({ ...weeklySunday('Europe/London'), rrule: 'FREQ=WEEKLY;BYDAY=SU;COUNT=3' }, ...between('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'));
    expect(occurrences.map((o) => o.localDate)).toEqual(['2026-03-01', '2026-03-08', '2026-03-15']);
  });

  it('treats a date-only UNTIL as including that whole local day, and a Z UNTIL as a real instant', () => {
    const dateOnly = expand({ ...weeklySunday('Europe/London'), rrule: 'FREQ=WEEKLY;BYDAY=SU;UNTIL=20260315' }, ...between('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'));
    expect(dateOnly.map((o) => o.localDate)).toEqual(['2026-03-01', '2026-03-08', '2026-03-15']);
    // 10:29Z on 15 March is 10:29 local (GMT), just before that day's service.
    const zulu = expand({ ...weeklySunday('Europe/London'), rrule: 'FREQ=WEEKLY;BYDAY=SU;UNTIL=20260315T102900Z' }, ...between('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'));
    expect(zulu.map((o) => o.localDate)).toEqual(['2026-03-01', '2026-03-08']);
    expect(parseRule('FREQ=WEEKLY;BYDAY=SU;UNTIL=20260315', 'Europe/London').text).toBe('FREQ=WEEKLY;BYDAY=SU;UNTIL=20260315T235959');
  });

  it('expands the first Sunday of each month', () => {
    const occurrences = expand({ rrule: 'FREQ=MONTHLY;BYDAY=1SU', startDate: '2026-01-01', startTime: '18:00', timeZone: 'Europe/London' }, ...between('2026-01-01T00:00:00Z', '2026-04-30T00:00:00Z'));
    expect(occurrences.map((o) => o.localDate)).toEqual(['2026-01-04', '2026-02-01', '2026-03-01', '2026-04-05']);
  });

  it('finds the first occurrence on or after the start date, and none for a rule that never happens', () => {
    expect(firstOccurrence({ ...weeklySunday('Europe/London'), startDate: '2026-03-02' })!.localDate).toBe('2026-03-08');
    expect(firstOccurrence({ rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', startDate: '2026-01-01', startTime: '10:00', timeZone: 'Europe/London' })).toBeNull();
  });

  it('splits a rule: the first part ends just before the occurrence, the second keeps what is left of a COUNT', () => {
    const series = { ...weeklySunday('Europe/London'), rrule: 'FREQ=WEEKLY;BYDAY=SU;COUNT=6' };
    const ended = ruleEndingBefore(series, '2026-03-22', '10:30');
    expect(expand({ ...series, rrule: ended }, ...between('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).map((o) => o.localDate))
      .toEqual(['2026-03-01', '2026-03-08', '2026-03-15']);
    const rest = ruleFrom(series, '2026-03-22', '10:30', series.rrule);
    expect(expand({ ...series, rrule: rest, startDate: '2026-03-22' }, ...between('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).map((o) => o.localDate))
      .toEqual(['2026-03-22', '2026-03-29', '2026-04-05']);
    const open = ruleEndingBefore(weeklySunday('Europe/London'), '2026-03-22', '10:30');
    expect(open).toBe('FREQ=WEEKLY;BYDAY=SU;UNTIL=20260322T102900');
  });

  it('caps one expansion at 1,000 occurrences', () => {
    const occurrences = expand({ rrule: 'FREQ=DAILY', startDate: '2026-01-01', startTime: '09:00', timeZone: 'UTC' }, ...between('2026-01-01T00:00:00Z', '2030-01-01T00:00:00Z'));
    expect(occurrences).toHaveLength(1_000);
  });
});

describe('schedule rules that are refused', () => {
  it.each([
    ['', 'empty'],
    ['BYDAY=SU', 'needs FREQ'],
    ['FREQ=FORTNIGHTLY', 'FREQ'],
    ['FREQ=HOURLY', 'FREQ must be'],
    ['FREQ=WEEKLY;BYDAY=XX', 'BYDAY'],
    ['FREQ=WEEKLY;INTERVAL=abc', 'INTERVAL'],
    ['FREQ=WEEKLY;INTERVAL=0', 'INTERVAL'],
    ['FREQ=WEEKLY;COUNT=3;UNTIL=20261231', 'COUNT and UNTIL'],
    ['DTSTART:20260101T103000Z\nRRULE:FREQ=WEEKLY', 'one RRULE line'],
    ['FREQ=WEEKLY;DTSTART=20260101T103000Z', 'DTSTART'],
    ['FREQ=WEEKLY;BYHOUR=10', 'BYHOUR'],
    ['FREQ=WEEKLY;FREQ=DAILY', 'twice'],
    ['hello world', 'could not be read'],
    ['FREQ=WEEKLY;BYMONTHDAY=x', 'BYMONTHDAY'],
  ])('%s is refused (%s) with a hint', (rule, expected) => {
    const error = refusal(() => parseRule(rule, 'Europe/London'));
    expect(error).toBeInstanceOf(StewardError);
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain(expected);
    expect(error.hint).toContain('FREQ=WEEKLY;BYDAY=SU');
  });

  it('accepts a leading RRULE: and normalises the text', () => {
    expect(parseRule('RRULE:FREQ=WEEKLY;BYDAY=SU', 'Europe/London').text).toBe('FREQ=WEEKLY;BYDAY=SU');
  });
});
