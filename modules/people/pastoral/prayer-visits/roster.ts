import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import { StewardError } from '../../../../core/errors';
import { displayNameOf } from '../../contacts';
import { todayUtc } from '../../../metrics';
import { COMMUNITY_SETTINGS_DEFAULTS } from './defaults';

// ---------------------------------------------------------------- settings

export interface CommunitySettingsView {
  prayerWallEnabled: boolean;
  /** Always true: nothing reaches the prayer wall or the celebrations board before a person approves it. */
  wallModerationRequired: true;
  celebrationsEnabled: boolean;
  celebratedLifeEventTypes: string[];
  wallPostLifetimeDays: number;
  newMemberWindowDays: number;
  /** False while the organisation still runs on the defaults (nothing saved yet). */
  saved: boolean;
}

export async function getCommunitySettings(db: Queryable, orgId: string): Promise<CommunitySettingsView> {
  const row = await queryOne<{ prayer_wall_enabled: boolean; celebrations_enabled: boolean; celebrated_life_event_types: string[]; wall_post_lifetime_days: number; new_member_window_days: number }>(db, `
    SELECT prayer_wall_enabled, celebrations_enabled, celebrated_life_event_types, wall_post_lifetime_days, new_member_window_days
    FROM community_settings WHERE org_id = $1`, [orgId]);
  if (!row) return { ...COMMUNITY_SETTINGS_DEFAULTS, celebratedLifeEventTypes: [...COMMUNITY_SETTINGS_DEFAULTS.celebratedLifeEventTypes], wallModerationRequired: true, saved: false };
  return {
    prayerWallEnabled: row.prayer_wall_enabled, wallModerationRequired: true, celebrationsEnabled: row.celebrations_enabled,
    celebratedLifeEventTypes: row.celebrated_life_event_types, wallPostLifetimeDays: row.wall_post_lifetime_days,
    newMemberWindowDays: row.new_member_window_days, saved: true,
  };
}

export interface CommunitySettingsChange {
  prayerWallEnabled?: boolean;
  celebrationsEnabled?: boolean;
  celebratedLifeEventTypes?: string[];
  wallPostLifetimeDays?: number;
  newMemberWindowDays?: number;
}

export async function setCommunitySettings(db: Queryable, orgId: string, change: CommunitySettingsChange): Promise<{ settings: CommunitySettingsView; changed: string[] }> {
  const changed = Object.entries(change).filter(([, value]) => value !== undefined).map(([key]) => key);
  if (changed.length === 0) throw new StewardError('validation_failed', 'Nothing to change: give at least one setting');
  const types = change.celebratedLifeEventTypes ? [...new Set(change.celebratedLifeEventTypes)] : null;
  // The first write creates the row from the column defaults; every write then changes only what was given.
  await db.query('INSERT INTO community_settings (org_id) VALUES ($1) ON CONFLICT (org_id) DO NOTHING', [orgId]);
  await db.query(`UPDATE community_settings SET
      prayer_wall_enabled = COALESCE($2, prayer_wall_enabled), celebrations_enabled = COALESCE($3, celebrations_enabled),
      celebrated_life_event_types = COALESCE($4::text[], celebrated_life_event_types),
      wall_post_lifetime_days = COALESCE($5, wall_post_lifetime_days), new_member_window_days = COALESCE($6, new_member_window_days),
      updated_at = now()
    WHERE org_id = $1`,
  [orgId, change.prayerWallEnabled ?? null, change.celebrationsEnabled ?? null, types, change.wallPostLifetimeDays ?? null, change.newMemberWindowDays ?? null]);
  return { settings: await getCommunitySettings(db, orgId), changed };
}

// ---------------------------------------------------------------- roster

export interface MembershipChange {
  contactId: string;
  member: boolean;
  joinedOn?: string;
  celebrationConsent?: boolean;
}

