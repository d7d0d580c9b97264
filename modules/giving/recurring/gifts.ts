import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { listPage, notFound, type RowOf } from '../../kit';
import { displayNameOf, requireContact } from '../../people/api';
import type { OrgSettings } from '../../tool';
import type { GivingRecurringGift } from '../models/recurring-gifts';
import { minorUnits } from '../money';
import { requireActiveFund } from '../pledges';
import { organisationCurrency } from '../settings';
import { RECURRING_FREQUENCIES, firstOccurrenceAfter, firstOccurrenceOnOrAfter, type RecurringFrequency } from './calendar';
import { todayUtc } from '../../metrics';

/**
 * Recurring gifts: a giver's standing promise (a standing order, a card subscription) of an
 * amount to a fund on a schedule. The scheduled run (modules/giving/workflows/recurring.ts) records
 * each occurrence as a donation on its date; these functions keep the gift's state, and
 * `next_on`, the next date the run will record, which only moves forward.
 *
 * The rules, all on UTC dates:
 * - A new gift's first recorded occurrence is the first on or after both its start and today:
 *   a gift set up with a past start date never invents gifts for dates already gone.
 * - Pausing stops recording at once: no occurrence dated while the gift is paused is ever
 *   recorded, not even one not yet recorded when it was paused. Resuming (by hand, or on the
 *   resume date given when pausing) continues with the first occurrence on or after the day it
 *   resumes, never earlier than one already recorded: paused dates are skipped, never back-filled.
 * - Cancelling is final: nothing more is recorded and the gift cannot be resumed.
 */

export const RECURRING_METHODS = ['card', 'bank_transfer', 'standing_order', 'online'] as const;
export type RecurringMethod = (typeof RECURRING_METHODS)[number];
export const RECURRING_STATUSES = ['active', 'paused', 'cancelled'] as const;

export const recurringGiftSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid().nullable(),
  contactName: z.string().nullable(),
  fundId: z.uuid(),
  fundName: z.string(),
  amount: z.number().int().describe('Minor units per occurrence'),
  currency: z.string(),
  method: z.enum(RECURRING_METHODS),
  frequency: z.enum(RECURRING_FREQUENCIES),
  startsOn: z.string().describe('The anchor date every occurrence is counted from'),
  nextOn: z.string().nullable().describe('The next occurrence the scheduled run will record; null when cancelled or paused without a resume date'),
  status: z.enum(RECURRING_STATUSES),
  pausedAt: z.string().nullable(),
  resumeOn: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  lastRecordedOn: z.string().nullable().describe('The latest occurrence recorded as a donation'),
  recordedCount: z.number().int(),
  createdAt: z.string(),
}).strict();
export type RecurringGiftView = z.infer<typeof recurringGiftSchema>;

/** A recurring gift as `SELECT *` reads it, typed by its model. */
export type RecurringGiftRow = RowOf<GivingRecurringGift>;

type GiftViewRow = RecurringGiftRow & {
  fund_name: string;
  preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null;
  last_recorded_on: string | null; recorded_count: number;
};

const GIFT_SELECT = `SELECT g.*, f.name AS fund_name, ct.preferred_name, ct.first_name, ct.last_name, ct.email,
    o.last_recorded_on, COALESCE(o.recorded_count, 0)::int AS recorded_count
  FROM giving_recurring_gifts g
  JOIN giving_funds f ON f.id = g.fund_id
  LEFT JOIN people_directory ct ON ct.id = g.contact_id
  LEFT JOIN LATERAL (SELECT max(d.occurrence_on) AS last_recorded_on, count(*) AS recorded_count
    FROM giving_donations d WHERE d.recurring_gift_id = g.id) o ON true`;

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

function toView(row: GiftViewRow): RecurringGiftView {
  return {
    id: row.id, contactId: row.contact_id, contactName: row.contact_id ? displayNameOf(row) : null, fundId: row.fund_id, fundName: row.fund_name,
    amount: minorUnits(row.amount), currency: row.currency, method: row.method, frequency: row.frequency, startsOn: row.starts_on,
    nextOn: row.next_on, status: row.status, pausedAt: iso(row.paused_at), resumeOn: row.resume_on, cancelledAt: iso(row.cancelled_at),
    lastRecordedOn: row.last_recorded_on, recordedCount: row.recorded_count, createdAt: iso(row.created_at)!,
  };
}

