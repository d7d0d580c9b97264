import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listPage, notFound, type RowOf } from '../kit';
import { todayUtc } from '../metrics';
import type { GivingDonation } from './models/donations';
import type { GivingRefund } from './models/refunds';
import { minorUnits } from './money';

/**
 * Refunds: money returned against one designation (fund part) of a committed donation.
 * The refunded total of a designation never passes its amount, however many refunds run at
 * once: each refund locks the donation's row first, so refunds of one donation take turns.
 * A refund never changes the donation's Gift Aid status: a claim reads giving_refunds and
 * claims on the gross net of refunds (a claimed amount is reversed by the next claim).
 */

export const refundViewSchema = z.object({
  id: z.uuid(),
  donationId: z.uuid(),
  fundId: z.uuid(),
  fundName: z.string(),
  amount: z.number().int().describe('Minor units returned'),
  currency: z.string(),
  reason: z.string(),
  refundedOn: z.string(),
  createdByUserId: z.uuid().nullable(),
  createdAt: z.string(),
}).strict();
export type RefundView = z.infer<typeof refundViewSchema>;

/** Where a donation stands after refunds: per designation and in total. */
export const refundStandingSchema = z.object({
  donationId: z.uuid(),
  amount: z.number().int(),
  currency: z.string(),
  refunded: z.number().int(),
  refundable: z.number().int(),
  giftAidStatus: z.string(),
  designations: z.array(z.object({
    fundId: z.uuid(), amount: z.number().int(), refunded: z.number().int(), refundable: z.number().int(),
  }).strict()),
}).strict();
export type RefundStanding = z.infer<typeof refundStandingSchema>;

export interface RefundRequest {
  donationId: string;
  /** The designation to refund; may be left out when the donation has one designation, or to refund every designation in full. */
  fundId?: string;
  /** Minor units; left out, everything still refundable on the chosen designation(s). */
  amount?: number;
  reason: string;
  refundedOn?: string;
}

type RefundRow = Pick<RowOf<GivingRefund>, 'id' | 'donation_id' | 'fund_id' | 'amount' | 'reason' | 'refunded_on' | 'created_by_user_id' | 'created_at'>
  & Pick<RowOf<GivingDonation>, 'currency'> & { fund_name: string };

const REFUND_COLUMNS = `r.id, r.donation_id, r.fund_id, f.name AS fund_name, r.amount, d.currency, r.reason, r.refunded_on,
  r.created_by_user_id, r.created_at`;
const REFUND_FROM = `giving_refunds r JOIN giving_donations d ON d.id = r.donation_id JOIN giving_funds f ON f.id = r.fund_id`;

