import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound } from '../../kit';
import { requireContact } from '../../people/contacts';
import type { OrgSettings } from '../../tool';
import { minorUnits } from '../money';
import { organisationCurrency } from '../settings';
import { donorsOf } from './donors';
import { parseTaxYear } from './rules';

/** How many givers one run may cover; a larger congregation is generated in parts (contactIds). */
export const MAX_STATEMENTS_PER_RUN = 5000;

export interface StatementLine {
  donationId: string;
  date: string;
  amount: number;
  method: string;
  funds: string[];
  giftAidStatus: string;
}

export interface StatementContent {
  organisation: string;
  giver: { contactId: string; name: string; houseNameOrNumber: string | null; postcode: string | null };
  periodStart: string;
  periodEnd: string;
  taxYear: string | null;
  currency: string;
  lines: StatementLine[];
  total: number;
  giftAidClaimed: number;
}

export interface StatementSummary {
  id: string;
  contactId: string | null;
  donationCount: number;
  totalAmount: number;
  giftAidClaimed: number;
}

export interface StatementRunView {
  id: string;
  taxYear: string | null;
  periodStart: string;
  periodEnd: string;
  delivery: 'download';
  statementCount: number;
  createdAt: string;
}

export interface StatementRequest {
  taxYear?: string;
  periodStart?: string;
  periodEnd?: string;
  contactIds?: string[];
  delivery: 'download';
}

function periodOf(request: StatementRequest): { start: string; end: string; taxYear: string | null } {
  if (request.taxYear !== undefined) {
    const year = parseTaxYear(request.taxYear);
    if (!year) throw new StewardError('validation_failed', `"${request.taxYear}" is not a tax year`, { issues: [{ path: 'taxYear', message: 'expected YYYY-YY, e.g. 2025-26' }] });
    return { start: year.starts, end: year.ends, taxYear: year.label };
  }
  if (request.periodStart === undefined || request.periodEnd === undefined) {
    throw new StewardError('validation_failed', 'Give a taxYear, or both periodStart and periodEnd', { issues: [{ path: 'taxYear', message: 'or periodStart and periodEnd' }] });
  }
  if (request.periodEnd < request.periodStart) {
    throw new StewardError('validation_failed', 'periodEnd is before periodStart', { issues: [{ path: 'periodEnd', message: 'must not be before periodStart' }] });
  }
  return { start: request.periodStart, end: request.periodEnd, taxYear: null };
}

interface GiftRow {
  id: string;
  contact_id: string;
  received_on: string;
  amount: number;
  refunded: string | number;
  method: string;
  funds: string[];
  gift_aid_status: string;
  gift_aid: string | number | null;
}

/**
 * Statements for each giver with gifts in the period: committed donations only (a batch still in
 * progress counts for nothing), each net of refunds, a fully refunded gift left out. Corrections
 * (negative adjusting entries) are listed as they were committed. Gift Aid claimed is what HMRC
 * accepted on the listed gifts, net of reversals.
 */
