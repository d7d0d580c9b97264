import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound, type RowOf } from '../../kit';
import type { OrgSettings } from '../../tool';
import type { GivingGiftAidClaim } from '../models/gift-aid-claims';
import { minorUnits } from '../money';
import { organisationCurrency } from '../settings';
import {
  figuresOf, lockTouchedClaimed, lockUnclaimed, notClaimableFigures, touchedClaimedFigures, unclaimedFigures, type CandidateWindow, type DonationFigures,
} from './candidates';
import { declarationsByContact } from './declarations';
import { donorsOf, type Donor } from './donors';
import type { ClaimSubmission } from './hmrc-provider';
import { planGasds, type GasdsYear, type PlannedGasdsLine } from './gasds';
import {
  checkClaimLine, claimGiftAid, GIFT_AID_CLAIM_YEARS, giftAidOn, LINE_PROBLEM_TEXT, normalisePostcode, taxYearOf, type LineProblem,
} from './rules';

export const CLAIM_STATUSES = ['draft', 'validated', 'submitted', 'accepted', 'rejected', 'paid', 'cancelled'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** Gift Aid is a UK tax relief: claims are in pounds sterling only. */
export async function requireSterling(db: Queryable, org: OrgSettings): Promise<'GBP'> {
  const currency = await organisationCurrency(db, org);
  if (currency !== 'GBP') {
    throw new StewardError('validation_failed', `Gift Aid is claimed from HMRC in GBP; this organisation gives in ${currency}`, {
      hint: 'Gift Aid and small-donations claims are for UK charities recording gifts in GBP.',
      issues: [{ path: 'currency', message: 'must be GBP for Gift Aid' }],
    });
  }
  return 'GBP';
}

// ---------------------------------------------------------------- building a claim

export interface ClaimOptions extends CandidateWindow {
  /** The day the claim is made: declarations and windows are judged on it. */
  asOf: string;
  maxLines: number;
  includeGasds: boolean;
}

export interface PlannedLine {
  kind: 'donation' | 'adjustment';
  donationId: string;
  contactId: string | null;
  declarationId: string | null;
  date: string;
  amount: number;
  giftAid: number;
}

export interface ExcludedGift {
  donationId: string;
  contactId: string | null;
  receivedOn: string;
  amount: number;
  problems: Array<{ code: LineProblem; message: string }>;
}

export interface ClaimPlan {
  lines: PlannedLine[];
  excluded: ExcludedGift[];
  gasdsLines: PlannedGasdsLine[];
  gasdsYears: GasdsYear[];
  /** Valid gifts left for a later claim because this one reached maxLines. */
  deferred: number;
  donors: Map<string, Donor>;
  totals: { gross: number; giftAid: number; gasds: number; gasdsTopUp: number; payable: number };
}

function adjustmentLines(claimed: Awaited<ReturnType<typeof touchedClaimedFigures>>): PlannedLine[] {
  const lines: PlannedLine[] = [];
  for (const gift of claimed) {
    const stillEligible = Math.max(0, gift.eligibleBefore - gift.refunded);
    const over = stillEligible - gift.claimed;
    if (over < 0) {
      lines.push({ kind: 'adjustment', donationId: gift.id, contactId: gift.contactId, declarationId: null, date: gift.receivedOn, amount: over, giftAid: giftAidOn(over, taxYearOf(gift.receivedOn)) });
    }
  }
  return lines;
}

function excludedGift(gift: DonationFigures, eligibleGross: number, problems: readonly LineProblem[]): ExcludedGift {
  return {
    donationId: gift.id, contactId: gift.contactId, receivedOn: gift.receivedOn, amount: eligibleGross,
    problems: problems.map((code) => ({ code, message: LINE_PROBLEM_TEXT[code] })),
  };
}

/**
 * Builds a claim: every unclaimed gift in the window checked line by line (a gift with any
 * problem is left out and listed with its reasons, so the claim is never rejected whole),
 * negative adjustments for claimed gifts refunded since, then small donations within their caps.
 * With `lock`, the rows it takes are locked first (creating a claim); without, it only reads (preview).
 */
export async function planClaim(db: Queryable, orgId: string, options: ClaimOptions, lock: boolean): Promise<ClaimPlan> {
  let candidates: DonationFigures[];
  if (lock) {
    const ids = await lockUnclaimed(db, orgId, options);
    candidates = ids.length > 0 ? await unclaimedFigures(db, orgId, options, ids) : [];
    await lockTouchedClaimed(db, orgId);
  } else {
    candidates = await unclaimedFigures(db, orgId, options);
  }
  // Never claimable, so never locked or taken: only listed with their reasons.
  // A year beyond the claim window reaches back far enough; the rules then say outside_claim_window for what is too old.
  const neverClaimable = await notClaimableFigures(db, orgId, options, options.asOf, GIFT_AID_CLAIM_YEARS);
  const contactIds = [...new Set([...candidates, ...neverClaimable].map((c) => c.contactId).filter((id): id is string => id !== null))];
  const [donors, declarations] = await Promise.all([donorsOf(db, orgId, contactIds), declarationsByContact(db, orgId, contactIds)]);

  const lines: PlannedLine[] = [];
  const excluded: ExcludedGift[] = [];
  let deferred = 0;
  for (const gift of candidates) {
    const donor = gift.contactId ? donors.get(gift.contactId) ?? null : null;
    const eligibleGross = gift.eligibleBefore - gift.refunded;
    const checked = checkClaimLine(
      { id: gift.id, date: gift.receivedOn, eligibleGross, eligibleBeforeRefunds: gift.eligibleBefore, isGasds: gift.isGasds, anonymous: gift.contactId === null },
      donor, declarations.get(gift.contactId ?? '') ?? [], options.asOf,
    );
    if (checked.declarationId === null) {
      excluded.push(excludedGift(gift, eligibleGross, checked.problems));
    } else if (lines.length >= options.maxLines) {
      deferred += 1;
    } else {
      lines.push({
        kind: 'donation', donationId: gift.id, contactId: gift.contactId, declarationId: checked.declarationId, date: gift.receivedOn,
        amount: eligibleGross, giftAid: giftAidOn(eligibleGross, taxYearOf(gift.receivedOn)),
      });
    }
  }
  for (const gift of neverClaimable) {
    const donor = gift.contactId ? donors.get(gift.contactId) ?? null : null;
    const eligibleGross = gift.eligibleBefore - gift.refunded;
    const checked = checkClaimLine(
      { id: gift.id, date: gift.receivedOn, eligibleGross, eligibleBeforeRefunds: gift.eligibleBefore, isGasds: gift.isGasds, anonymous: gift.contactId === null },
      donor, declarations.get(gift.contactId ?? '') ?? [], options.asOf,
    );
    if (checked.problems.length > 0) excluded.push(excludedGift(gift, eligibleGross, checked.problems));
  }
  excluded.sort((a, b) => a.receivedOn.localeCompare(b.receivedOn) || a.donationId.localeCompare(b.donationId));
  lines.push(...adjustmentLines(await touchedClaimedFigures(db, orgId)));
  const giftAidLines = lines.map((l) => ({ date: l.date, amount: l.amount }));
  const gasds = options.includeGasds ? await planGasds(db, orgId, options.asOf, giftAidLines, lock) : { lines: [], years: [] };
  const gross = lines.reduce((sum, l) => sum + l.amount, 0);
  const giftAid = claimGiftAid(giftAidLines);
  const gasdsTotal = gasds.lines.reduce((sum, l) => sum + l.amount, 0);
  const gasdsTopUp = claimGiftAid(gasds.lines.map((l) => ({ date: l.collectedOn, amount: l.amount })));
  return {
    lines, excluded, gasdsLines: gasds.lines, gasdsYears: gasds.years, deferred, donors,
    totals: { gross, giftAid, gasds: gasdsTotal, gasdsTopUp, payable: giftAid + gasdsTopUp },
  };
}

// ---------------------------------------------------------------- claims

/** A claim as `SELECT *` reads it, typed by its model. */
type ClaimRow = RowOf<GivingGiftAidClaim>;

export interface ClaimView {
  id: string;
  status: ClaimStatus;
  currency: string;
  claimedOn: string;
  grossTotal: number;
  giftAidTotal: number;
  gasdsTotal: number;
  gasdsTopUp: number;
  lineCount: number;
  acceptedGiftAid: number | null;
  paidAmount: number | null;
  paidOn: string | null;
  charityReference: string | null;
  providerReference: string | null;
  validatedAt: string | null;
  submittedAt: string | null;
  approvedByUserId: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
  cancelledAt: string | null;
  createdAt: string;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);
const money = (value: unknown) => (value === null || value === undefined ? null : minorUnits(value));

function toClaimView(row: ClaimRow): ClaimView {
  return {
    id: row.id, status: row.status, currency: row.currency, claimedOn: row.claimed_on, grossTotal: minorUnits(row.gross_total),
    giftAidTotal: minorUnits(row.gift_aid_total), gasdsTotal: minorUnits(row.gasds_total), gasdsTopUp: minorUnits(row.gasds_top_up),
    lineCount: row.line_count, acceptedGiftAid: money(row.accepted_gift_aid), paidAmount: money(row.paid_amount), paidOn: row.paid_on,
    charityReference: row.charity_reference, providerReference: row.provider_reference, validatedAt: iso(row.validated_at),
    submittedAt: iso(row.submitted_at), approvedByUserId: row.approved_by_user_id, decidedAt: iso(row.decided_at),
    decisionReason: row.decision_reason, cancelledAt: iso(row.cancelled_at), createdAt: row.created_at.toISOString(),
  };
}

async function claimRow(db: Queryable, orgId: string, id: string, lock = false): Promise<ClaimRow> {
  const row = await queryOne<ClaimRow>(db, `SELECT * FROM giving_gift_aid_claims WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, id]);
  if (!row) throw notFound('Gift Aid claim', id, 'giving_list_gift_aid_claims lists them.');
  return row;
}

function wrongStatus(row: ClaimRow, action: string, expected: string): StewardError {
  return new StewardError('conflict', `The claim is ${row.status}; only a ${expected} claim can be ${action}`, {
    details: { claimId: row.id, status: row.status, ...(row.provider_reference ? { providerReference: row.provider_reference } : {}) },
  });
}

/**
 * Creates a claim from what `planClaim` finds under row locks: its donations move unclaimed →
 * in_claim in the same transaction, so two claims made at once never take one gift twice (the
 * second waits for the first and then finds those gifts taken). Every line passed the rules, so
 * the claim is created validated.
 */
export async function createClaim(db: Queryable, org: OrgSettings, userId: string | null, options: ClaimOptions): Promise<{ claim: ClaimView; plan: ClaimPlan }> {
  const currency = await requireSterling(db, org);
  const plan = await planClaim(db, org.id, options, true);
  const lineCount = plan.lines.length + plan.gasdsLines.length;
  if (plan.lines.filter((l) => l.kind === 'donation').length === 0 && plan.gasdsLines.length === 0) {
    throw new StewardError('conflict', 'There is nothing to claim: no unclaimed gift passes every check', {
      hint: 'giving_preview_gift_aid_claim lists the gifts left out and why.',
      details: { excluded: plan.excluded.length, adjustments: plan.lines.length },
    });
  }
  if (plan.totals.payable < 0) {
    throw new StewardError('conflict', 'Gift Aid to reverse on refunded gifts is more than this claim would recover', {
      hint: 'Wait for more eligible gifts to claim against, or repay HMRC the over-claimed amount directly.',
      details: { totals: plan.totals },
    });
  }
  const id = randomUUID();
  await db.query(`INSERT INTO giving_gift_aid_claims (id, org_id, status, currency, claimed_on, gross_total, gift_aid_total, gasds_total, gasds_top_up,
    line_count, validated_at, created_by_user_id) VALUES ($1, $2, 'validated', $3, $4, $5, $6, $7, $8, $9, now(), $10)`,
  [id, org.id, currency, options.asOf, plan.totals.gross, plan.totals.giftAid, plan.totals.gasds, plan.totals.gasdsTopUp, lineCount, userId]);
  const all = [
    ...plan.lines.map((l) => ({ kind: l.kind, donationId: l.donationId, declarationId: l.declarationId, collectionId: null, date: l.date, amount: l.amount, giftAid: l.giftAid })),
    ...plan.gasdsLines.map((l) => ({
      kind: 'gasds' as const, donationId: null, declarationId: null, collectionId: l.collectionId, date: l.collectedOn, amount: l.amount,
      giftAid: giftAidOn(l.amount, taxYearOf(l.collectedOn)),
    })),
  ];
  await db.query(`INSERT INTO giving_gift_aid_claim_lines (id, org_id, claim_id, kind, donation_id, declaration_id, collection_id, gift_on, amount, gift_aid_amount)
    SELECT gen_random_uuid(), $1, $2, u.kind, u.donation_id, u.declaration_id, u.collection_id, u.gift_on, u.amount, u.gift_aid
    FROM unnest($3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::date[], $8::bigint[], $9::bigint[])
      AS u(kind, donation_id, declaration_id, collection_id, gift_on, amount, gift_aid)`, [
    org.id, id, all.map((l) => l.kind), all.map((l) => l.donationId), all.map((l) => l.declarationId), all.map((l) => l.collectionId),
    all.map((l) => l.date), all.map((l) => l.amount), all.map((l) => l.giftAid),
  ]);
  const taken = plan.lines.filter((l) => l.kind === 'donation').map((l) => l.donationId);
  await db.query(`UPDATE giving_donations SET gift_aid_status = 'in_claim', updated_at = now()
    WHERE org_id = $1 AND id = ANY($2::uuid[]) AND gift_aid_status = 'unclaimed'`, [org.id, taken]);
  return { claim: toClaimView(await claimRow(db, org.id, id)), plan };
}

export async function getClaim(db: Queryable, orgId: string, id: string): Promise<ClaimView> {
  return toClaimView(await claimRow(db, orgId, id));
}

export interface ClaimLineView {
  id: string;
  kind: 'donation' | 'adjustment' | 'gasds';
  donationId: string | null;
  collectionId: string | null;
  declarationId: string | null;
  giftOn: string;
  amount: number;
  giftAid: number;
  status: 'included' | 'accepted' | 'rejected' | 'withdrawn';
  rejectionReason: string | null;
}

export async function claimLines(db: Queryable, orgId: string, claimId: string, page: { limit: number; offset: number }): Promise<ClaimLineView[]> {
  const rows = await queryRows<{
    id: string; kind: ClaimLineView['kind']; donation_id: string | null; collection_id: string | null; declaration_id: string | null;
    gift_on: string; amount: number; gift_aid_amount: number; status: ClaimLineView['status']; rejection_reason: string | null;
  }>(db, `SELECT * FROM giving_gift_aid_claim_lines WHERE org_id = $1 AND claim_id = $2 ORDER BY kind, gift_on, id LIMIT $3 OFFSET $4`,
  [orgId, claimId, page.limit, page.offset]);
  return rows.map((r) => ({
    id: r.id, kind: r.kind, donationId: r.donation_id, collectionId: r.collection_id, declarationId: r.declaration_id, giftOn: r.gift_on,
    amount: minorUnits(r.amount), giftAid: minorUnits(r.gift_aid_amount), status: r.status, rejectionReason: r.rejection_reason,
  }));
}

export async function listClaims(db: Queryable, orgId: string, options: { limit: number; offset: number; status?: ClaimStatus }): Promise<ClaimView[]> {
  const rows = await queryRows<ClaimRow>(db, `SELECT * FROM giving_gift_aid_claims WHERE org_id = $1 AND ($2::text IS NULL OR status = $2)
    ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`, [orgId, options.status ?? null, options.limit, options.offset]);
  return rows.map(toClaimView);
}

/** Gives the claim's gifts back (in_claim → unclaimed) and withdraws its lines; only before it is submitted. */
export async function cancelClaim(db: Queryable, orgId: string, id: string, reason: string): Promise<ClaimView> {
  const row = await claimRow(db, orgId, id, true);
  if (row.status !== 'validated' && row.status !== 'draft') throw wrongStatus(row, 'cancelled', 'draft or validated');
  await releaseDonations(db, orgId, id, `status = 'included'`);
  await db.query(`UPDATE giving_gift_aid_claim_lines SET status = 'withdrawn' WHERE org_id = $1 AND claim_id = $2`, [orgId, id]);
  await db.query(`UPDATE giving_gift_aid_claims SET status = 'cancelled', cancelled_at = now(), decision_reason = $3, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, id, reason]);
  return getClaim(db, orgId, id);
}

