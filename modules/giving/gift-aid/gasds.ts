import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound } from '../../kit';
import { minorUnits } from '../money';
import { declarationsByContact } from './declarations';
import {
  allocateGasds, findCoveringDeclaration, gasdsAllowance, gasdsClaimDeadline, gasdsGiftProblem, GASDS_MAX_GIFT, taxYearOf, type GasdsMethod, type TaxYear,
} from './rules';

export interface GasdsCollectionView {
  id: string;
  collectedOn: string;
  taxYear: string;
  method: GasdsMethod;
  amount: number;
  giftCount: number;
  donationId: string | null;
  description: string | null;
  entries: Array<{ amount: number; quantity: number }>;
  claimDeadline: string;
  createdAt: string;
}

export interface GasdsCollectionInput {
  collectedOn: string;
  method: GasdsMethod;
  entries: Array<{ amount: number; quantity: number }>;
  donationId?: string;
  description?: string;
}

function refuse(message: string, issues: Array<{ path: string; message: string }>, hint?: string): never {
  throw new StewardError('validation_failed', message, { issues, ...(hint ? { hint } : {}) });
}

/**
 * The donation that booked a collection's money: the organisation's, committed, paid the same way
 * (cash, or by card for contactless), never on a Gift Aid claim, at least as large as the small
 * donations it holds, and not a gift a Gift Aid declaration covers (that one is claimed as Gift
 * Aid, never as a small donation). It becomes a small-donations entry, so it never goes on a
 * Gift Aid claim line.
 */