function toRefundView(row: RefundRow): RefundView {
  return {
    id: row.id, donationId: row.donation_id, fundId: row.fund_id, fundName: row.fund_name, amount: minorUnits(row.amount),
    currency: row.currency, reason: row.reason, refundedOn: row.refunded_on, createdByUserId: row.created_by_user_id,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** A donation's refunds, oldest first (giving_get_donation shows them). */
export async function refundsOf(db: Queryable, orgId: string, donationId: string): Promise<RefundView[]> {
  const rows = await queryRows<RefundRow>(db, `SELECT ${REFUND_COLUMNS} FROM ${REFUND_FROM}
    WHERE r.org_id = $1 AND r.donation_id = $2 ORDER BY r.created_at, r.id`, [orgId, donationId]);
  return rows.map(toRefundView);
}

/** Refunded minor units per donation, for the donations named (absent ones have none). */
export async function refundedTotalsOf(db: Queryable, orgId: string, donationIds: readonly string[]): Promise<Map<string, number>> {
  if (donationIds.length === 0) return new Map();
  const rows = await queryRows<{ donation_id: string; refunded: string }>(db, `SELECT donation_id, sum(amount) AS refunded FROM giving_refunds
    WHERE org_id = $1 AND donation_id = ANY($2::uuid[]) GROUP BY donation_id`, [orgId, donationIds]);
  return new Map(rows.map((row) => [row.donation_id, minorUnits(row.refunded)]));
}

export interface RefundFilters {
  limit: number;
  cursor?: string;
  donationId?: string;
  fundId?: string;
  from?: string;
  to?: string;
}

/** The organisation's refunds, newest first, in cursor pages. */
export async function listRefunds(db: Queryable, orgId: string, filters: RefundFilters): Promise<{ refunds: RefundView[]; nextCursor: string | null }> {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    values.push(value);
    clauses.push(clause.replace('?', `$${values.length + 3}`));
  };
  if (filters.donationId) add('donation_id = ?', filters.donationId);
  if (filters.fundId) add('fund_id = ?', filters.fundId);
  if (filters.from) add('refunded_on >= ?', filters.from);
  if (filters.to) add('refunded_on <= ?', filters.to);
  const page = await listPage<{ id: string; created_at: Date }>(db, {
    table: 'giving_refunds', orgId, limit: filters.limit, cursor: filters.cursor, includeDeleted: true,
    where: clauses.length ? clauses.join(' AND ') : undefined, values,
  });
  if (page.rows.length === 0) return { refunds: [], nextCursor: page.nextCursor };
  const rows = await queryRows<RefundRow>(db, `SELECT ${REFUND_COLUMNS} FROM ${REFUND_FROM} WHERE r.org_id = $1 AND r.id = ANY($2::uuid[])`,
    [orgId, page.rows.map((row) => row.id)]);
  const byId = new Map(rows.map((row) => [row.id, toRefundView(row)]));
  return { refunds: page.rows.map((row) => byId.get(row.id)!), nextCursor: page.nextCursor };
}

interface DonationForRefund {
  id: string;
  amount: number | string;
  currency: string;
  received_on: string;
  gift_aid_status: string;
  batch_status: string;
  batch_id: string;
}

/**
 * The donation and its designations with what each has had refunded. `lock` takes the
 * donation's row lock first: every refund of one donation then runs after the last one committed.
 */
export async function refundStanding(db: Queryable, orgId: string, donationId: string, lock: boolean): Promise<{ donation: DonationForRefund; standing: RefundStanding }> {
  const donation = await queryOne<DonationForRefund>(db, `SELECT d.id, d.amount, d.currency, d.received_on, d.gift_aid_status, d.batch_id,
      b.status AS batch_status
    FROM giving_donations d JOIN giving_batches b ON b.id = d.batch_id
    WHERE d.org_id = $1 AND d.id = $2${lock ? ' FOR UPDATE OF d' : ''}`, [orgId, donationId]);
  if (!donation) throw notFound('Donation', donationId, 'giving_list_donations finds donations.');
  const parts = await queryRows<{ fund_id: string; amount: number | string; refunded: string | null }>(db, `SELECT g.fund_id, g.amount,
      (SELECT sum(r.amount) FROM giving_refunds r WHERE r.donation_id = g.donation_id AND r.fund_id = g.fund_id) AS refunded
    FROM giving_designations g WHERE g.org_id = $1 AND g.donation_id = $2 ORDER BY g.fund_id`, [orgId, donationId]);
  const designations = parts.map((part) => {
    const amount = minorUnits(part.amount);
    const refunded = minorUnits(part.refunded);
    return { fundId: part.fund_id, amount, refunded, refundable: Math.max(0, amount - refunded) };
  });
  const refunded = designations.reduce((sum, part) => sum + part.refunded, 0);
  return {
    donation,
    standing: {
      donationId, amount: minorUnits(donation.amount), currency: donation.currency, refunded,
      refundable: designations.reduce((sum, part) => sum + part.refundable, 0), giftAidStatus: donation.gift_aid_status, designations,
    },
  };
}

function invalid(field: string, message: string, hint: string, details?: Record<string, unknown>): StewardError {
  return new StewardError('validation_failed', message, { hint, issues: [{ path: field, message }], ...(details ? { details } : {}) });
}

/** The refund rows a request asks for, checked against the donation as it stands; throws the reason otherwise. */
function partsToRefund(donation: DonationForRefund, standing: RefundStanding, request: RefundRequest, today: string): Array<{ fundId: string; amount: number }> {
  if (donation.batch_status !== 'committed') {
    throw new StewardError('conflict', 'Only a donation in a committed batch can be refunded', {
      details: { donationId: donation.id, batchId: donation.batch_id, batchStatus: donation.batch_status },
      hint: 'An uncommitted donation is not counted anywhere yet: correct or remove it in its batch instead.',
    });
  }
  if (standing.amount <= 0) {
    throw invalid('donationId', 'An adjusting entry (a negative correction) cannot be refunded', 'Refund the original donation it adjusts.');
  }
  const refundedOn = request.refundedOn ?? today;
  if (refundedOn < donation.received_on) {
    throw invalid('refundedOn', `A refund cannot be dated before the gift was received (${donation.received_on})`, 'Give the date the money was returned.');
  }
  if (refundedOn > today) throw invalid('refundedOn', 'A refund cannot be dated in the future', 'Record the refund once the money has been returned.');

  let chosen = standing.designations;
  if (request.fundId) {
    chosen = standing.designations.filter((part) => part.fundId === request.fundId);
    if (chosen.length === 0) {
      throw invalid('fundId', 'The donation has no designation to that fund', 'giving_get_donation lists its designations.', { funds: standing.designations.map((part) => part.fundId) });
    }
  } else if (request.amount !== undefined && standing.designations.length > 1) {
    throw invalid('fundId', `The donation is split across ${standing.designations.length} funds: name the fund whose part is refunded`, 'Give fundId, or leave amount out to refund everything.',
      { funds: standing.designations.map((part) => part.fundId) });
  }
  const refundable = chosen.reduce((sum, part) => sum + part.refundable, 0);
  if (refundable === 0) {
    throw new StewardError('conflict', 'Nothing is left to refund: it has been refunded in full', {
      details: { donationId: donation.id, refunded: standing.refunded }, hint: 'giving_list_refunds shows the refunds made.',
    });
  }
  if (request.amount === undefined) return chosen.filter((part) => part.refundable > 0).map((part) => ({ fundId: part.fundId, amount: part.refundable }));
  const part = chosen[0];
  if (request.amount > part.amount) {
    throw invalid('amount', `The refund (${request.amount}) is more than was given to the fund (${part.amount})`, 'A refund can return at most what was paid.', { designationAmount: part.amount });
  }
  if (request.amount > part.refundable) {
    throw new StewardError('conflict', `Only ${part.refundable} of ${part.amount} is left to refund on this fund; ${part.refunded} has been refunded already`, {
      details: { donationId: donation.id, fundId: part.fundId, refundable: part.refundable, refunded: part.refunded },
      hint: 'Refund at most what is left; giving_list_refunds shows the refunds made.',
    });
  }
  return [{ fundId: part.fundId, amount: request.amount }];
}

/** Checks a refund could be made now, without locking or writing (before a proposal is created). */
export async function checkRefund(db: Queryable, orgId: string, request: RefundRequest): Promise<void> {
  const { donation, standing } = await refundStanding(db, orgId, request.donationId, false);
  partsToRefund(donation, standing, request, todayUtc());
}

/** Records a refund under the donation's row lock; the refunded total of each designation never passes its amount. */
export async function refundDonation(db: Queryable, orgId: string, request: RefundRequest, userId: string | null): Promise<{ refunds: RefundView[]; standing: RefundStanding }> {
  const { donation, standing } = await refundStanding(db, orgId, request.donationId, true);
  const parts = partsToRefund(donation, standing, request, todayUtc());
  const refundedOn = request.refundedOn ?? todayUtc();
  const ids: string[] = [];
  for (const part of parts) {
    const id = randomUUID();
    ids.push(id);
    await db.query(`INSERT INTO giving_refunds (id, org_id, donation_id, fund_id, amount, reason, refunded_on, created_by_user_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [id, orgId, request.donationId, part.fundId, part.amount, request.reason, refundedOn, userId]);
  }
  const rows = await queryRows<RefundRow>(db, `SELECT ${REFUND_COLUMNS} FROM ${REFUND_FROM} WHERE r.org_id = $1 AND r.id = ANY($2::uuid[]) ORDER BY r.fund_id`, [orgId, ids]);
  const after = await refundStanding(db, orgId, request.donationId, false);
  return { refunds: rows.map(toRefundView), standing: after.standing };
}