export interface MembershipOutcome {
  contactId: string;
  outcome: 'joined' | 'rejoined' | 'updated' | 'unchanged' | 'left' | 'not_a_member' | 'not_found';
}

/**
 * Applies roster changes in one transaction, each entry on its own: a contact who is not the
 * organisation's (or is deleted) is reported `not_found` and nothing is written for it. Joining
 * someone already on the roster only updates the consent given; leaving keeps the row with left_on.
 */
export async function setCommunityMemberships(db: Queryable, orgId: string, changes: readonly MembershipChange[]): Promise<MembershipOutcome[]> {
  const ids = [...new Set(changes.map((change) => change.contactId))];
  const live = new Set((await queryRows<{ id: string }>(db, 'SELECT id FROM contacts WHERE org_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL', [orgId, ids])).map((r) => r.id));
  const today = todayUtc();
  const outcomes: MembershipOutcome[] = [];
  for (const change of changes) {
    if (!live.has(change.contactId)) { outcomes.push({ contactId: change.contactId, outcome: 'not_found' }); continue; }
    if (change.joinedOn && change.joinedOn > today) {
      throw new StewardError('validation_failed', `joinedOn ${change.joinedOn} is in the future`, { issues: [{ path: 'memberships.joinedOn', message: 'must be today or earlier' }] });
    }
    outcomes.push({ contactId: change.contactId, outcome: await applyMembership(db, orgId, change, await lockMembership(db, orgId, change.contactId), today) });
  }
  return outcomes;
}

type MembershipRow = { joined_on: string; left_on: string | null; celebration_consent: boolean };

function lockMembership(db: Queryable, orgId: string, contactId: string): Promise<MembershipRow | undefined> {
  return queryOne<MembershipRow>(db, 'SELECT joined_on, left_on, celebration_consent FROM community_memberships WHERE org_id = $1 AND contact_id = $2 FOR UPDATE', [orgId, contactId]);
}

