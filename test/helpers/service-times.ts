import { DateTime } from 'luxon';

/**
 * Service dates and times for tests that must not depend on the wall clock: a test that creates a
 * service "today at 23:30" fails when run after 23:30 (or across midnight), and one that checks
 * people in needs a service whose check-in window is open now.
 */

/**
 * London first, then zones whose daytimes together cover every hour of the UTC day, winter and summer.
 * Each is its own canonical spelling, as the schedule stores zones (ICU spells Asia/Kolkata "Asia/Calcutta",
 * so a test expecting the zone it gave would fail whenever Kolkata was the one picked).
 */
export const DAYTIME_ZONES = ['Europe/London', 'America/New_York', 'Asia/Tokyo', 'Asia/Dubai'] as const;

/**
 * The first of `candidates` where it is now between 06:00 and 18:00 local time, so "today" has at
 * least six hours before and after it there: today's 23:30 service is still ahead, and no step of the
 * test crosses midnight. Falls back to the candidate nearest noon.
 */
export function daytimeZone(candidates: readonly string[] = DAYTIME_ZONES, now: Date = new Date()): string {
  const hourIn = (zone: string) => { const local = DateTime.fromJSDate(now, { zone }); return local.hour + local.minute / 60; };
  const found = candidates.find((zone) => hourIn(zone) >= 6 && hourIn(zone) < 18);
  if (found) return found;
  return [...candidates].sort((a, b) => Math.abs(hourIn(a) - 12) - Math.abs(hourIn(b) - 12))[0];
}

/** The local date and HH:MM start `minutes` from now in `zone` (the minute rounded down): a service starting soon, whatever the time. */
export function startingIn(minutes: number, zone: string, now: Date = new Date()): { startDate: string; startTime: string } {
  const at = DateTime.fromJSDate(now, { zone }).plus({ minutes });
  return { startDate: at.toISODate()!, startTime: at.toFormat('HH:mm') };
}
