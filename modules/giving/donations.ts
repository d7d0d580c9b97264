import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError, type ErrorIssue } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { calendarDate, cursorInput, decodeCursor, encodeCursor, notFound, type RowOf } from '../kit';
import { displayNameOf, requireContact } from '../people/api';
import type { OrgSettings } from '../tool';
import { COMMITTED_DONATION_SQL, lockOpenBatch } from './batches';
import { defaultFund, requireFund, type FundView } from './funds';
import type { GivingBatch } from './models/batches';
import type { GivingDonation } from './models/donations';
import { currencyCode, minorUnits, nonNegativeMinorUnits, positiveMinorUnits, requireCurrency, signedMinorUnits } from './money';
import { requireOpenPledge } from './pledges';
import { todayUtc } from '../metrics';

export const DONATION_METHODS = ['cash', 'cheque', 'card', 'bank_transfer', 'standing_order', 'online'] as const;
export type DonationMethod = (typeof DONATION_METHODS)[number];
export const GIFT_AID_STATUSES = ['not_claimable', 'unclaimed', 'in_claim', 'claimed', 'rejected'] as const;

/** Most funds one gift is split across. */
export const MAX_DESIGNATIONS = 20;

export const isoDate = calendarDate();

export const designationInput = z.object({
  fundId: z.uuid(),
  amount: positiveMinorUnits.describe('Minor units of the gift given to this fund'),
}).strict();

/** One gift as every recording tool takes it (record, add to a batch); the import builds the same from CSV rows. */
export const donationInputShape = {
  contactId: z.uuid().nullable().optional().describe('The giver (a contact); null or left out for an anonymous gift'),
  amount: positiveMinorUnits.describe('Whole minor units (pence, cents): £12.50 is 1250'),
  currency: currencyCode.optional().describe("Must be the organisation's currency (giving_get_settings); left out, it is"),
  fee: nonNegativeMinorUnits.optional().describe('Processing fee in minor units, kept from the gift by the card or online provider'),
  method: z.enum(DONATION_METHODS),
  receivedOn: isoDate.describe('When the gift was received (YYYY-MM-DD); not in the future'),
  fundId: z.uuid().optional().describe('The fund the whole gift goes to; left out with no designations, the default fund'),
  designations: z.array(designationInput).min(1).max(MAX_DESIGNATIONS).optional()
    .describe('A split across funds; the parts must add up to amount exactly. Use instead of fundId'),
  externalId: z.string().trim().min(1).max(200).optional().describe('The gift\'s id at its source (card processor, bank); one donation per source and id'),
  pledgeId: z.uuid().optional().describe("An open pledge this gift pays towards; the gift must be wholly to the pledge's campaign fund unless the pledge spans funds"),
  note: z.string().trim().max(1000).optional(),
};
export const donationInput = z.object(donationInputShape).strict();
export type DonationInput = z.output<typeof donationInput>;

export const donationSchema = z.object({
  id: z.uuid(),
  batchId: z.uuid(),
  batchStatus: z.enum(['in_progress', 'committed']),
  contactId: z.uuid().nullable(),
  giverName: z.string().nullable(),
  amount: z.number().int().describe('Minor units; negative only for an adjusting entry'),
  currency: z.string(),
  fee: z.number().int(),
  method: z.enum(DONATION_METHODS),
  receivedOn: z.string(),
  source: z.string(),
  externalId: z.string().nullable(),
  designations: z.array(z.object({ fundId: z.uuid(), fundName: z.string(), amount: z.number().int() }).strict()),
  refunded: z.number().int().describe('Minor units refunded so far'),
  giftAidStatus: z.enum(GIFT_AID_STATUSES),
  isGasds: z.boolean(),
  pledgeId: z.uuid().nullable(),
  recurringGiftId: z.uuid().nullable(),
  adjustsDonationId: z.uuid().nullable(),
  note: z.string().nullable(),
  createdAt: z.string(),
}).strict();
export type DonationView = z.infer<typeof donationSchema>;