async function applyMembership(
  db: Queryable, orgId: string, change: MembershipChange, existing: MembershipRow | undefined, today: string,
): Promise<MembershipOutcome['outcome']> {
  if (!change.member) {
    if (!existing || existing.left_on !== null) return 'not_a_member';
    await db.query('UPDATE community_memberships SET left_on = GREATEST($3::date, joined_on), updated_at = now() WHERE org_id = $1 AND contact_id = $2', [orgId, change.contactId, today]);
    return 'left';
  }
  if (!existing) {
    const inserted = await db.query('INSERT INTO community_memberships (org_id, contact_id, joined_on, celebration_consent) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [orgId, change.contactId, change.joinedOn ?? today, change.celebrationConsent ?? false]);
    if (inserted.rowCount === 1) return 'joined';
    // Another call added them between our read and this insert (a missing row cannot be locked): decide again on their row.
    return applyMembership(db, orgId, change, await lockMembership(db, orgId, change.contactId), today);
  }
  if (existing.left_on !== null) {
    await db.query('UPDATE community_memberships SET joined_on = $3, left_on = NULL, celebration_consent = $4, updated_at = now() WHERE org_id = $1 AND contact_id = $2',
      [orgId, change.contactId, change.joinedOn ?? today, change.celebrationConsent ?? false]);
    return 'rejoined';
  }
  const consent = change.celebrationConsent ?? existing.celebration_consent;
  const joinedOn = change.joinedOn ?? existing.joined_on;
  if (consent === existing.celebration_consent && joinedOn === existing.joined_on) return 'unchanged';
  await db.query('UPDATE community_memberships SET joined_on = $3, celebration_consent = $4, updated_at = now() WHERE org_id = $1 AND contact_id = $2',
    [orgId, change.contactId, joinedOn, consent]);
  return 'updated';
}

export interface RosterMember {
  contactId: string;
  name: string;
  joinedOn: string;
  leftOn: string | null;
  celebrationConsent: boolean;
}

/** Roster rows of live contacts; `joinedWithinDays` keeps those who joined in the last so many days (newest first). */
export async function listRoster(
  db: Queryable, orgId: string, filter: { status: 'current' | 'left' | 'all'; joinedWithinDays?: number; limit: number; offset: number },
): Promise<{ members: RosterMember[]; total: number }> {
  const where = `m.org_id = $1 AND ($2 = 'all' OR ($2 = 'current' AND m.left_on IS NULL) OR ($2 = 'left' AND m.left_on IS NOT NULL))
    AND ($3::int IS NULL OR m.joined_on > current_date - $3::int)`;
  const rows = await queryRows<{ contact_id: string; joined_on: string; left_on: string | null; celebration_consent: boolean; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db, `
    SELECT m.contact_id, m.joined_on, m.left_on, m.celebration_consent, c.first_name, c.last_name, c.preferred_name, c.email
    FROM community_memberships m JOIN contacts c ON c.id = m.contact_id AND c.org_id = m.org_id AND c.deleted_at IS NULL
    WHERE ${where} ORDER BY m.joined_on DESC, c.last_name NULLS LAST, c.first_name NULLS LAST, m.contact_id LIMIT $4 OFFSET $5`,
  [orgId, filter.status, filter.joinedWithinDays ?? null, filter.limit, filter.offset]);
  const total = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM community_memberships m
    JOIN contacts c ON c.id = m.contact_id AND c.org_id = m.org_id AND c.deleted_at IS NULL WHERE ${where}`,
  [orgId, filter.status, filter.joinedWithinDays ?? null]);
  return {
    members: rows.map((r) => ({ contactId: r.contact_id, name: displayNameOf(r), joinedOn: r.joined_on, leftOn: r.left_on, celebrationConsent: r.celebration_consent })),
    total: total?.n ?? 0,
  };
}

/** One contact's roster entry (live contacts only), or undefined when they were never on it. */
export async function getMembership(db: Queryable, orgId: string, contactId: string): Promise<RosterMember | undefined> {
  const [member] = (await queryRows<{ contact_id: string; joined_on: string; left_on: string | null; celebration_consent: boolean; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db, `
    SELECT m.contact_id, m.joined_on, m.left_on, m.celebration_consent, c.first_name, c.last_name, c.preferred_name, c.email
    FROM community_memberships m JOIN contacts c ON c.id = m.contact_id AND c.org_id = m.org_id AND c.deleted_at IS NULL
    WHERE m.org_id = $1 AND m.contact_id = $2`, [orgId, contactId]));
  return member && { contactId: member.contact_id, name: displayNameOf(member), joinedOn: member.joined_on, leftOn: member.left_on, celebrationConsent: member.celebration_consent };
}

export interface RosterCounts {
  current: number;
  joinedRecently: number;
  leftRecently: number;
  withCelebrationConsent: number;
  windowDays: number;
}

/** Roster counts; `communityMembers` on platform_overview is `current`. */
export async function countRoster(db: Queryable, orgId: string, windowDays: number): Promise<RosterCounts> {
  const row = await queryOne<{ current: number; joined: number; left: number; consent: number }>(db, `
    SELECT count(*) FILTER (WHERE m.left_on IS NULL)::int AS current,
      count(*) FILTER (WHERE m.left_on IS NULL AND m.joined_on > current_date - $2::int)::int AS joined,
      count(*) FILTER (WHERE m.left_on IS NOT NULL AND m.left_on > current_date - $2::int)::int AS left,
      count(*) FILTER (WHERE m.left_on IS NULL AND m.celebration_consent)::int AS consent
    FROM community_memberships m JOIN contacts c ON c.id = m.contact_id AND c.org_id = m.org_id AND c.deleted_at IS NULL
    WHERE m.org_id = $1`, [orgId, windowDays]);
  return { current: row!.current, joinedRecently: row!.joined, leftRecently: row!.left, withCelebrationConsent: row!.consent, windowDays };
}
