import { queryRows, type Queryable } from '../../../db/pool';
import type { RowOf } from '../../kit';
import type { GivingDonation } from '../models/donations';
import { minorUnits } from '../money';

/**
 * The donations a claim may take, read with what the Gift Aid rules need: the gross given to
 * Gift Aid eligible funds (with any committed adjusting entries), and what was refunded from
 * those funds. Only committed batches count: an uncommitted donation is in no claim.
 */
export interface DonationFigures {
  id: string;
  contactId: string | null;
  receivedOn: string;
  isGasds: boolean;
  /** Gross to eligible funds, corrections included, before refunds. */
  eligibleBefore: number;
  /** Refunded from eligible funds. */
  refunded: number;
}

type FiguresRow = Pick<RowOf<GivingDonation>, 'id' | 'contact_id' | 'received_on' | 'is_gasds'> & {
  eligible_before: string | number;
  refunded: string | number;
  claimed?: string | number | null;
};

// Committed adjusting entries, summed per donation they correct, once for the whole query (no index leads from a donation to its corrections).
const FIGURES = `
  WITH adj AS (
    SELECT a.adjusts_donation_id AS donation_id, sum(g.amount) AS eligible FROM giving_donations a
    JOIN giving_batches ab ON ab.id = a.batch_id AND ab.status = 'committed'
    JOIN giving_designations g ON g.donation_id = a.id JOIN giving_funds f ON f.id = g.fund_id
    WHERE a.org_id = $1 AND a.adjusts_donation_id IS NOT NULL AND f.gift_aid_eligible GROUP BY 1)
  SELECT d.id, d.contact_id, d.received_on, d.is_gasds,
    COALESCE(des.eligible, 0) + COALESCE(adj.eligible, 0) AS eligible_before, COALESCE(ref.eligible, 0) AS refunded
  FROM giving_donations d
  JOIN giving_batches b ON b.id = d.batch_id AND b.status = 'committed'
  LEFT JOIN LATERAL (SELECT sum(g.amount) AS eligible FROM giving_designations g JOIN giving_funds f ON f.id = g.fund_id
                     WHERE g.donation_id = d.id AND f.gift_aid_eligible) des ON true
  LEFT JOIN LATERAL (SELECT sum(r.amount) AS eligible FROM giving_refunds r JOIN giving_funds f ON f.id = r.fund_id
                     WHERE r.donation_id = d.id AND f.gift_aid_eligible) ref ON true
  LEFT JOIN adj ON adj.donation_id = d.id`;

const toFigures = (row: FiguresRow): DonationFigures => ({
  id: row.id, contactId: row.contact_id, receivedOn: row.received_on, isGasds: row.is_gasds,
  eligibleBefore: minorUnits(row.eligible_before), refunded: minorUnits(row.refunded),
});

export interface CandidateWindow {
  receivedFrom?: string;
  receivedTo: string;
}

const UNCLAIMED = `d.org_id = $1 AND d.gift_aid_status = 'unclaimed' AND d.amount > 0 AND d.received_on <= $2
  AND ($3::date IS NULL OR d.received_on >= $3)`;

/**
 * Locks the unclaimed donations in the window (in id order, so two claims being built at once
 * queue instead of deadlocking). A donation another claim took meanwhile no longer matches once
 * its lock is granted, and is skipped.
 */
export async function lockUnclaimed(db: Queryable, orgId: string, window: CandidateWindow): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, `SELECT d.id FROM giving_donations d JOIN giving_batches b ON b.id = d.batch_id AND b.status = 'committed'
    WHERE ${UNCLAIMED} ORDER BY d.id FOR UPDATE OF d`, [orgId, window.receivedTo, window.receivedFrom ?? null]);
  return rows.map((row) => row.id);
}

/** Unclaimed donations in the window (or only `ids`, already locked), oldest first. */
export async function unclaimedFigures(db: Queryable, orgId: string, window: CandidateWindow, ids?: readonly string[]): Promise<DonationFigures[]> {
  const values: unknown[] = [orgId, window.receivedTo, window.receivedFrom ?? null];
  let where = UNCLAIMED;
  if (ids) {
    values.push(ids);
    where += ' AND d.id = ANY($4::uuid[])';
  }
  const rows = await queryRows<FiguresRow>(db, `${FIGURES} WHERE ${where} ORDER BY d.received_on, d.id`, values);
  return rows.map(toFigures);
}

/**
 * Gifts recorded as never claimable (anonymous, or given only to funds that are not Gift Aid
 * eligible) in the window and young enough to have been claimed: a claim never takes them, but a
 * preview lists them with their reasons, so every gift left out is accounted for. Adjusting entries
 * are corrections of other gifts, and small donations (GASDS) are claimed under their own scheme,
 * so neither is listed.
 */
export async function notClaimableFigures(db: Queryable, orgId: string, window: CandidateWindow, asOf: string, claimYears: number): Promise<DonationFigures[]> {
  const rows = await queryRows<FiguresRow>(db, `${FIGURES}
    WHERE d.org_id = $1 AND d.gift_aid_status = 'not_claimable' AND d.amount > 0 AND NOT d.is_gasds AND d.adjusts_donation_id IS NULL
      AND d.received_on <= $2 AND ($3::date IS NULL OR d.received_on >= $3) AND d.received_on >= $4::date - make_interval(years => $5 + 1)
    ORDER BY d.received_on, d.id`, [orgId, window.receivedTo, window.receivedFrom ?? null, asOf, claimYears]);
  return rows.map(toFigures);
}

/** Figures of named donations (lines of a claim being re-checked), whatever their status. */
export async function figuresOf(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, DonationFigures>> {
  const rows = await queryRows<FiguresRow>(db, `${FIGURES} WHERE d.org_id = $1 AND d.id = ANY($2::uuid[])`, [orgId, ids]);
  return new Map(rows.map((row) => [row.id, toFigures(row)]));
}

export interface ClaimedFigures extends DonationFigures {
  /** Gross already claimed for it: its donation line and any earlier adjustments, on live claims. */
  claimed: number;
}

// Claimed gifts that were refunded or corrected since: the only ones that can need an adjustment.
const TOUCHED = `d.org_id = $1 AND d.gift_aid_status = 'claimed' AND d.id IN (
  SELECT r.donation_id FROM giving_refunds r WHERE r.org_id = $1
  UNION SELECT a.adjusts_donation_id FROM giving_donations a WHERE a.org_id = $1 AND a.adjusts_donation_id IS NOT NULL)`;

/** Locks the claimed donations that were refunded or corrected, in id order. */
export async function lockTouchedClaimed(db: Queryable, orgId: string): Promise<void> {
  await db.query(`SELECT d.id FROM giving_donations d WHERE ${TOUCHED} ORDER BY d.id FOR UPDATE`, [orgId]);
}

/** Claimed donations that were refunded or corrected, with the gross claimed for each so far. */
export async function touchedClaimedFigures(db: Queryable, orgId: string): Promise<ClaimedFigures[]> {
  const rows = await queryRows<FiguresRow>(db, `SELECT * FROM (${FIGURES} WHERE ${TOUCHED}) f,
    LATERAL (SELECT sum(l.amount) AS claimed FROM giving_gift_aid_claim_lines l
             WHERE l.donation_id = f.id AND l.kind IN ('donation', 'adjustment') AND l.status IN ('included', 'accepted')) c
    ORDER BY f.received_on, f.id`, [orgId]);
  return rows.map((row) => ({ ...toFigures(row), claimed: minorUnits(row.claimed) }));
}