/** A gift checked against the organisation's data, ready to insert. */
export interface ResolvedDonation {
  contactId: string | null;
  amount: number;
  currency: string;
  fee: number;
  method: DonationMethod;
  receivedOn: string;
  designations: Array<{ fundId: string; amount: number }>;
  giftAidStatus: 'unclaimed' | 'not_claimable';
  source: string;
  externalId: string | null;
  pledgeId: string | null;
  adjustsDonationId: string | null;
  note: string | null;
}

function invalid(path: string, message: string, hint?: string): StewardError {
  return new StewardError('validation_failed', `${path}: ${message}`, { issues: [{ path, message }], ...(hint ? { hint } : {}) });
}


/**
 * The Gift Aid status a new gift starts with: 'unclaimed' when it could go on a claim (a known
 * giver, not a small-donations entry, a positive amount and at least one Gift Aid eligible fund),
 * else 'not_claimable'. Declarations are checked at claim time, not here: one may be recorded
 * later and cover gifts up to four years back.
 */
export function initialGiftAidStatus(gift: { contactId: string | null; amount: number; isGasds: boolean; funds: ReadonlyArray<Pick<FundView, 'giftAidEligible'>> }): 'unclaimed' | 'not_claimable' {
  return gift.contactId && !gift.isGasds && gift.amount > 0 && gift.funds.some((fund) => fund.giftAidEligible) ? 'unclaimed' : 'not_claimable';
}

/**
 * Checks one gift against the organisation's data: currency, fee, date, giver, funds and how the
 * gift is split, pledge. `path` prefixes every field named in an error (e.g. "donations.3").
 */
export async function resolveDonation(
  db: Queryable, org: OrgSettings, currency: string, input: DonationInput, options: { source: string; path?: string },
): Promise<ResolvedDonation> {
  const at = (field: string) => (options.path ? `${options.path}.${field}` : field);
  requireCurrency(input.currency, currency, at('currency'));
  const fee = input.fee ?? 0;
  if (fee > input.amount) throw invalid(at('fee'), 'the fee cannot be more than the gift');
  if (input.receivedOn > todayUtc()) throw invalid(at('receivedOn'), 'a gift cannot be received in the future');
  if (input.contactId) await requireContactAt(db, org.id, input.contactId, at('contactId'));
  if (input.fundId && input.designations) throw invalid(at('fundId'), 'give fundId or designations, not both');
  const designations = input.designations ?? [{ fundId: input.fundId ?? (await defaultFund(db, org.id)).id, amount: input.amount }];
  const funds = await checkDesignations(db, org.id, designations, input.amount, at);
  if (input.pledgeId) await requireOpenPledge(db, org.id, input.pledgeId, designations.map((d) => d.fundId), at('pledgeId'));
  const contactId = input.contactId ?? null;
  return {
    contactId, amount: input.amount, currency, fee, method: input.method, receivedOn: input.receivedOn, designations,
    giftAidStatus: initialGiftAidStatus({ contactId, amount: input.amount, isGasds: false, funds }),
    source: options.source, externalId: input.externalId ?? null, pledgeId: input.pledgeId ?? null, adjustsDonationId: null, note: input.note ?? null,
  };
}

async function requireContactAt(db: Queryable, orgId: string, contactId: string, path: string): Promise<void> {
  await namingField(path, () => requireContact(db, orgId, contactId));
}

/** A not_found from a lookup, said of the input field that named the id (another organisation's id reads as missing). */
async function namingField<T>(path: string, lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof StewardError && error.code === 'not_found' && !error.issues) {
      throw new StewardError('not_found', `${path}: ${error.message}`, { ...(error.hint ? { hint: error.hint } : {}), issues: [{ path, message: 'not found' }] });
    }
    throw error;
  }
}

/** The parts name distinct active funds and add up to `amount` exactly (checked in integers). */
export async function checkDesignations(
  db: Queryable, orgId: string, designations: ReadonlyArray<{ fundId: string; amount: number }>, amount: number, at: (field: string) => string,
): Promise<FundView[]> {
  const seen = new Set<string>();
  const funds: FundView[] = [];
  for (const [index, part] of designations.entries()) {
    if (seen.has(part.fundId)) throw invalid(at(`designations.${index}.fundId`), 'each fund may appear once');
    seen.add(part.fundId);
    const field = at(designations.length === 1 ? 'fundId' : `designations.${index}.fundId`);
    funds.push(await namingField(field, () => requireFund(db, orgId, part.fundId, { active: true, field })));
  }
  const sum = designations.reduce((total, part) => total + part.amount, 0);
  if (sum !== amount) {
    throw invalid(at('designations'), `the parts add up to ${sum}, not the amount ${amount}`, 'Designations must add up to the amount exactly, in minor units.');
  }
  return funds;
}