/** Donations of the claim's donation lines matching `lineFilter` go back to unclaimed. */
async function releaseDonations(db: Queryable, orgId: string, claimId: string, lineFilter: string): Promise<void> {
  await db.query(`UPDATE giving_donations SET gift_aid_status = 'unclaimed', updated_at = now()
    WHERE org_id = $1 AND gift_aid_status = 'in_claim' AND id IN (
      SELECT donation_id FROM giving_gift_aid_claim_lines WHERE org_id = $1 AND claim_id = $2 AND kind = 'donation' AND ${lineFilter})`, [orgId, claimId]);
}

// ---------------------------------------------------------------- submission

export interface SubmissionCheck {
  problems: Array<{ donationId: string; problems: string[] }>;
  payload: Omit<ClaimSubmission, 'claimId' | 'charityReference'>;
}

/**
 * Checks a validated claim again just before it leaves (addresses, declarations and refunds may
 * have changed since it was made) and builds what is sent. A line that would now fail is reported,
 * and nothing is sent: HMRC rejects a whole claim for one bad line.
 */
export async function checkForSubmission(db: Queryable, orgId: string, claimId: string, asOf: string): Promise<SubmissionCheck & { claim: ClaimView }> {
  const claim = toClaimView(await claimRow(db, orgId, claimId));
  const lines = await queryRows<{ kind: string; donation_id: string | null; gift_on: string; amount: number }>(db, `
    SELECT kind, donation_id, gift_on, amount FROM giving_gift_aid_claim_lines
    WHERE org_id = $1 AND claim_id = $2 AND status = 'included' ORDER BY gift_on, id`, [orgId, claimId]);
  const donationLines = lines.filter((l) => l.kind === 'donation');
  const figures = await figuresOf(db, orgId, donationLines.map((l) => l.donation_id!));
  const contactIds = [...new Set([...figures.values()].map((f) => f.contactId).filter((id): id is string => id !== null))];
  const [donors, declarations] = await Promise.all([donorsOf(db, orgId, contactIds), declarationsByContact(db, orgId, contactIds)]);
  const problems: SubmissionCheck['problems'] = [];
  const donations: SubmissionCheck['payload']['donations'] = [];
  for (const line of donationLines) {
    const gift = figures.get(line.donation_id!);
    const donor = gift?.contactId ? donors.get(gift.contactId) ?? null : null;
    const found: string[] = [];
    if (!gift) {
      found.push('The donation no longer exists');
    } else {
      const eligibleGross = gift.eligibleBefore - gift.refunded;
      const checked = checkClaimLine(
        { id: gift.id, date: gift.receivedOn, eligibleGross, eligibleBeforeRefunds: gift.eligibleBefore, isGasds: gift.isGasds, anonymous: gift.contactId === null },
        donor, declarations.get(gift.contactId ?? '') ?? [], asOf,
      );
      found.push(...checked.problems.map((code) => LINE_PROBLEM_TEXT[code]));
      if (eligibleGross < minorUnits(line.amount)) found.push('Part of the gift was refunded or corrected after the claim was made');
    }
    if (found.length > 0 || !donor) {
      problems.push({ donationId: line.donation_id!, problems: found });
      continue;
    }
    donations.push({
      title: donor.title?.trim() || null, firstName: donor.firstName!.trim(), lastName: donor.lastName!.trim(),
      houseNameOrNumber: donor.houseNameOrNumber!.trim(), postcode: normalisePostcode(donor.postcode)!, date: line.gift_on, amount: minorUnits(line.amount),
    });
  }
  const smallByYear = new Map<string, number>();
  for (const line of lines.filter((l) => l.kind === 'gasds')) {
    const label = taxYearOf(line.gift_on).label;
    smallByYear.set(label, (smallByYear.get(label) ?? 0) + minorUnits(line.amount));
  }
  return {
    claim,
    problems,
    payload: {
      claimedOn: asOf, currency: 'GBP',
      totals: { gross: claim.grossTotal, giftAid: claim.giftAidTotal, gasds: claim.gasdsTotal, gasdsTopUp: claim.gasdsTopUp },
      donations,
      adjustments: lines.filter((l) => l.kind === 'adjustment').map((l) => ({ date: l.gift_on, amount: minorUnits(l.amount) })),
      smallDonations: [...smallByYear].map(([taxYear, amount]) => ({ taxYear, amount })),
    },
  };
}

