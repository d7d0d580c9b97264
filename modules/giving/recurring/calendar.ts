/**
 * Calendar arithmetic for recurring gifts and periodic pledges, on ISO dates ('YYYY-MM-DD')
 * in UTC: no clock, no time zone, so the same inputs always give the same dates.
 *
 * Every occurrence is computed from the anchor (the start date) and its index, never from the
 * previous occurrence, so month ends cannot drift: a monthly gift starting on 31 January falls on
 * 28 (or 29) February, 31 March, 30 April, 31 May. When the anchor's day does not exist in a
 * month, the occurrence is that month's last day. A yearly gift anchored on 29 February falls on
 * 28 February in common years.
 */

export const RECURRING_FREQUENCIES = ['weekly', 'fortnightly', 'monthly', 'quarterly', 'yearly'] as const;
export type RecurringFrequency = (typeof RECURRING_FREQUENCIES)[number];

/** How one step of each frequency moves: whole days, or whole calendar months. */
const STEPS: Record<RecurringFrequency, { days: number } | { months: number }> = {
  weekly: { days: 7 },
  fortnightly: { days: 14 },
  monthly: { months: 1 },
  quarterly: { months: 3 },
  yearly: { months: 12 },
};

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day written as YYYY-MM-DD (2026-02-30 is not one). */
export function isCalendarDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [, y, m, d] = match.map(Number);
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

function parts(date: string): [number, number, number] {
  if (!isCalendarDate(date)) throw new Error(`Not an ISO calendar date: ${date}`);
  const [, y, m, d] = ISO_DATE.exec(date)!.map(Number);
  return [y, m, d];
}

function format(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Days since 1970-01-01. */
function dayNumber(date: string): number {
  const [y, m, d] = parts(date);
  return Date.UTC(y, m - 1, d) / DAY_MS;
}

function fromDayNumber(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return fromDayNumber(dayNumber(date) + days);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

/** `months` calendar months after `date`, on the same day or the month's last day when that day does not exist. */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = parts(date);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return format(year, month, Math.min(d, daysInMonth(year, month)));
}


/** The n-th occurrence (0 is the anchor itself). */
export function occurrenceAt(anchor: string, frequency: RecurringFrequency, n: number): string {
  if (!Number.isInteger(n) || n < 0) throw new Error(`Occurrence index must be a whole number ≥ 0, got ${n}`);
  const step = STEPS[frequency];
  return 'days' in step ? addDays(anchor, step.days * n) : addMonths(anchor, step.months * n);
}

/** The index of the first occurrence on or after `date` (0 when `date` is on or before the anchor). */
export function firstIndexOnOrAfter(anchor: string, frequency: RecurringFrequency, date: string): number {
  const gap = daysBetween(anchor, date);
  if (gap <= 0) return 0;
  const step = STEPS[frequency];
  if ('days' in step) return Math.ceil(gap / step.days);
  const [ay, am] = parts(anchor);
  const [dy, dm] = parts(date);
  const months = (dy - ay) * 12 + (dm - am);
  // The occurrence in `date`'s month (or the one before it) may still be earlier than `date`: step on.
  let n = Math.max(0, Math.floor(months / step.months));
  while (occurrenceAt(anchor, frequency, n) < date) n += 1;
  return n;
}

/** The first occurrence on or after `date`. */
export function firstOccurrenceOnOrAfter(anchor: string, frequency: RecurringFrequency, date: string): string {
  return occurrenceAt(anchor, frequency, firstIndexOnOrAfter(anchor, frequency, date));
}

/** The first occurrence strictly after `date`. */
export function firstOccurrenceAfter(anchor: string, frequency: RecurringFrequency, date: string): string {
  return firstOccurrenceOnOrAfter(anchor, frequency, addDays(date, 1));
}

/** Occurrences from `from` to `to`, both included, at most `max` of them (in date order). */
export function occurrencesBetween(anchor: string, frequency: RecurringFrequency, from: string, to: string, max: number): string[] {
  const dates: string[] = [];
  for (let n = firstIndexOnOrAfter(anchor, frequency, from); dates.length < max; n += 1) {
    const date = occurrenceAt(anchor, frequency, n);
    if (date > to) break;
    dates.push(date);
  }
  return dates;
}

/** How many occurrences fall from `from` to `to`, both included (counted, not listed, for long periods). */
export function countOccurrencesBetween(anchor: string, frequency: RecurringFrequency, from: string, to: string): number {
  if (to < from) return 0;
  const first = firstIndexOnOrAfter(anchor, frequency, from);
  const afterLast = firstIndexOnOrAfter(anchor, frequency, addDays(to, 1));
  return Math.max(0, afterLast - first);
}
