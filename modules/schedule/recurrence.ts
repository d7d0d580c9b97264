import { DateTime, IANAZone } from 'luxon';
import { Frequency, RRule, type Options } from 'rrule';
import { StewardError } from '../../core/errors';

/**
 * Recurrence in a series' own time zone. The rule is expanded in floating local time (wall-clock
 * values carried in UTC fields, never a real instant), and each occurrence is then placed in the
 * zone, so a 10:30 service is 10:30 local on both sides of a clock change. The expansion itself is
 * the `rrule` library's; this file only validates the rule text and does the zone arithmetic.
 */

/** A series' recurrence: an RRULE evaluated from a local start date and time in a zone. */
export interface Recurrence {
  rrule: string;
  startDate: string;
  startTime: string;
  timeZone: string;
}

export interface Occurrence {
  /** The occurrence's real start. */
  startsAt: Date;
  localDate: string;
  localStartTime: string;
}

/** The most occurrences one expansion returns: a daily series over a year is 366. */
export const MAX_OCCURRENCES_PER_EXPANSION = 1_000;
const ALLOWED_FREQUENCIES = new Map<Frequency, string>([
  [Frequency.DAILY, 'DAILY'], [Frequency.WEEKLY, 'WEEKLY'], [Frequency.MONTHLY, 'MONTHLY'], [Frequency.YEARLY, 'YEARLY'],
]);
const RULE_HINT = 'Write an RFC 5545 RRULE without DTSTART, e.g. FREQ=WEEKLY;BYDAY=SU or FREQ=MONTHLY;BYDAY=1SU;COUNT=12; the start date, time and zone are separate fields.';
const FORBIDDEN_PARTS = ['DTSTART', 'TZID', 'BYHOUR', 'BYMINUTE', 'BYSECOND', 'EXDATE', 'RDATE'];
const DEFAULT_TIME_ZONE = 'Europe/London';
export { DEFAULT_TIME_ZONE };

function invalidRule(message: string, path = 'rrule'): StewardError {
  return new StewardError('validation_failed', message, { hint: RULE_HINT, issues: [{ path, message }] });
}

/** The zone's canonical IANA spelling ("europe/london" is Europe/London); an unknown zone is a validation error. */
export function canonicalTimeZone(zone: string, path = 'timeZone'): string {
  if (!IANAZone.isValidZone(zone)) {
    const message = `"${zone.slice(0, 60)}" is not an IANA time zone`;
    throw new StewardError('validation_failed', message, { hint: 'Use an IANA zone name such as Europe/London or America/New_York.', issues: [{ path, message }] });
  }
  return new Intl.DateTimeFormat('en-GB', { timeZone: zone }).resolvedOptions().timeZone;
}

/** Wall-clock date and time carried as a UTC Date (floating time, as the rrule library expects). */
function floating(localDate: string, localTime: string): Date {
  const [year, month, day] = localDate.split('-').map(Number);
  const [hour, minute] = localTime.split(':').map(Number);
  return new Date(Date.UTC(year, month - 1, day, hour, minute));
}

/** The real instant of a floating wall-clock time in `zone`; a time inside a spring-forward gap moves forward by the gap. */
function placeInZone(wallClock: Date, zone: string): DateTime {
  return DateTime.fromObject({
    year: wallClock.getUTCFullYear(), month: wallClock.getUTCMonth() + 1, day: wallClock.getUTCDate(),
    hour: wallClock.getUTCHours(), minute: wallClock.getUTCMinutes(),
  }, { zone });
}

/** A real instant's wall clock in `zone`, as floating time. */
function wallClockOf(instant: Date, zone: string): Date {
  const local = DateTime.fromJSDate(instant, { zone });
  return new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second));
}

/** The real start of a local date and time in a zone. */
export function localToUtc(localDate: string, localTime: string, zone: string): Date {
  return placeInZone(floating(localDate, localTime), zone).toUTC().toJSDate();
}

/** A real instant as the zone's local date (YYYY-MM-DD) and time (HH:MM). */
export function utcToLocal(instant: Date, zone: string): { localDate: string; localStartTime: string } {
  const local = DateTime.fromJSDate(instant, { zone });
  return { localDate: local.toISODate()!, localStartTime: local.toFormat('HH:mm') };
}

/** Today's date in a zone. */
export function localDateAt(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, { zone }).toISODate()!;
}

function formatFloating(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, '');
}

interface ParsedRule {
  /** Options without DTSTART; UNTIL is floating local time. */
  options: Partial<Options>;
  /** The rule as stored: RRULE text with UNTIL written in local time (no Z). */
  text: string;
}