/**
 * Inserts one checked gift into a batch the caller holds (lockOpenBatch). A gift whose (source,
 * external id) is already recorded is not inserted again: concurrent inserts of one id meet on the
 * unique index, the later waits for the earlier and finds it. The existing gift is returned as a
 * duplicate; one that differs in amount, giver or date is a conflict, never silently merged.
 */
export async function insertDonation(
  db: Queryable, orgId: string, batchId: string, gift: ResolvedDonation, userId: string | null,
): Promise<{ id: string; duplicate: boolean }> {
  const id = randomUUID();
  const inserted = await queryOne<{ id: string }>(db, `INSERT INTO giving_donations (id, org_id, batch_id, contact_id, amount, currency, fee, method,
      received_on, source, external_id, pledge_id, adjusts_donation_id, gift_aid_status, note, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
    ON CONFLICT (org_id, source, external_id) WHERE external_id IS NOT NULL DO NOTHING RETURNING id`, [
    id, orgId, batchId, gift.contactId, gift.amount, gift.currency, gift.fee, gift.method, gift.receivedOn, gift.source, gift.externalId,
    gift.pledgeId, gift.adjustsDonationId, gift.giftAidStatus, gift.note, userId,
  ]);
  if (!inserted) return { id: await sameExternalGift(db, orgId, gift), duplicate: true };
  for (const part of gift.designations) {
    await db.query('INSERT INTO giving_designations (org_id, donation_id, fund_id, amount) VALUES ($1, $2, $3, $4)', [orgId, id, part.fundId, part.amount]);
  }
  return { id, duplicate: false };
}

async function sameExternalGift(db: Queryable, orgId: string, gift: ResolvedDonation): Promise<string> {
  const existing = await queryOne<{ id: string; amount: number; contact_id: string | null; received_on: string }>(db,
    'SELECT id, amount, contact_id, received_on FROM giving_donations WHERE org_id = $1 AND source = $2 AND external_id = $3', [orgId, gift.source, gift.externalId]);
  if (!existing) throw new StewardError('conflict', 'The gift was recorded and removed at the same time; call again');
  if (minorUnits(existing.amount) !== gift.amount || existing.contact_id !== gift.contactId || existing.received_on !== gift.receivedOn) {
    throw new StewardError('conflict', `A different gift with external id "${gift.externalId}" from ${gift.source} is already recorded`, {
      hint: 'giving_get_donation shows it; an external id names one gift at its source.', details: { donationId: existing.id },
    });
  }
  return existing.id;
}

/**
 * Records several gifts into one open batch, all or nothing: every gift is checked first (an
 * error names its index), then all are inserted under the batch's share lock.
 */
export async function recordDonations(
  db: Queryable, org: OrgSettings, batchId: string, gifts: readonly DonationInput[], options: { source: string; userId: string | null; path?: string },
): Promise<Array<{ id: string; duplicate: boolean }>> {
  const batch = await lockOpenBatch(db, org.id, batchId);
  const resolved: ResolvedDonation[] = [];
  for (const [index, gift] of gifts.entries()) {
    resolved.push(await resolveDonation(db, org, batch.currency, gift, { source: options.source, path: options.path ? `${options.path}.${index}` : undefined }));
  }
  const externalIds = new Map<string, number>();
  for (const [index, gift] of resolved.entries()) {
    if (!gift.externalId) continue;
    const earlier = externalIds.get(gift.externalId);
    if (earlier !== undefined) throw invalid(`${options.path ?? 'donations'}.${index}.externalId`, `repeats the external id of item ${earlier}`);
    externalIds.set(gift.externalId, index);
  }
  const out: Array<{ id: string; duplicate: boolean }> = [];
  for (const gift of resolved) out.push(await insertDonation(db, org.id, batchId, gift, options.userId));
  return out;
}

