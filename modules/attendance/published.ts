import { queryRows, type Queryable } from '../../db/pool';
import { listCheckins, type CheckinRecord } from '../guests/api';
import { addDays, mondayOf } from '../metrics';
import { displayNameOf } from '../people/api';
import { REGULAR_LOOKBACK_WEEKS, REGULAR_MIN_WEEKS } from './summary';

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

/** The weeks a drop is judged on, as of a date. */
function windowsOf(asOf: string) {
  const recentFrom = addDays(asOf, -7 * DROP_RECENT_WEEKS);
  return { recentFrom, priorFrom: addDays(recentFrom, -7 * REGULAR_LOOKBACK_WEEKS), lastDay: addDays(asOf, -1) };
}

function dropOf(contactId: string, mine: readonly CheckinRecord[], recentFrom: string): AttendanceDrop {
  const recentWeeks = new Set(mine.filter((c) => c.localDate >= recentFrom).map((c) => mondayOf(c.localDate))).size;
  const priorWeeks = new Set(mine.filter((c) => c.localDate < recentFrom).map((c) => mondayOf(c.localDate))).size;
  const lastVisit = mine.length ? mine.map((c) => c.localDate).sort().at(-1)! : null;
  const dropped = priorWeeks >= REGULAR_MIN_WEEKS && recentWeeks === 0;
  const reason = dropped
    ? `Came on ${priorWeeks} of the ${REGULAR_LOOKBACK_WEEKS} weeks before ${recentFrom}, and not at all in the ${DROP_RECENT_WEEKS} weeks since (last ${lastVisit})`
    : `Came on ${recentWeeks} of the last ${DROP_RECENT_WEEKS} weeks and ${priorWeeks} of the ${REGULAR_LOOKBACK_WEEKS} before`;
  return { contactId, recentWeeks, priorWeeks, dropped, lastVisit, reason };
}

function byContact(checkins: readonly CheckinRecord[]): Map<string, CheckinRecord[]> {
  const map = new Map<string, CheckinRecord[]>();
  for (const checkin of checkins) map.set(checkin.contactId, [...(map.get(checkin.contactId) ?? []), checkin]);
  return map;
}

/**
 * For the people module's care signals: whether each contact was a regular (checked in on at least
 * REGULAR_MIN_WEEKS of the REGULAR_LOOKBACK_WEEKS weeks before the last four) and has not checked
 * in at all in the last four weeks before `asOf` (YYYY-MM-DD, default today UTC). Explained, not scored.
 */
export async function attendanceDropFor(db: Queryable, orgId: string, contactIds: readonly string[], asOf = new Date().toISOString().slice(0, 10)): Promise<Map<string, AttendanceDrop>> {
  const { recentFrom, priorFrom, lastDay } = windowsOf(asOf);
  const wanted = new Set(contactIds);
  const checkins = contactIds.length === 0 ? [] : (await listCheckins(db, orgId, { from: priorFrom, to: lastDay })).filter((c) => wanted.has(c.contactId));
  const grouped = byContact(checkins);
  return new Map(contactIds.map((contactId) => [contactId, dropOf(contactId, grouped.get(contactId) ?? [], recentFrom)]));
}

/** A dropped regular with the name the people directory gives them now. */
export interface NamedAttendanceDrop extends AttendanceDrop {
  contactName: string;
}

/**
 * Every regular who stopped coming, as of `asOf`: the candidates are the people checked in during the
 * lookback weeks, and the rule is attendanceDropFor's. Named from the people directory, so a removed
 * contact drops out. Longest absent first.
 */
export async function droppedRegulars(db: Queryable, orgId: string, asOf = new Date().toISOString().slice(0, 10)): Promise<NamedAttendanceDrop[]> {
  const { recentFrom, priorFrom, lastDay } = windowsOf(asOf);
  const grouped = byContact(await listCheckins(db, orgId, { from: priorFrom, to: lastDay }));
  const drops = [...grouped].map(([contactId, mine]) => dropOf(contactId, mine, recentFrom)).filter((drop) => drop.dropped);
  if (drops.length === 0) return [];
  const rows = await queryRows<{ id: string; preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }>(db,
    'SELECT id, preferred_name, first_name, last_name, email FROM people_directory WHERE org_id = $1 AND id = ANY($2::uuid[])', [orgId, drops.map((drop) => drop.contactId)]);
  const names = new Map(rows.map((row) => [row.id, displayNameOf(row)]));
  return drops.filter((drop) => names.has(drop.contactId)).map((drop) => ({ ...drop, contactName: names.get(drop.contactId)! }))
    .sort((a, b) => (a.lastVisit ?? '').localeCompare(b.lastVisit ?? '') || a.contactId.localeCompare(b.contactId));
}