/**
 * Validates RRULE text and normalises it. UNTIL may be a date (that whole local day counts), a
 * local date-time, or a UTC date-time ending in Z (converted to the zone's wall clock), so the
 * stored text always carries a local UNTIL.
 */
export function parseRule(ruleText: string, zone: string): ParsedRule {
  const body = ruleText.trim().replace(/^RRULE:/i, '');
  if (body.length === 0) throw invalidRule('The rule is empty');
  if (/[\r\n]/.test(body)) throw invalidRule('The rule must be one RRULE line');
  const parts = body.split(';').filter((part) => part.length > 0);
  const names = parts.map((part) => part.split('=')[0].toUpperCase());
  const forbidden = names.find((name) => FORBIDDEN_PARTS.includes(name));
  if (forbidden) throw invalidRule(`${forbidden} is not accepted in the rule: the series' start date, start time and zone say when it happens`);
  if (new Set(names).size !== names.length) throw invalidRule('A rule part appears twice');

  let options: Partial<Options>;
  try {
    options = RRule.parseString(parts.join(';'));
  } catch (error) {
    throw invalidRule(`The rule could not be read: ${(error as Error).message.slice(0, 120)}`);
  }
  if (options.freq === undefined || options.freq === null) throw invalidRule('The rule needs FREQ');
  if (!ALLOWED_FREQUENCIES.has(options.freq)) throw invalidRule('FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY');
  assertWholeNumber(options.interval, 'INTERVAL', 1, 1_000);
  assertWholeNumber(options.count, 'COUNT', 1, 10_000);
  if (options.count && options.until) throw invalidRule('COUNT and UNTIL cannot both be given');
  const weekdays = Array.isArray(options.byweekday) ? options.byweekday : options.byweekday === undefined || options.byweekday === null ? [] : [options.byweekday];
  if (weekdays.some((day) => day === undefined || day === null)) throw invalidRule('BYDAY must list days as MO, TU, WE, TH, FR, SA, SU (optionally with an ordinal such as 1SU or -1FR)');
  for (const key of ['bymonth', 'bymonthday', 'bysetpos', 'byyearday', 'byweekno'] as const) {
    const values = ([] as unknown[]).concat(options[key] ?? []);
    if (values.some((value) => typeof value !== 'number' || !Number.isInteger(value))) throw invalidRule(`${key.toUpperCase()} must be whole numbers`);
  }

  const untilMatch = /(?:^|;)UNTIL=(\d{8})(T\d{6}(Z?))?(?:;|$)/i.exec(parts.join(';'));
  if (options.until && untilMatch) {
    const [, , timePart, zulu] = untilMatch;
    // A date-only UNTIL includes its whole local day; a Z time is a real instant; otherwise local.
    if (!timePart) options.until = new Date(options.until.getTime() + 86_399_000);
    else if (zulu) options.until = wallClockOf(options.until, zone);
  }
  const { dtstart: _dtstart, tzid: _tzid, ...rest } = options;
  const generated = new RRule(rest).toString().replace(/^RRULE:/, '');
  const text = options.until ? generated.replace(/UNTIL=\d{8}T\d{6}Z/, `UNTIL=${formatFloating(options.until)}`) : generated;
  return { options: rest, text };
}

function assertWholeNumber(value: unknown, name: string, min: number, max: number): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidRule(`${name} must be a whole number from ${min} to ${max}`);
  }
}

function ruleOf(recurrence: Recurrence): RRule {
  const { options } = parseRule(recurrence.rrule, recurrence.timeZone);
  return new RRule({ ...options, dtstart: floating(recurrence.startDate, recurrence.startTime) });
}

/**
 * The occurrences whose real start lies in [from, to], at most MAX_OCCURRENCES_PER_EXPANSION.
 * The floating window is widened by a day each side (no zone is more than 14 hours from UTC), then
 * each occurrence is placed in the zone and filtered by its real start.
 */
export function expand(recurrence: Recurrence, from: Date, to: Date): Occurrence[] {
  const rule = ruleOf(recurrence);
  const day = 86_400_000;
  const floatingFrom = new Date(wallClockOf(from, 'UTC').getTime() - day);
  const floatingTo = new Date(wallClockOf(to, 'UTC').getTime() + day);
  const wallClocks = rule.between(floatingFrom, floatingTo, true, (_date, index) => index < MAX_OCCURRENCES_PER_EXPANSION + 2);
  const occurrences: Occurrence[] = [];
  for (const wallClock of wallClocks) {
    const startsAt = placeInZone(wallClock, recurrence.timeZone).toUTC().toJSDate();
    if (startsAt < from || startsAt > to) continue;
    occurrences.push({ startsAt, ...utcToLocal(startsAt, recurrence.timeZone) });
    if (occurrences.length === MAX_OCCURRENCES_PER_EXPANSION) break;
  }
  return occurrences;
}