function invalid(field: string, message: string, hint?: string): StewardError {
  return new StewardError('validation_failed', message, { ...(hint ? { hint } : {}), issues: [{ path: field, message }] });
}

export async function getRecurringGift(db: Queryable, orgId: string, giftId: string): Promise<RecurringGiftView> {
  const row = await queryOne<GiftViewRow>(db, `${GIFT_SELECT} WHERE g.org_id = $1 AND g.id = $2`, [orgId, giftId]);
  if (!row) throw notFound('Recurring gift', giftId, 'giving_list_recurring_gifts lists them.');
  return toView(row);
}

/** The gift's row, locked until the transaction ends, so state changes and the scheduled run take turns. */
async function lockGift(db: Queryable, orgId: string, giftId: string): Promise<RecurringGiftRow> {
  const row = await queryOne<RecurringGiftRow>(db, 'SELECT * FROM giving_recurring_gifts WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, giftId]);
  if (!row) throw notFound('Recurring gift', giftId, 'giving_list_recurring_gifts lists them.');
  return row;
}

/** The latest occurrence already recorded for a gift, if any. */
async function lastRecorded(db: Queryable, giftId: string): Promise<string | null> {
  const row = await queryOne<{ last: string | null }>(db, 'SELECT max(occurrence_on) AS last FROM giving_donations WHERE recurring_gift_id = $1', [giftId]);
  return row?.last ?? null;
}

/** The next occurrence to record when a gift (re)starts on `from`: on or after it, after any already recorded. */
async function nextOccurrenceFrom(db: Queryable, gift: Pick<RecurringGiftRow, 'id' | 'starts_on' | 'frequency'>, from: string): Promise<string> {
  const last = await lastRecorded(db, gift.id);
  const next = firstOccurrenceOnOrAfter(gift.starts_on, gift.frequency, from);
  return last && next <= last ? firstOccurrenceAfter(gift.starts_on, gift.frequency, last) : next;
}

export interface RecurringGiftInput {
  contactId: string;
  fundId: string;
  amount: number;
  method: RecurringMethod;
  frequency: RecurringFrequency;
  startsOn?: string;
}

export async function createRecurringGift(db: Queryable, org: OrgSettings, input: RecurringGiftInput): Promise<RecurringGiftView> {
  await requireContact(db, org.id, input.contactId);
  await requireActiveFund(db, org.id, input.fundId);
  const currency = await organisationCurrency(db, org);
  const today = todayUtc();
  const startsOn = input.startsOn ?? today;
  const nextOn = firstOccurrenceOnOrAfter(startsOn, input.frequency, today);
  const id = randomUUID();
  await db.query(`INSERT INTO giving_recurring_gifts (id, org_id, contact_id, fund_id, amount, currency, method, frequency, starts_on, next_on)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  [id, org.id, input.contactId, input.fundId, input.amount, currency, input.method, input.frequency, startsOn, nextOn]);
  return getRecurringGift(db, org.id, id);
}

export async function pauseRecurringGift(db: Queryable, orgId: string, giftId: string, resumeOn?: string): Promise<RecurringGiftView> {
  const gift = await lockGift(db, orgId, giftId);
  if (gift.status === 'cancelled') throw new StewardError('conflict', 'The recurring gift is cancelled; it cannot be paused', { details: { recurringGiftId: giftId } });
  const today = todayUtc();
  if (resumeOn !== undefined && resumeOn <= today) throw invalid('resumeOn', 'The resume date must be after today', 'Leave resumeOn out to pause until resumed by hand.');
  // Shown while paused: the first date the gift will be recorded again, when that is known.
  const nextOn = resumeOn ? await nextOccurrenceFrom(db, gift, resumeOn) : null;
  await db.query(`UPDATE giving_recurring_gifts SET status = 'paused', paused_at = COALESCE(paused_at, now()), resume_on = $3, next_on = $4, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, giftId, resumeOn ?? null, nextOn]);
  return getRecurringGift(db, orgId, giftId);
}