/** Removes a gift from an open batch (a mistake caught before commit); a committed gift is corrected with an adjusting entry instead. */
export async function removeBatchDonation(db: Queryable, orgId: string, donationId: string): Promise<{ donationId: string; batchId: string }> {
  const row = await queryOne<{ batch_id: string }>(db, 'SELECT batch_id FROM giving_donations WHERE org_id = $1 AND id = $2', [orgId, donationId]);
  if (!row) throw notFound('Donation', donationId, 'giving_list_donations lists donations.');
  await lockOpenBatch(db, orgId, row.batch_id);
  const adjusted = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM giving_donations WHERE org_id = $1 AND adjusts_donation_id = $2', [orgId, donationId]);
  if (adjusted?.n) throw new StewardError('conflict', 'Adjusting entries refer to this gift; remove them first');
  await db.query('DELETE FROM giving_designations WHERE org_id = $1 AND donation_id = $2', [orgId, donationId]);
  await db.query('DELETE FROM giving_donations WHERE org_id = $1 AND id = $2', [orgId, donationId]);
  return { donationId, batchId: row.batch_id };
}

// ---------------------------------------------------------------- adjusting entries

export interface AdjustmentInput {
  donationId: string;
  amount: number;
  designations?: Array<{ fundId: string; amount: number }>;
  reason: string;
  receivedOn?: string;
}

/**
 * A correction to a committed gift: a new donation in an open batch that names the gift it
 * adjusts, with a signed amount split across the gift's funds. After it, no fund of the gift may
 * hold less than nothing, nor less than has been refunded from it.
 */
export async function resolveAdjustment(db: Queryable, org: OrgSettings, currency: string, input: AdjustmentInput): Promise<ResolvedDonation> {
  // Locked like a refund locks it, so a refund and an adjustment of one gift take turns.
  const original = await queryOne<{ id: string; contact_id: string | null; method: DonationMethod; currency: string; adjusts_donation_id: string | null; committed: boolean }>(db,
    `SELECT d.id, d.contact_id, d.method, d.currency, d.adjusts_donation_id, ${COMMITTED_DONATION_SQL} AS committed
     FROM giving_donations d WHERE d.org_id = $1 AND d.id = $2 FOR UPDATE OF d`, [org.id, input.donationId]);
  if (!original) throw notFound('Donation', input.donationId, 'giving_list_donations lists donations.');
  if (original.adjusts_donation_id) throw invalid('donationId', 'adjust the original gift, not an adjusting entry', `Adjust ${original.adjusts_donation_id}.`);
  if (!original.committed) {
    throw invalid('donationId', 'the gift is in an uncommitted batch', 'Remove it (giving_remove_batch_donation) and record it again instead.');
  }
  const standing = await queryRows<{ fund_id: string; amount: string; refunded: string }>(db, `SELECT g.fund_id, sum(g.amount)::text AS amount,
      COALESCE((SELECT sum(r.amount) FROM giving_refunds r WHERE r.donation_id = $2 AND r.fund_id = g.fund_id), 0)::text AS refunded
    FROM giving_designations g JOIN giving_donations d ON d.id = g.donation_id
    WHERE g.org_id = $1 AND (d.id = $2 OR d.adjusts_donation_id = $2) GROUP BY g.fund_id`, [org.id, input.donationId]);
  const byFund = new Map(standing.map((row) => [row.fund_id, { amount: minorUnits(row.amount), refunded: minorUnits(row.refunded) }]));
  let designations = input.designations;
  if (!designations) {
    if (byFund.size !== 1) throw invalid('designations', 'the gift is split across funds: say how the adjustment splits');
    designations = [{ fundId: [...byFund.keys()][0], amount: input.amount }];
  }
  const seen = new Set<string>();
  for (const [index, part] of designations.entries()) {
    if (seen.has(part.fundId)) throw invalid(`designations.${index}.fundId`, 'each fund may appear once');
    seen.add(part.fundId);
    await requireFund(db, org.id, part.fundId, { field: `designations.${index}.fundId` });
    const now = byFund.get(part.fundId) ?? { amount: 0, refunded: 0 };
    if (now.amount + part.amount < now.refunded) {
      throw invalid(`designations.${index}.amount`, `would leave ${now.amount + part.amount} in this fund, less than the ${now.refunded} already refunded or below zero`);
    }
  }
  const sum = designations.reduce((total, part) => total + part.amount, 0);
  if (sum !== input.amount) throw invalid('designations', `the parts add up to ${sum}, not the amount ${input.amount}`);
  const receivedOn = input.receivedOn ?? todayUtc();
  if (receivedOn > todayUtc()) throw invalid('receivedOn', 'cannot be in the future');
  return {
    contactId: original.contact_id, amount: input.amount, currency, fee: 0, method: original.method, receivedOn, designations,
    giftAidStatus: 'not_claimable', source: 'adjustment', externalId: null, pledgeId: null, adjustsDonationId: original.id, note: input.reason,
  };
}

