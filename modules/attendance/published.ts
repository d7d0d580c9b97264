import type { Queryable } from '../../db/pool';
import { listCheckins } from '../guests/checkin/published';
import { addDays } from '../metrics';
import { mondayOf, REGULAR_LOOKBACK_WEEKS, REGULAR_MIN_WEEKS } from './summary';

/** Weeks with no check-in that make a regular's absence a drop. */
export const DROP_RECENT_WEEKS = 4;

export interface AttendanceDrop {
  contactId: string;
  /** Weeks with a check-in in the DROP_RECENT_WEEKS weeks before asOf. */
  recentWeeks: number;
  /** Weeks with a check-in in the REGULAR_LOOKBACK_WEEKS weeks before those. */
  priorWeeks: number;
  dropped: boolean;
  lastVisit: string | null;
  reason: string;
}

/**
 * For the people module's care signals: whether each contact was a regular (checked in on at least
 * REGULAR_MIN_WEEKS of the REGULAR_LOOKBACK_WEEKS weeks before the last four) and has not checked
 * in at all in the last four weeks before `asOf` (YYYY-MM-DD, default today UTC). Explained, not scored.
 */
export async function attendanceDropFor(db: Queryable, orgId: string, contactIds: readonly string[], asOf = new Date().toISOString().slice(0, 10)): Promise<Map<string, AttendanceDrop>> {
  const recentFrom = addDays(asOf, -7 * DROP_RECENT_WEEKS);
  const priorFrom = addDays(recentFrom, -7 * REGULAR_LOOKBACK_WEEKS);
  const wanted = new Set(contactIds);
  const checkins = contactIds.length === 0 ? [] : (await listCheckins(db, orgId, { from: priorFrom, to: addDays(asOf, -1) })).filter((c) => wanted.has(c.contactId));
  const result = new Map<string, AttendanceDrop>();
  for (const contactId of contactIds) {
    const mine = checkins.filter((c) => c.contactId === contactId);
    const recentWeeks = new Set(mine.filter((c) => c.localDate >= recentFrom).map((c) => mondayOf(c.localDate))).size;
    const priorWeeks = new Set(mine.filter((c) => c.localDate < recentFrom).map((c) => mondayOf(c.localDate))).size;
    const lastVisit = mine.length ? mine.map((c) => c.localDate).sort().at(-1)! : null;
    const dropped = priorWeeks >= REGULAR_MIN_WEEKS && recentWeeks === 0;
    const reason = dropped
      ? `Came on ${priorWeeks} of the ${REGULAR_LOOKBACK_WEEKS} weeks before ${recentFrom}, and not at all in the ${DROP_RECENT_WEEKS} weeks since (last ${lastVisit})`
      : `Came on ${recentWeeks} of the last ${DROP_RECENT_WEEKS} weeks and ${priorWeeks} of the ${REGULAR_LOOKBACK_WEEKS} before`;
    result.set(contactId, { contactId, recentWeeks, priorWeeks, dropped, lastVisit, reason });
  }
  return result;
}