/** The first occurrence at or after the series start within five years, or null for a rule that never happens. */
export function firstOccurrence(recurrence: Recurrence): Occurrence | null {
  const rule = ruleOf(recurrence);
  const start = floating(recurrence.startDate, recurrence.startTime);
  const horizon = new Date(start.getTime() + 5 * 366 * 86_400_000);
  const [first] = rule.between(start, horizon, true, (_date, index) => index < 1);
  if (!first) return null;
  const startsAt = placeInZone(first, recurrence.timeZone).toUTC().toJSDate();
  return { startsAt, ...utcToLocal(startsAt, recurrence.timeZone) };
}

/** The first `limit` occurrences at or after `from` (at most MAX_OCCURRENCES_PER_EXPANSION), looking at most ten years ahead. */
export function nextOccurrences(recurrence: Recurrence, from: Date, limit: number): Occurrence[] {
  const rule = ruleOf(recurrence);
  const wanted = Math.min(limit, MAX_OCCURRENCES_PER_EXPANSION);
  const floatingFrom = new Date(wallClockOf(from, 'UTC').getTime() - 86_400_000);
  const horizon = new Date(floatingFrom.getTime() + 10 * 366 * 86_400_000);
  const occurrences: Occurrence[] = [];
  // A few more than wanted: the day's margin before `from` may hold occurrences (at most one a day) that are then dropped.
  for (const wallClock of rule.between(floatingFrom, horizon, true, (_date, index) => index < wanted + 3)) {
    const startsAt = placeInZone(wallClock, recurrence.timeZone).toUTC().toJSDate();
    if (startsAt < from) continue;
    occurrences.push({ startsAt, ...utcToLocal(startsAt, recurrence.timeZone) });
    if (occurrences.length === wanted) break;
  }
  return occurrences;
}

/**
 * The rule ended just before a local occurrence (the first half of a split series): COUNT becomes
 * the number of occurrences before it, otherwise UNTIL is set one minute before it.
 */
export function ruleEndingBefore(recurrence: Recurrence, occurrenceLocalDate: string, occurrenceLocalTime: string): string {
  const { options } = parseRule(recurrence.rrule, recurrence.timeZone);
  const splitAt = floating(occurrenceLocalDate, occurrenceLocalTime);
  const until = new Date(splitAt.getTime() - 60_000);
  const { count: _count, until: _until, ...rest } = options;
  if (options.count) {
    const before = new RRule({ ...options, dtstart: floating(recurrence.startDate, recurrence.startTime) })
      .between(floating(recurrence.startDate, recurrence.startTime), until, true).length;
    return new RRule({ ...rest, count: Math.max(before, 1) }).toString().replace(/^RRULE:/, '');
  }
  return new RRule({ ...rest, until }).toString().replace(/^RRULE:/, '').replace(/UNTIL=\d{8}T\d{6}Z/, `UNTIL=${formatFloating(until)}`);
}

/** What is left of a COUNT rule from a local occurrence on (the second half of a split series); other rules are unchanged. */
export function ruleFrom(recurrence: Recurrence, occurrenceLocalDate: string, occurrenceLocalTime: string, ruleText: string): string {
  const { options } = parseRule(recurrence.rrule, recurrence.timeZone);
  if (!options.count || ruleText !== recurrence.rrule) return ruleText;
  const start = floating(recurrence.startDate, recurrence.startTime);
  const before = new RRule({ ...options, dtstart: start }).between(start, new Date(floating(occurrenceLocalDate, occurrenceLocalTime).getTime() - 60_000), true).length;
  const { count: _count, ...rest } = options;
  return new RRule({ ...rest, count: Math.max(options.count - before, 1) }).toString().replace(/^RRULE:/, '');
}

/** The label of a stored rule's frequency, e.g. for a summary. */
export function describeRule(ruleText: string): string {
  try {
    return RRule.fromString(`RRULE:${ruleText.replace(/UNTIL=(\d{8}T\d{6})(?!Z)/, 'UNTIL=$1Z')}`).toText();
  } catch {
    return ruleText;
  }
}
