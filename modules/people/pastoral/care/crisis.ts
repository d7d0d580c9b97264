import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import type { RowOf } from '../../../kit';
import { displayNameOf } from '../../contacts';
import type { Contact } from '../../models/contacts';
import type { CrisisHold } from './models';
import { CRISIS_CATEGORIES, findCrisisSignals, type CrisisCategory, type CrisisSignal } from './crisis-rules';

/**
 * Crisis holds. When a counselling referral reads as a crisis, the contact is put on hold: no
 * message to them leaves through Steward, and nothing automated is queued for them, until a
 * person with people:safeguarding has reached them and clears the hold. Every sending path asks
 * isOnCrisisHold: outreach approval and delivery, pastoral automations, the pastoral agent's
 * planning and agents' own calls to people_create_outreach (and, later, the channels module).
 *
 * Placing a hold locks the contact row FOR UPDATE; approval and delivery read the contact FOR SHARE
 * before they ask, so a send already past its check finishes first and every later one sees the hold.
 */

/** UK helplines, checked against each service's own published numbers; shown with every crisis result. */
const national = (name: string, contact: string, how: 'call' | 'text', available: string, forWhat: string): CounsellingResource => ({
  resourceId: null, name, contact, how, available, forWhat, source: 'national',
});

export const COUNSELLING_RESOURCES: readonly CounsellingResource[] = [
  national('Emergency services', '999', 'call', '24 hours', 'Someone is in immediate danger, badly hurt, or has taken an overdose'),
  national('Samaritans', '116 123', 'call', '24 hours, every day, free', 'Anyone struggling to cope or thinking about suicide'),
  national('Shout', 'Text SHOUT to 85258', 'text', '24 hours, every day, free', 'Anyone in crisis who would rather text than talk'),
  national('Childline', '0800 1111', 'call', '24 hours, free', 'Children and young people under 19'),
  national('NSPCC helpline', '0808 800 5000', 'call', 'Opening hours vary: see nspcc.org.uk', 'Adults worried about a child'),
  national('National Domestic Abuse Helpline', '0808 2000 247', 'call', '24 hours, free', 'Anyone experiencing domestic abuse, or worried about someone who is'),
];

export const RESOURCE_HOW = ['call', 'text', 'visit', 'web'] as const;

export interface CounsellingResource {
  /** Set on the organisation's own resources (they can be removed); null on the national helplines. */
  resourceId: string | null;
  name: string;
  contact: string;
  how: (typeof RESOURCE_HOW)[number];
  available: string | null;
  forWhat: string | null;
  source: 'national' | 'organisation';
}

export const counsellingResourceSchema = z.object({
  resourceId: z.uuid().nullable().describe('The organisation\'s own resource (removable); null for national helplines'),
  name: z.string(), contact: z.string().describe('Number, address, or how to text'), how: z.enum(RESOURCE_HOW),
  available: z.string().nullable(), forWhat: z.string().nullable().describe('Who it is for'),
  source: z.enum(['national', 'organisation']),
}).strict();

/** The national helplines, then the organisation's own resources by name. */
export async function listCounsellingResources(db: Queryable, orgId: string): Promise<CounsellingResource[]> {
  const rows = await queryRows<{ id: string; name: string; contact: string; how: CounsellingResource['how']; available: string | null; for_what: string | null }>(db,
    'SELECT id, name, contact, how, available, for_what FROM counseling_resources WHERE org_id = $1 ORDER BY lower(name), id', [orgId]);
  return [...COUNSELLING_RESOURCES, ...rows.map((row) => ({
    resourceId: row.id, name: row.name, contact: row.contact, how: row.how, available: row.available, forWhat: row.for_what, source: 'organisation' as const,
  }))];
}