export async function generateStatements(
  db: Queryable, org: OrgSettings, userId: string | null, request: StatementRequest,
): Promise<{ run: StatementRunView; statements: StatementSummary[]; givers: { withGifts: number; withoutGifts: string[] } }> {
  const period = periodOf(request);
  const currency = await organisationCurrency(db, org);
  const only = request.contactIds ? [...new Set(request.contactIds)] : null;
  if (only) for (const contactId of only) await requireContact(db, org.id, contactId);
  const gifts = await queryRows<GiftRow>(db, `
    SELECT d.id, d.contact_id, d.received_on, d.amount, d.method, d.gift_aid_status,
      COALESCE((SELECT sum(r.amount) FROM giving_refunds r WHERE r.donation_id = d.id), 0) AS refunded,
      COALESCE((SELECT array_agg(f.name ORDER BY f.name) FROM giving_designations g JOIN giving_funds f ON f.id = g.fund_id WHERE g.donation_id = d.id), '{}') AS funds,
      (SELECT sum(l.gift_aid_amount) FROM giving_gift_aid_claim_lines l WHERE l.donation_id = d.id AND l.status = 'accepted' AND l.kind IN ('donation', 'adjustment')) AS gift_aid
    FROM giving_donations d JOIN giving_batches b ON b.id = d.batch_id AND b.status = 'committed'
    WHERE d.org_id = $1 AND d.contact_id IS NOT NULL AND d.received_on BETWEEN $2 AND $3 AND ($4::uuid[] IS NULL OR d.contact_id = ANY($4::uuid[]))
    ORDER BY d.contact_id, d.received_on, d.id`, [org.id, period.start, period.end, only]);
  const byGiver = new Map<string, StatementLine[]>();
  const giftAidByGiver = new Map<string, number>();
  for (const gift of gifts) {
    const amount = minorUnits(gift.amount);
    const net = amount > 0 ? amount - minorUnits(gift.refunded) : amount;
    if (amount > 0 && net <= 0) continue;
    const lines = byGiver.get(gift.contact_id) ?? [];
    lines.push({ donationId: gift.id, date: gift.received_on, amount: net, method: gift.method, funds: gift.funds, giftAidStatus: gift.gift_aid_status });
    byGiver.set(gift.contact_id, lines);
    giftAidByGiver.set(gift.contact_id, (giftAidByGiver.get(gift.contact_id) ?? 0) + minorUnits(gift.gift_aid));
  }
  if (byGiver.size > MAX_STATEMENTS_PER_RUN) {
    throw new StewardError('validation_failed', `${byGiver.size} givers gave in the period; one run covers at most ${MAX_STATEMENTS_PER_RUN}`, {
      hint: 'Generate in parts with contactIds.', issues: [{ path: 'contactIds', message: `at most ${MAX_STATEMENTS_PER_RUN} givers per run` }],
    });
  }
  const donors = await donorsOf(db, org.id, [...byGiver.keys()]);
  const runId = randomUUID();
  await db.query(`INSERT INTO giving_statement_runs (id, org_id, tax_year, period_start, period_end, delivery, statement_count, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [runId, org.id, period.taxYear, period.start, period.end, request.delivery, byGiver.size, userId]);
  const statements: StatementSummary[] = [];
  const rows: Array<[string, string, number, number, number, string]> = [];
  for (const [contactId, lines] of byGiver) {
    const donor = donors.get(contactId);
    const total = lines.reduce((sum, line) => sum + line.amount, 0);
    const giftAidClaimed = giftAidByGiver.get(contactId) ?? 0;
    const content: StatementContent = {
      organisation: org.name,
      giver: { contactId, name: donor?.displayName ?? 'Unnamed giver', houseNameOrNumber: donor?.houseNameOrNumber ?? null, postcode: donor?.postcode ?? null },
      periodStart: period.start, periodEnd: period.end, taxYear: period.taxYear, currency, lines, total, giftAidClaimed,
    };
    const id = randomUUID();
    rows.push([id, contactId, lines.length, total, giftAidClaimed, JSON.stringify(content)]);
    statements.push({ id, contactId, donationCount: lines.length, totalAmount: total, giftAidClaimed });
  }
  if (rows.length > 0) {
    await db.query(`INSERT INTO giving_statements (id, org_id, run_id, contact_id, currency, donation_count, total_amount, gift_aid_claimed, content)
      SELECT u.id, $1, $2, u.contact_id, $3, u.donation_count, u.total_amount, u.gift_aid_claimed, u.content
      FROM unnest($4::uuid[], $5::uuid[], $6::int[], $7::bigint[], $8::bigint[], $9::jsonb[]) AS u(id, contact_id, donation_count, total_amount, gift_aid_claimed, content)`,
    [org.id, runId, currency, rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3]), rows.map((r) => r[4]), rows.map((r) => r[5])]);
  }
  const run = await queryOne<{ created_at: Date }>(db, 'SELECT created_at FROM giving_statement_runs WHERE id = $1', [runId]);
  return {
    run: { id: runId, taxYear: period.taxYear, periodStart: period.start, periodEnd: period.end, delivery: request.delivery, statementCount: byGiver.size, createdAt: run!.created_at.toISOString() },
    statements,
    givers: { withGifts: byGiver.size, withoutGifts: only ? only.filter((id) => !byGiver.has(id)) : [] },
  };
}

function formatMoney(minor: number, currency: string): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${currency} ${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The statement as plain text, ready to download or print. */
export function statementText(content: StatementContent): string {
  const lines = [
    `${content.organisation}: giving statement`,
    `For ${content.giver.name}`,
    `Period ${content.periodStart} to ${content.periodEnd}${content.taxYear ? ` (tax year ${content.taxYear})` : ''}`,
    '',
    ...content.lines.map((line) => `${line.date}  ${formatMoney(line.amount, content.currency).padStart(16)}  ${line.method}  ${line.funds.join(', ')}`),
    '',
    `Total given: ${formatMoney(content.total, content.currency)}`,
    ...(content.giftAidClaimed !== 0 ? [`Gift Aid claimed on these gifts: ${formatMoney(content.giftAidClaimed, content.currency)}`] : []),
  ];
  return lines.join('\n');
}

export async function getStatement(db: Queryable, orgId: string, id: string): Promise<{ summary: StatementSummary; runId: string; content: StatementContent; text: string; createdAt: string }> {
  const row = await queryOne<{ id: string; run_id: string; contact_id: string | null; donation_count: number; total_amount: number; gift_aid_claimed: number; content: StatementContent; created_at: Date }>(db,
    'SELECT * FROM giving_statements WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!row) throw notFound('Statement', id, 'giving_generate_statements lists the statements it made.');
  return {
    summary: { id: row.id, contactId: row.contact_id, donationCount: row.donation_count, totalAmount: minorUnits(row.total_amount), giftAidClaimed: minorUnits(row.gift_aid_claimed) },
    runId: row.run_id, content: row.content, text: statementText(row.content), createdAt: row.created_at.toISOString(),
  };
}

export interface StatementListItem extends StatementSummary {
  runId: string;
  periodStart: string;
  periodEnd: string;
  taxYear: string | null;
  createdAt: string;
}

/** Statements generated, newest first: one run's, one giver's, or all; a run or giver of another organisation is not found. */
export async function listStatements(
  db: Queryable, orgId: string, options: { runId?: string; contactId?: string; limit: number; offset: number },
): Promise<StatementListItem[]> {
  if (options.contactId) await requireContact(db, orgId, options.contactId);
  if (options.runId && !(await queryOne(db, 'SELECT 1 FROM giving_statement_runs WHERE org_id = $1 AND id = $2', [orgId, options.runId]))) {
    throw notFound('Statement run', options.runId);
  }
  const rows = await queryRows<{
    id: string; run_id: string; contact_id: string | null; donation_count: number; total_amount: number; gift_aid_claimed: number; created_at: Date;
    period_start: string; period_end: string; tax_year: string | null;
  }>(db, `SELECT s.id, s.run_id, s.contact_id, s.donation_count, s.total_amount, s.gift_aid_claimed, s.created_at, r.period_start, r.period_end, r.tax_year
    FROM giving_statements s JOIN giving_statement_runs r ON r.id = s.run_id
    WHERE s.org_id = $1 AND ($2::uuid IS NULL OR s.run_id = $2) AND ($3::uuid IS NULL OR s.contact_id = $3)
    ORDER BY s.created_at DESC, s.id DESC LIMIT $4 OFFSET $5`, [orgId, options.runId ?? null, options.contactId ?? null, options.limit, options.offset]);
  return rows.map((row) => ({
    id: row.id, runId: row.run_id, contactId: row.contact_id, donationCount: row.donation_count, totalAmount: minorUnits(row.total_amount),
    giftAidClaimed: minorUnits(row.gift_aid_claimed), periodStart: row.period_start, periodEnd: row.period_end, taxYear: row.tax_year,
    createdAt: row.created_at.toISOString(),
  }));
}