/** Active again from `from` (today, or the resume date the scheduled run reached): the paused dates are skipped. */
export async function resumeGiftRow(db: Queryable, gift: RecurringGiftRow, from: string): Promise<void> {
  const nextOn = await nextOccurrenceFrom(db, gift, from);
  await db.query(`UPDATE giving_recurring_gifts SET status = 'active', paused_at = NULL, resume_on = NULL, next_on = $3, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [gift.org_id, gift.id, nextOn]);
}

export async function resumeRecurringGift(db: Queryable, orgId: string, giftId: string): Promise<RecurringGiftView> {
  const gift = await lockGift(db, orgId, giftId);
  if (gift.status === 'cancelled') throw new StewardError('conflict', 'The recurring gift is cancelled; it cannot be resumed', { details: { recurringGiftId: giftId }, hint: 'Create a new recurring gift instead.' });
  if (gift.status === 'active') throw new StewardError('conflict', 'The recurring gift is not paused', { details: { recurringGiftId: giftId, status: gift.status } });
  await resumeGiftRow(db, gift, todayUtc());
  return getRecurringGift(db, orgId, giftId);
}

export async function cancelRecurringGift(db: Queryable, orgId: string, giftId: string): Promise<RecurringGiftView> {
  const gift = await lockGift(db, orgId, giftId);
  if (gift.status === 'cancelled') throw new StewardError('conflict', 'The recurring gift is already cancelled', { details: { recurringGiftId: giftId } });
  await db.query(`UPDATE giving_recurring_gifts SET status = 'cancelled', cancelled_at = now(), next_on = NULL, resume_on = NULL, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, giftId]);
  return getRecurringGift(db, orgId, giftId);
}

export interface RecurringGiftChanges {
  amount?: number;
  fundId?: string;
  method?: RecurringMethod;
}

/** New terms for the occurrences not yet recorded; those already recorded keep theirs (a committed batch is never edited). */
export async function updateRecurringGift(db: Queryable, orgId: string, giftId: string, changes: RecurringGiftChanges): Promise<RecurringGiftView> {
  const gift = await lockGift(db, orgId, giftId);
  if (gift.status === 'cancelled') throw new StewardError('conflict', 'The recurring gift is cancelled; it cannot be changed', { details: { recurringGiftId: giftId }, hint: 'Set up a new recurring gift instead.' });
  if (changes.fundId) await requireActiveFund(db, orgId, changes.fundId);
  await db.query(`UPDATE giving_recurring_gifts SET amount = COALESCE($3, amount), fund_id = COALESCE($4, fund_id), method = COALESCE($5, method), updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, giftId, changes.amount ?? null, changes.fundId ?? null, changes.method ?? null]);
  return getRecurringGift(db, orgId, giftId);
}

export interface RecurringGiftFilters {
  limit: number;
  cursor?: string;
  status?: 'active' | 'paused' | 'cancelled';
  contactId?: string;
  fundId?: string;
}

export async function listRecurringGifts(db: Queryable, orgId: string, filters: RecurringGiftFilters): Promise<{ gifts: RecurringGiftView[]; nextCursor: string | null }> {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    values.push(value);
    clauses.push(clause.replace('?', `$${values.length + 3}`));
  };
  if (filters.status) add('status = ?', filters.status);
  if (filters.contactId) add('contact_id = ?', filters.contactId);
  if (filters.fundId) add('fund_id = ?', filters.fundId);
  const page = await listPage<{ id: string; created_at: Date }>(db, {
    table: 'giving_recurring_gifts', orgId, limit: filters.limit, cursor: filters.cursor, includeDeleted: true,
    where: clauses.length ? clauses.join(' AND ') : undefined, values,
  });
  if (page.rows.length === 0) return { gifts: [], nextCursor: page.nextCursor };
  const rows = await queryRows<GiftViewRow>(db, `${GIFT_SELECT} WHERE g.org_id = $1 AND g.id = ANY($2::uuid[])`, [orgId, page.rows.map((row) => row.id)]);
  const byId = new Map(rows.map((row) => [row.id, toView(row)]));
  return { gifts: page.rows.map((row) => byId.get(row.id)!), nextCursor: page.nextCursor };
}