export async function addCounsellingResource(
  db: Queryable, orgId: string, input: { name: string; contact: string; how: CounsellingResource['how']; available?: string; forWhat?: string },
): Promise<CounsellingResource> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`counseling-resources:${orgId}`]);
  const clash = await queryOne(db, 'SELECT 1 FROM counseling_resources WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, input.name]);
  if (clash) throw new StewardError('conflict', `A resource named "${input.name}" is already listed`, { hint: 'Remove it first (people_remove_counseling_resource) to change it.' });
  const id = randomUUID();
  await db.query('INSERT INTO counseling_resources (id, org_id, name, contact, how, available, for_what) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [id, orgId, input.name, input.contact, input.how, input.available ?? null, input.forWhat ?? null]);
  return { resourceId: id, name: input.name, contact: input.contact, how: input.how, available: input.available ?? null, forWhat: input.forWhat ?? null, source: 'organisation' };
}

export async function removeCounsellingResource(db: Queryable, orgId: string, resourceId: string): Promise<void> {
  const removed = await db.query('DELETE FROM counseling_resources WHERE org_id = $1 AND id = $2', [orgId, resourceId]);
  if ((removed.rowCount ?? 0) === 0) throw new StewardError('not_found', `Resource ${resourceId} was not found`, { hint: 'people_list_counseling_resources lists them.' });
}

export const crisisSignalSchema = z.object({
  category: z.enum(CRISIS_CATEGORIES), label: z.string().describe('Which rule matched'),
  matched: z.string().describe('The words that matched'), negated: z.boolean().describe('Preceded by a negation; still counted, a person judges it'),
}).strict();

export const crisisHoldSchema = z.object({
  holdId: z.uuid(),
  contactId: z.uuid(),
  contactName: z.string(),
  categories: z.array(z.enum(CRISIS_CATEGORIES)).nullable().describe('What the referral showed; null without people:safeguarding'),
  placedAt: z.string(),
  placedByUserId: z.uuid().nullable(),
  clearedAt: z.string().nullable(),
  clearedByUserId: z.uuid().nullable(),
  clearNote: z.string().nullable().describe('Null without people:safeguarding'),
}).strict();
export type CrisisHoldView = z.infer<typeof crisisHoldSchema>;

/** The words a crisis result leads with: for the caller to act on before anything else. */
export const INVOLVE_A_PERSON_NOW = 'This may be a crisis. Involve a person now: a pastor or safeguarding lead should contact them today, ' +
  'and if anyone is in immediate danger call 999. Do not send automated or templated messages; every message to this person is held until a staff member clears the hold.';

/** Whether any message to this contact must wait for a person. For every sending path, including the future channels module. */
export async function isOnCrisisHold(db: Queryable, orgId: string, contactId: string): Promise<boolean> {
  const row = await queryOne(db, 'SELECT 1 FROM crisis_holds WHERE org_id = $1 AND contact_id = $2 AND cleared_at IS NULL LIMIT 1', [orgId, contactId]);
  return Boolean(row);
}

/** The refusal every sending path gives for a held contact: the same code and words everywhere. */
export function crisisHoldRefusal(): { code: string; message: string } {
  return { code: 'crisis_hold', message: 'This person is on a crisis hold: messages wait until a staff member has reached them and clears the hold' };
}

export function crisisHoldError(): StewardError {
  const refusal = crisisHoldRefusal();
  return new StewardError('conflict', refusal.message, {
    details: { reason: refusal.code }, hint: 'A person should reach them directly; people_list_crisis_holds and people_clear_crisis_hold manage holds.',
  });
}

/** Contacts of `contactIds` that are held (for planners that look at many at once). */
export async function heldContactIds(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<Set<string>> {
  if (contactIds.length === 0) return new Set();
  const rows = await queryRows<{ contact_id: string }>(db, 'SELECT DISTINCT contact_id FROM crisis_holds WHERE org_id = $1 AND contact_id = ANY($2::uuid[]) AND cleared_at IS NULL', [orgId, contactIds]);
  return new Set(rows.map((row) => row.contact_id));
}

type HoldRow = RowOf<CrisisHold> & Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email'>;

const SELECT_HOLD = `SELECT h.*, c.first_name, c.last_name, c.preferred_name, c.email
  FROM crisis_holds h JOIN contacts c ON c.id = h.contact_id AND c.org_id = h.org_id AND c.deleted_at IS NULL`;

function holdView(row: HoldRow, canSeeRestricted: boolean): CrisisHoldView {
  return {
    holdId: row.id, contactId: row.contact_id, contactName: displayNameOf(row), categories: canSeeRestricted ? row.signals : null,
    placedAt: row.placed_at.toISOString(), placedByUserId: row.placed_by_user_id, clearedAt: row.cleared_at?.toISOString() ?? null,
    clearedByUserId: row.cleared_by_user_id, clearNote: canSeeRestricted ? row.clear_note : null,
  };
}

/** Locks the live contact (FOR UPDATE: waits for sends holding it FOR SHARE); another organisation's contact is not found. */
async function lockContact(db: Queryable, orgId: string, contactId: string): Promise<void> {
  const row = await queryOne(db, 'SELECT 1 FROM contacts WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE', [orgId, contactId]);
  if (!row) throw new StewardError('not_found', `Contact ${contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
}

/**
 * Puts the contact on hold, or adds the new categories to the hold already there (one live hold per
 * contact: the contact row lock serialises placements). Only categories are stored, never the referral text.
 */
export async function placeCrisisHold(
  db: Queryable, orgId: string, contactId: string, categories: CrisisCategory[], userId: string | null, canSeeRestricted: boolean,
): Promise<{ hold: CrisisHoldView; created: boolean }> {
  await lockContact(db, orgId, contactId);
  const existing = await queryOne<{ id: string; signals: CrisisCategory[] }>(db,
    'SELECT id, signals FROM crisis_holds WHERE org_id = $1 AND contact_id = $2 AND cleared_at IS NULL ORDER BY placed_at LIMIT 1', [orgId, contactId]);
  let holdId: string;
  if (existing) {
    holdId = existing.id;
    const merged = CRISIS_CATEGORIES.filter((category) => existing.signals.includes(category) || categories.includes(category));
    await db.query('UPDATE crisis_holds SET signals = $3::jsonb WHERE org_id = $1 AND id = $2', [orgId, holdId, JSON.stringify(merged)]);
  } else {
    holdId = randomUUID();
    await db.query('INSERT INTO crisis_holds (id, org_id, contact_id, signals, placed_by_user_id) VALUES ($1, $2, $3, $4::jsonb, $5)',
      [holdId, orgId, contactId, JSON.stringify(CRISIS_CATEGORIES.filter((category) => categories.includes(category))), userId]);
  }
  const row = await queryOne<HoldRow>(db, `${SELECT_HOLD} WHERE h.org_id = $1 AND h.id = $2`, [orgId, holdId]);
  return { hold: holdView(row!, canSeeRestricted), created: !existing };
}

export async function listCrisisHolds(
  db: Queryable, orgId: string, canSeeRestricted: boolean, filter: { status: 'active' | 'cleared' | 'all'; contactId?: string; limit: number },
): Promise<CrisisHoldView[]> {
  const rows = await queryRows<HoldRow>(db, `${SELECT_HOLD}
    WHERE h.org_id = $1 AND ($2 = 'all' OR ($2 = 'active' AND h.cleared_at IS NULL) OR ($2 = 'cleared' AND h.cleared_at IS NOT NULL))
      AND ($3::uuid IS NULL OR h.contact_id = $3)
    ORDER BY h.placed_at DESC, h.id LIMIT $4`, [orgId, filter.status, filter.contactId ?? null, filter.limit]);
  return rows.map((row) => holdView(row, canSeeRestricted));
}

export async function countActiveCrisisHolds(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ count: number }>(db, `SELECT count(DISTINCT h.contact_id)::int AS count FROM crisis_holds h
    JOIN contacts c ON c.id = h.contact_id AND c.org_id = h.org_id AND c.deleted_at IS NULL WHERE h.org_id = $1 AND h.cleared_at IS NULL`, [orgId]);
  return row!.count;
}

/** Clears the hold (every live hold on that contact); a second clear is refused, the first one stands. */
export async function clearCrisisHold(db: Queryable, orgId: string, holdId: string, userId: string, note: string): Promise<CrisisHoldView> {
  const hold = await queryOne<{ contact_id: string; cleared_at: Date | null }>(db,
    `SELECT h.contact_id, h.cleared_at FROM crisis_holds h JOIN contacts c ON c.id = h.contact_id AND c.org_id = h.org_id AND c.deleted_at IS NULL
     WHERE h.org_id = $1 AND h.id = $2`, [orgId, holdId]);
  if (!hold) throw new StewardError('not_found', `Crisis hold ${holdId} was not found`, { hint: 'people_list_crisis_holds lists them.' });
  await lockContact(db, orgId, hold.contact_id);
  const cleared = await db.query(`UPDATE crisis_holds SET cleared_at = now(), cleared_by_user_id = $3, clear_note = $4
    WHERE org_id = $1 AND contact_id = $2 AND cleared_at IS NULL`, [orgId, hold.contact_id, userId, note]);
  if ((cleared.rowCount ?? 0) === 0) throw new StewardError('conflict', 'This crisis hold is already cleared');
  const row = await queryOne<HoldRow>(db, `${SELECT_HOLD} WHERE h.org_id = $1 AND h.id = $2`, [orgId, holdId]);
  return holdView(row!, true);
}

export interface ReferralAnalysis {
  isCrisis: boolean;
  signals: CrisisSignal[];
  guidance: string;
  resources: CounsellingResource[];
  hold: CrisisHoldView | null;
  holdCreated: boolean;
}

/** Reads the referral with the rule set; a crisis about a named contact puts them on hold. The text itself is not stored. */
export async function analyzeReferral(
  db: Queryable, orgId: string, caller: { userId: string; canSeeRestricted: boolean }, text: string, contactId?: string,
): Promise<ReferralAnalysis> {
  if (contactId) {
    const exists = await queryOne(db, 'SELECT 1 FROM contacts WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, contactId]);
    if (!exists) throw new StewardError('not_found', `Contact ${contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  }
  const signals = findCrisisSignals(text);
  const isCrisis = signals.length > 0;
  const resources = await listCounsellingResources(db, orgId);
  if (!isCrisis) {
    return {
      isCrisis, signals, hold: null, holdCreated: false, resources,
      guidance: 'No crisis wording was found. This is a rule check, not a judgement: if anything about this person worries you, speak to your pastor or safeguarding lead today.',
    };
  }
  const categories = [...new Set(signals.map((signal) => signal.category))];
  const placed = contactId ? await placeCrisisHold(db, orgId, contactId, categories, caller.userId, caller.canSeeRestricted) : null;
  return {
    isCrisis, signals, resources, hold: placed?.hold ?? null, holdCreated: placed?.created ?? false,
    guidance: contactId ? INVOLVE_A_PERSON_NOW : `${INVOLVE_A_PERSON_NOW} No contact was named, so no hold was placed: call again with contactId to hold their messages.`,
  };
}