async function linkDonation(db: Queryable, orgId: string, input: { donationId: string; method: GasdsMethod }, total: number, today: string): Promise<void> {
  const { donationId } = input;
  const gift = await queryOne<{ amount: number; method: string; gift_aid_status: string; batch_status: string; is_gasds: boolean; contact_id: string | null; received_on: string }>(db, `
    SELECT d.amount, d.method, d.gift_aid_status, b.status AS batch_status, d.is_gasds, d.contact_id, d.received_on FROM giving_donations d
    JOIN giving_batches b ON b.id = d.batch_id WHERE d.org_id = $1 AND d.id = $2 FOR UPDATE OF d`, [orgId, donationId]);
  if (!gift) throw notFound('Donation', donationId);
  const problems: string[] = [];
  if (gift.batch_status !== 'committed') problems.push('is in a batch not yet committed');
  if (gift.method !== (input.method === 'cash' ? 'cash' : 'card')) problems.push(`was not paid ${input.method === 'cash' ? 'in cash' : 'by card (contactless)'}`);
  if (gift.gift_aid_status === 'in_claim' || gift.gift_aid_status === 'claimed') problems.push('is on a Gift Aid claim');
  if (gift.is_gasds) problems.push('already belongs to a small-donations collection');
  if (minorUnits(gift.amount) < total) problems.push(`is ${minorUnits(gift.amount)}, less than the collection's ${total}`);
  if (gift.contact_id) {
    const declarations = (await declarationsByContact(db, orgId, [gift.contact_id])).get(gift.contact_id) ?? [];
    if ('declarationId' in findCoveringDeclaration(declarations, { id: donationId, date: gift.received_on }, today)) {
      problems.push('is covered by a Gift Aid declaration (claim it as Gift Aid instead)');
    }
  }
  if (problems.length > 0) refuse(`Donation ${donationId} cannot hold this collection: it ${problems.join(', ')}`, [{ path: 'donationId', message: problems.join('; ') }]);
  await db.query(`UPDATE giving_donations SET is_gasds = true, gift_aid_status = 'not_claimable', updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, donationId]);
}

export async function recordGasdsCollection(
  db: Queryable, orgId: string, userId: string | null, input: GasdsCollectionInput, today: string,
): Promise<GasdsCollectionView> {
  const issues: Array<{ path: string; message: string }> = [];
  if (input.collectedOn > today) issues.push({ path: 'collectedOn', message: 'must not be in the future' });
  if (today > gasdsClaimDeadline(input.collectedOn)) {
    issues.push({ path: 'collectedOn', message: `small donations of ${taxYearOf(input.collectedOn).label} could be claimed only until ${gasdsClaimDeadline(input.collectedOn)}` });
  }
  input.entries.forEach((entry, index) => {
    const problem = gasdsGiftProblem(entry.amount, input.method);
    if (problem) issues.push({ path: `entries.${index}.amount`, message: problem });
  });
  if (issues.length > 0) {
    refuse(`The collection is not a small-donations collection: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues,
      `Each small donation is at most ${GASDS_MAX_GIFT} pence, cash or contactless; record larger gifts as donations with a Gift Aid declaration.`);
  }
  const amount = input.entries.reduce((sum, entry) => sum + entry.amount * entry.quantity, 0);
  const giftCount = input.entries.reduce((sum, entry) => sum + entry.quantity, 0);
  if (!Number.isSafeInteger(amount) || amount > 100_000_000_000) refuse('The collection total is too large', [{ path: 'entries', message: 'total too large' }]);
  if (input.donationId) await linkDonation(db, orgId, { donationId: input.donationId, method: input.method }, amount, today);
  const id = randomUUID();
  await db.query(`INSERT INTO giving_gasds_collections (id, org_id, collected_on, method, amount, gift_count, donation_id, description, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [id, orgId, input.collectedOn, input.method, amount, giftCount, input.donationId ?? null, input.description ?? null, userId]);
  await db.query(`INSERT INTO giving_gasds_entries (id, org_id, collection_id, amount, quantity)
    SELECT gen_random_uuid(), $1, $2, e.amount, e.quantity FROM unnest($3::bigint[], $4::int[]) AS e(amount, quantity)`,
  [orgId, id, input.entries.map((e) => e.amount), input.entries.map((e) => e.quantity)]);
  return getGasdsCollection(db, orgId, id);
}

export async function getGasdsCollection(db: Queryable, orgId: string, id: string): Promise<GasdsCollectionView> {
  const row = await queryOne<{ id: string; collected_on: string; method: GasdsMethod; amount: number; gift_count: number; donation_id: string | null; description: string | null; created_at: Date }>(db,
    'SELECT * FROM giving_gasds_collections WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!row) throw notFound('Small-donations collection', id);
  const entries = await queryRows<{ amount: number; quantity: number }>(db,
    'SELECT amount, quantity FROM giving_gasds_entries WHERE org_id = $1 AND collection_id = $2 ORDER BY amount DESC', [orgId, id]);
  return {
    id: row.id, collectedOn: row.collected_on, taxYear: taxYearOf(row.collected_on).label, method: row.method, amount: minorUnits(row.amount),
    giftCount: row.gift_count, donationId: row.donation_id, description: row.description,
    entries: entries.map((e) => ({ amount: minorUnits(e.amount), quantity: e.quantity })),
    claimDeadline: gasdsClaimDeadline(row.collected_on), createdAt: row.created_at.toISOString(),
  };
}

export interface PlannedGasdsLine {
  collectionId: string;
  collectedOn: string;
  amount: number;
}

export interface GasdsYear {
  taxYear: string;
  unclaimed: number;
  giftAidGross: number;
  alreadyClaimed: number;
  allowance: number;
  claiming: number;
}

/**
 * The small donations this claim may take, tax year by tax year: the lower of the yearly limit
 * and 10 × the Gift Aid donations claimed for that year (on live claims and on this one), less
 * what earlier claims took; collections past their 2-year window are left out. With `lock`,
 * the organisation's collections are locked first, so two claims built at once take turns.
 */
export async function planGasds(
  db: Queryable, orgId: string, asOf: string, giftAidLines: ReadonlyArray<{ date: string; amount: number }>, lock: boolean,
): Promise<{ lines: PlannedGasdsLine[]; years: GasdsYear[] }> {
  if (lock) await db.query('SELECT id FROM giving_gasds_collections WHERE org_id = $1 ORDER BY id FOR UPDATE', [orgId]);
  const rows = await queryRows<{ id: string; collected_on: string; amount: number; claimed: string | number }>(db, `
    SELECT c.id, c.collected_on, c.amount, COALESCE(sum(l.amount), 0) AS claimed FROM giving_gasds_collections c
    LEFT JOIN giving_gift_aid_claim_lines l ON l.collection_id = c.id AND l.status IN ('included', 'accepted')
    WHERE c.org_id = $1 AND c.collected_on <= $2 GROUP BY c.id ORDER BY c.collected_on, c.id`, [orgId, asOf]);
  const byYear = new Map<string, Array<{ id: string; collectedOn: string; unclaimed: number }>>();
  for (const row of rows) {
    const unclaimed = minorUnits(row.amount) - minorUnits(row.claimed);
    if (unclaimed <= 0 || asOf > gasdsClaimDeadline(row.collected_on)) continue;
    const label = taxYearOf(row.collected_on).label;
    byYear.set(label, [...(byYear.get(label) ?? []), { id: row.id, collectedOn: row.collected_on, unclaimed }]);
  }
  const lines: PlannedGasdsLine[] = [];
  const years: GasdsYear[] = [];
  for (const [label, collections] of byYear) {
    const year = taxYearOf(collections[0].collectedOn);
    const claimed = await queryOne<{ gift_aid: string | number; gasds: string | number }>(db, `
      SELECT COALESCE(sum(amount) FILTER (WHERE kind IN ('donation', 'adjustment')), 0) AS gift_aid,
             COALESCE(sum(amount) FILTER (WHERE kind = 'gasds'), 0) AS gasds
      FROM giving_gift_aid_claim_lines WHERE org_id = $1 AND status IN ('included', 'accepted') AND gift_on BETWEEN $2 AND $3`,
    [orgId, year.starts, year.ends]);
    const giftAidGross = minorUnits(claimed?.gift_aid) + giftAidLines.filter((l) => l.date >= year.starts && l.date <= year.ends).reduce((s, l) => s + l.amount, 0);
    const alreadyClaimed = minorUnits(claimed?.gasds);
    const allowance = gasdsAllowance({ giftAidGrossInYear: giftAidGross, gasdsAlreadyClaimed: alreadyClaimed });
    const taken = allocateGasds(collections, allowance);
    const byId = new Map(collections.map((c) => [c.id, c]));
    for (const take of taken) lines.push({ collectionId: take.id, collectedOn: byId.get(take.id)!.collectedOn, amount: take.amount });
    years.push({
      taxYear: label, unclaimed: collections.reduce((s, c) => s + c.unclaimed, 0), giftAidGross, alreadyClaimed, allowance,
      claiming: taken.reduce((s, t) => s + t.amount, 0),
    });
  }
  return { lines, years };
}

export interface GasdsCollectionListItem {
  id: string;
  collectedOn: string;
  taxYear: string;
  method: GasdsMethod;
  amount: number;
  giftCount: number;
  donationId: string | null;
  description: string | null;
  /** Taken by live claims (included or accepted lines). */
  claimed: number;
  claimDeadline: string;
}

/** Small-donations collections, newest first, optionally of one tax year, with how much of each claims have taken. */
export async function listGasdsCollections(db: Queryable, orgId: string, options: { taxYear?: TaxYear; limit: number; offset: number }): Promise<GasdsCollectionListItem[]> {
  const rows = await queryRows<{ id: string; collected_on: string; method: GasdsMethod; amount: number; gift_count: number; donation_id: string | null; description: string | null; claimed: string | number }>(db, `
    SELECT c.id, c.collected_on, c.method, c.amount, c.gift_count, c.donation_id, c.description,
      COALESCE((SELECT sum(l.amount) FROM giving_gift_aid_claim_lines l WHERE l.collection_id = c.id AND l.status IN ('included', 'accepted')), 0) AS claimed
    FROM giving_gasds_collections c WHERE c.org_id = $1 AND ($2::date IS NULL OR c.collected_on BETWEEN $2 AND $3)
    ORDER BY c.collected_on DESC, c.id DESC LIMIT $4 OFFSET $5`, [orgId, options.taxYear?.starts ?? null, options.taxYear?.ends ?? null, options.limit, options.offset]);
  return rows.map((row) => ({
    id: row.id, collectedOn: row.collected_on, taxYear: taxYearOf(row.collected_on).label, method: row.method, amount: minorUnits(row.amount),
    giftCount: row.gift_count, donationId: row.donation_id, description: row.description, claimed: minorUnits(row.claimed),
    claimDeadline: gasdsClaimDeadline(row.collected_on),
  }));
}