/** Records a submission the gateway acknowledged; a repeat of the same submission changes nothing. */
export async function recordSubmission(
  db: Queryable, orgId: string, claimId: string, submission: { reference: string; charityReference: string; approvedByUserId: string | null },
): Promise<ClaimView> {
  const row = await claimRow(db, orgId, claimId, true);
  if (row.status === 'submitted' && row.provider_reference === submission.reference) return toClaimView(row);
  if (row.status !== 'validated') {
    throw new StewardError('conflict', `The claim became ${row.status} while it was being submitted; the gateway holds it as ${submission.reference}`, {
      hint: 'Reconcile with HMRC using the reference before doing anything else with this claim.',
      details: { claimId, status: row.status, providerReference: submission.reference },
    });
  }
  await db.query(`UPDATE giving_gift_aid_claims SET status = 'submitted', provider_reference = $3, charity_reference = $4, submitted_at = now(),
    approved_by_user_id = $5, updated_at = now() WHERE org_id = $1 AND id = $2`,
  [orgId, claimId, submission.reference, submission.charityReference, submission.approvedByUserId]);
  return getClaim(db, orgId, claimId);
}

// ---------------------------------------------------------------- outcome

export interface OutcomeInput {
  outcome: 'accepted' | 'rejected' | 'paid';
  reason?: string;
  rejectedLines?: Array<{ donationId: string; reason: string }>;
  paidOn?: string;
  paidAmount?: number;
}