/** Signed parts of an adjustment (a part may reduce one fund and add to another). */
export const adjustmentDesignationInput = z.object({ fundId: z.uuid(), amount: signedMinorUnits });

// ---------------------------------------------------------------- reading

type DonationRow = Pick<RowOf<GivingDonation>, 'id' | 'batch_id' | 'contact_id' | 'amount' | 'currency' | 'fee' | 'method' | 'received_on' | 'source'
  | 'external_id' | 'gift_aid_status' | 'is_gasds' | 'pledge_id' | 'recurring_gift_id' | 'adjusts_donation_id' | 'note' | 'created_at'> & {
  batch_status: RowOf<GivingBatch>['status'];
  page_at: string;
  preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null; contact_live: boolean | null;
};

const DONATION_SELECT = `SELECT d.id, d.batch_id, b.status AS batch_status, d.contact_id, d.amount, d.currency, d.fee, d.method, d.received_on,
    d.source, d.external_id, d.gift_aid_status, d.is_gasds, d.pledge_id, d.recurring_gift_id, d.adjusts_donation_id, d.note, d.created_at,
    to_json(d.created_at) #>> '{}' AS page_at,
    c.preferred_name, c.first_name, c.last_name, c.email, (c.id IS NOT NULL) AS contact_live
  FROM giving_donations d
  JOIN giving_batches b ON b.id = d.batch_id
  LEFT JOIN people_directory c ON c.id = d.contact_id`;

async function donationViews(db: Queryable, orgId: string, rows: DonationRow[]): Promise<DonationView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const parts = await queryRows<{ donation_id: string; fund_id: string; name: string; amount: number }>(db, `SELECT g.donation_id, g.fund_id, f.name, g.amount
    FROM giving_designations g JOIN giving_funds f ON f.id = g.fund_id WHERE g.org_id = $1 AND g.donation_id = ANY($2::uuid[]) ORDER BY lower(f.name)`, [orgId, ids]);
  const refunds = await queryRows<{ donation_id: string; refunded: string }>(db, `SELECT donation_id, sum(amount)::text AS refunded FROM giving_refunds
    WHERE org_id = $1 AND donation_id = ANY($2::uuid[]) GROUP BY donation_id`, [orgId, ids]);
  const refunded = new Map(refunds.map((row) => [row.donation_id, minorUnits(row.refunded)]));
  return rows.map((row) => ({
    id: row.id, batchId: row.batch_id, batchStatus: row.batch_status, contactId: row.contact_id,
    giverName: row.contact_id && row.contact_live ? displayNameOf(row) : null,
    amount: minorUnits(row.amount), currency: row.currency, fee: minorUnits(row.fee), method: row.method, receivedOn: row.received_on,
    source: row.source, externalId: row.external_id,
    designations: parts.filter((part) => part.donation_id === row.id).map((part) => ({ fundId: part.fund_id, fundName: part.name, amount: minorUnits(part.amount) })),
    refunded: refunded.get(row.id) ?? 0, giftAidStatus: row.gift_aid_status, isGasds: row.is_gasds, pledgeId: row.pledge_id,
    recurringGiftId: row.recurring_gift_id, adjustsDonationId: row.adjusts_donation_id, note: row.note, createdAt: row.created_at.toISOString(),
  }));
}

