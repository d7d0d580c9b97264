import { DateTime, IANAZone } from 'luxon';
import { StewardError } from '../../../core/errors';
import { queryOne, type Queryable } from '../../../db/pool';
import type { RowOf } from '../../kit';
import type { ChannelSettings } from './models';

/**
 * Quiet hours: an organisation setting, off until someone turns it on (so nothing an organisation
 * already sends starts waiting overnight unannounced); turning it on without times gives 21:00–08:00.
 * Times are local to the recipient: people keep no time zone per contact, so the recipient's zone is
 * the organisation's (`timeZone`, default Europe/London). Quiet hours defer a message, never drop it:
 * the check says when sending may resume.
 */
export interface ChannelSettingsView {
  quietHours: { enabled: boolean; start: string; end: string };
  timeZone: string;
  updatedAt: string | null;
}

export const DEFAULT_SETTINGS: ChannelSettingsView = {
  quietHours: { enabled: false, start: '21:00', end: '08:00' }, timeZone: 'Europe/London', updatedAt: null,
};

type SettingsRow = RowOf<ChannelSettings>;

export async function getChannelSettings(db: Queryable, orgId: string): Promise<ChannelSettingsView> {
  const row = await queryOne<SettingsRow>(db, 'SELECT * FROM channel_settings WHERE org_id = $1', [orgId]);
  if (!row) return DEFAULT_SETTINGS;
  return {
    quietHours: { enabled: row.quiet_hours_enabled, start: row.quiet_start, end: row.quiet_end },
    timeZone: row.time_zone,
    updatedAt: row.updated_at.toISOString(),
  };
}

export function assertTimeZone(zone: string, path = 'timeZone'): void {
  if (!IANAZone.isValidZone(zone)) {
    throw new StewardError('validation_failed', `${zone} is not a time zone`, {
      issues: [{ path, message: 'not an IANA time zone' }], hint: 'Use an IANA name such as Europe/London or America/New_York.',
    });
  }
}

export async function updateChannelSettings(
  db: Queryable, orgId: string, change: { quietHours?: { enabled?: boolean; start?: string; end?: string }; timeZone?: string },
): Promise<ChannelSettingsView> {
  const current = await getChannelSettings(db, orgId);
  const quiet = { ...current.quietHours, ...change.quietHours };
  const timeZone = change.timeZone ?? current.timeZone;
  assertTimeZone(timeZone);
  if (quiet.start === quiet.end) {
    throw new StewardError('validation_failed', 'Quiet hours must start and end at different times', {
      issues: [{ path: 'quietHours.end', message: 'same as start' }], hint: 'To have no quiet hours, set quietHours.enabled to false.',
    });
  }
  await db.query(`
    INSERT INTO channel_settings (org_id, quiet_hours_enabled, quiet_start, quiet_end, time_zone, updated_at)
    VALUES ($1, $2, $3, $4, $5, now())
    ON CONFLICT (org_id) DO UPDATE SET quiet_hours_enabled = $2, quiet_start = $3, quiet_end = $4, time_zone = $5, updated_at = now()`,
  [orgId, quiet.enabled, quiet.start, quiet.end, timeZone]);
  return getChannelSettings(db, orgId);
}

function minutesOf(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return hours * 60 + minutes;
}

/**
 * When sending may resume if `now` falls in quiet hours (the end of the quiet period, in the zone),
 * or null when it may go now. Handles periods over midnight (21:00–08:00) and within a day
 * (12:00–14:00); on a day whose clocks change the end is the wall-clock time luxon gives (a time the
 * clocks skip moves forward).
 */
export function quietUntil(now: Date, quietHours: { enabled: boolean; start: string; end: string }, zone: string): Date | null {
  if (!quietHours.enabled) return null;
  const local = DateTime.fromJSDate(now, { zone });
  const minute = local.hour * 60 + local.minute;
  const start = minutesOf(quietHours.start);
  const end = minutesOf(quietHours.end);
  const overnight = start > end;
  const quiet = overnight ? minute >= start || minute < end : minute >= start && minute < end;
  if (!quiet) return null;
  const endDay = overnight && minute >= start ? local.plus({ days: 1 }) : local;
  return endDay.set({ hour: Math.floor(end / 60), minute: end % 60, second: 0, millisecond: 0 }).toJSDate();
}