function refuseOutcome(message: string, path: string): never {
  throw new StewardError('validation_failed', message, { issues: [{ path, message }] });
}

/**
 * HMRC's answer. Accepted: its donations become claimed, except lines it rejected, whose
 * donations go back to unclaimed. Rejected: every line is rejected and its donations go back to
 * unclaimed (adjustments are then made again on the next claim). Paid: an accepted claim's money arrived.
 */
export async function recordOutcome(db: Queryable, orgId: string, claimId: string, input: OutcomeInput): Promise<ClaimView> {
  const row = await claimRow(db, orgId, claimId, true);
  if (input.outcome === 'paid') {
    if (row.status !== 'accepted') throw wrongStatus(row, 'marked paid', 'accepted');
    if (input.paidOn === undefined || input.paidAmount === undefined) refuseOutcome('paidOn and paidAmount are required for a paid claim', 'paidAmount');
    await db.query(`UPDATE giving_gift_aid_claims SET status = 'paid', paid_on = $3, paid_amount = $4, updated_at = now() WHERE org_id = $1 AND id = $2`,
      [orgId, claimId, input.paidOn, input.paidAmount]);
    return getClaim(db, orgId, claimId);
  }
  if (row.status !== 'submitted') throw wrongStatus(row, `recorded as ${input.outcome}`, 'submitted');
  if (input.outcome === 'rejected') {
    if (!input.reason) refuseOutcome('A rejected claim needs the reason HMRC gave', 'reason');
    await releaseDonations(db, orgId, claimId, `status = 'included'`);
    await db.query(`UPDATE giving_gift_aid_claim_lines SET status = 'rejected', rejection_reason = $3 WHERE org_id = $1 AND claim_id = $2`, [orgId, claimId, input.reason]);
    await db.query(`UPDATE giving_gift_aid_claims SET status = 'rejected', decided_at = now(), decision_reason = $3, accepted_gift_aid = 0, updated_at = now()
      WHERE org_id = $1 AND id = $2`, [orgId, claimId, input.reason]);
    return getClaim(db, orgId, claimId);
  }
  const rejected = input.rejectedLines ?? [];
  if (rejected.length > 0) {
    const onClaim = await queryRows<{ donation_id: string }>(db, `SELECT donation_id FROM giving_gift_aid_claim_lines
      WHERE org_id = $1 AND claim_id = $2 AND kind = 'donation' AND donation_id = ANY($3::uuid[])`, [orgId, claimId, rejected.map((r) => r.donationId)]);
    const known = new Set(onClaim.map((r) => r.donation_id));
    rejected.forEach((line, index) => {
      if (!known.has(line.donationId)) refuseOutcome(`Donation ${line.donationId} is not a donation line of this claim`, `rejectedLines.${index}.donationId`);
    });
    await db.query(`UPDATE giving_gift_aid_claim_lines l SET status = 'rejected', rejection_reason = r.reason
      FROM unnest($3::uuid[], $4::text[]) AS r(donation_id, reason)
      WHERE l.org_id = $1 AND l.claim_id = $2 AND l.kind = 'donation' AND l.donation_id = r.donation_id`,
    [orgId, claimId, rejected.map((r) => r.donationId), rejected.map((r) => r.reason)]);
    await releaseDonations(db, orgId, claimId, `status = 'rejected'`);
  }
  await db.query(`UPDATE giving_donations SET gift_aid_status = 'claimed', updated_at = now()
    WHERE org_id = $1 AND gift_aid_status = 'in_claim' AND id IN (
      SELECT donation_id FROM giving_gift_aid_claim_lines WHERE org_id = $1 AND claim_id = $2 AND kind = 'donation' AND status = 'included')`, [orgId, claimId]);
  await db.query(`UPDATE giving_gift_aid_claim_lines SET status = 'accepted' WHERE org_id = $1 AND claim_id = $2 AND status = 'included'`, [orgId, claimId]);
  const accepted = await queryRows<{ kind: string; gift_on: string; amount: number }>(db, `SELECT kind, gift_on, amount FROM giving_gift_aid_claim_lines
    WHERE org_id = $1 AND claim_id = $2 AND status = 'accepted'`, [orgId, claimId]);
  const acceptedGiftAid = claimGiftAid(accepted.filter((l) => l.kind !== 'gasds').map((l) => ({ date: l.gift_on, amount: minorUnits(l.amount) })))
    + claimGiftAid(accepted.filter((l) => l.kind === 'gasds').map((l) => ({ date: l.gift_on, amount: minorUnits(l.amount) })));
  await db.query(`UPDATE giving_gift_aid_claims SET status = 'accepted', decided_at = now(), decision_reason = $3, accepted_gift_aid = $4, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, claimId, input.reason ?? null, acceptedGiftAid]);
  return getClaim(db, orgId, claimId);
}