export async function getDonation(db: Queryable, orgId: string, donationId: string): Promise<DonationView> {
  const rows = await queryRows<DonationRow>(db, `${DONATION_SELECT} WHERE d.org_id = $1 AND d.id = $2`, [orgId, donationId]);
  if (rows.length === 0) throw notFound('Donation', donationId, 'giving_list_donations lists donations.');
  return (await donationViews(db, orgId, rows))[0];
}

export async function getDonations(db: Queryable, orgId: string, donationIds: readonly string[]): Promise<DonationView[]> {
  const rows = await queryRows<DonationRow>(db, `${DONATION_SELECT} WHERE d.org_id = $1 AND d.id = ANY($2::uuid[])`, [orgId, donationIds]);
  const views = new Map((await donationViews(db, orgId, rows)).map((view) => [view.id, view]));
  return donationIds.map((id) => views.get(id)!).filter(Boolean);
}

/** The adjusting entries made to a gift, oldest first. */
export async function adjustmentIdsOf(db: Queryable, orgId: string, donationId: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, 'SELECT id FROM giving_donations WHERE org_id = $1 AND adjusts_donation_id = $2 ORDER BY created_at, id', [orgId, donationId]);
  return rows.map((row) => row.id);
}

export const donationFilterShape = {
  fundId: z.uuid().optional().describe('Only gifts with a part in this fund'),
  contactId: z.uuid().optional().describe("Only this giver's gifts"),
  from: isoDate.optional().describe('Received on or after (YYYY-MM-DD)'),
  to: isoDate.optional().describe('Received on or before (YYYY-MM-DD)'),
  method: z.enum(DONATION_METHODS).optional(),
  batchId: z.uuid().optional().describe('Only this batch; the only way to list gifts of an uncommitted batch'),
  giftAidStatus: z.enum(GIFT_AID_STATUSES).optional(),
  ...cursorInput,
};
export type DonationFilters = z.output<z.ZodObject<typeof donationFilterShape>>;

/**
 * A page of donations, newest recorded first. Only committed gifts count as given, so only they are
 * listed, unless a batch is named (then that batch's gifts, committed or not).
 */
export async function listDonations(db: Queryable, orgId: string, filters: DonationFilters): Promise<{ donations: DonationView[]; nextCursor: string | null }> {
  if (filters.from && filters.to && filters.from > filters.to) throw invalid('to', 'must not be before from');
  const position = filters.cursor ? decodeCursor(filters.cursor) : null;
  const clauses = ['d.org_id = $1'];
  const values: unknown[] = [orgId];
  const add = (sql: (n: string) => string, value: unknown) => {
    values.push(value);
    clauses.push(sql(`$${values.length}`));
  };
  if (filters.batchId) add((n) => `d.batch_id = ${n}`, filters.batchId);
  else clauses.push("b.status = 'committed'");
  if (filters.fundId) add((n) => `EXISTS (SELECT 1 FROM giving_designations g WHERE g.donation_id = d.id AND g.fund_id = ${n})`, filters.fundId);
  if (filters.contactId) add((n) => `d.contact_id = ${n}`, filters.contactId);
  if (filters.from) add((n) => `d.received_on >= ${n}::date`, filters.from);
  if (filters.to) add((n) => `d.received_on <= ${n}::date`, filters.to);
  if (filters.method) add((n) => `d.method = ${n}`, filters.method);
  if (filters.giftAidStatus) add((n) => `d.gift_aid_status = ${n}`, filters.giftAidStatus);
  if (position) {
    values.push(position.at, position.id);
    clauses.push(`(d.created_at, d.id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  values.push(filters.limit + 1);
  const rows = await queryRows<DonationRow>(db, `${DONATION_SELECT} WHERE ${clauses.join(' AND ')}
    ORDER BY d.created_at DESC, d.id DESC LIMIT $${values.length}`, values);
  const page = rows.slice(0, filters.limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > filters.limit && last ? encodeCursor({ at: last.page_at, id: last.id }) : null;
  return { donations: await donationViews(db, orgId, page), nextCursor };
}

/** Row-level issues for an error (used by bulk and import callers). */
export function issuesOf(error: unknown): ErrorIssue[] {
  return error instanceof StewardError ? (error.issues ?? [{ path: '', message: error.message }]) : [];
}
