import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound, type RowOf } from '../../kit';
import { requireContact } from '../../people/api';
import type { OrgSettings } from '../../tool';
import type { GivingDonation } from '../models/donations';
import type { GivingStatement } from '../models/statements';
import { minorUnits } from '../money';
import { organisationCurrency } from '../settings';
import { donorsOf } from './donors';
import { parseTaxYear } from './rules';
import { deliveryOf, statementEmailHtml, statementSubject, type StatementDelivery, type StatementDeliveryStatus } from './statement-delivery';
import { minorUnitsAsDecimal } from '../../../core/money';

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

export type StatementDeliveryMode = 'download' | 'email';

export interface StatementSummary {
  id: string;
  contactId: string | null;
  donationCount: number;
  totalAmount: number;
  giftAidClaimed: number;
  delivery: StatementDelivery;
}

/** A statement an earlier email run already made for the same giver, period and gifts: not made or emailed again. */
export interface UnchangedStatement extends StatementSummary {
  runId: string;
}

export interface StatementRunView {
  id: string;
  taxYear: string | null;
  periodStart: string;
  periodEnd: string;
  delivery: StatementDeliveryMode;
  statementCount: number;
  createdAt: string;
}

export interface StatementRequest {
  taxYear?: string;
  periodStart?: string;
  periodEnd?: string;
  contactIds?: string[];
  delivery: StatementDeliveryMode;
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

type GiftRow = Pick<RowOf<GivingDonation>, 'id' | 'received_on' | 'amount' | 'method' | 'gift_aid_status'> & {
  /** Never null here: the query reads givers' gifts only. */
  contact_id: string;
  refunded: string | number;
  funds: string[];
  gift_aid: string | number | null;
};

export interface GeneratedStatements {
  run: StatementRunView;
  statements: StatementSummary[];
  unchanged: UnchangedStatement[];
  givers: { withGifts: number; withoutGifts: string[]; withoutEmail: string[] };
}

/**
 * Statements for each giver with gifts in the period: committed donations only (a batch still in
 * progress counts for nothing), each net of refunds, a fully refunded gift left out. Corrections
 * (negative adjusting entries) are listed as they were committed. Gift Aid claimed is what HMRC
 * accepted on the listed gifts, net of reversals.
 */
export async function generateStatements(
  db: Queryable, org: OrgSettings, userId: string | null, request: StatementRequest,
): Promise<GeneratedStatements> {
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
  const contents = new Map<string, StatementContent>();
  for (const [contactId, lines] of byGiver) {
    const donor = donors.get(contactId);
    contents.set(contactId, {
      organisation: org.name,
      giver: { contactId, name: donor?.displayName ?? 'Unnamed giver', houseNameOrNumber: donor?.houseNameOrNumber ?? null, postcode: donor?.postcode ?? null },
      periodStart: period.start, periodEnd: period.end, taxYear: period.taxYear, currency,
      lines, total: lines.reduce((sum, line) => sum + line.amount, 0), giftAidClaimed: giftAidByGiver.get(contactId) ?? 0,
    });
  }
  const email = request.delivery === 'email';
  if (email) await lockPeriod(db, org.id, period);
  const unchanged = email ? await unchangedStatements(db, org.id, period, contents) : new Map<string, UnchangedStatement>();
  const fresh = [...contents].filter(([contactId]) => !unchanged.has(contactId));
  const addresses = email ? await emailAddresses(db, org.id, fresh.map(([contactId]) => contactId)) : new Set<string>();
  const runId = randomUUID();
  await db.query(`INSERT INTO giving_statement_runs (id, org_id, tax_year, period_start, period_end, delivery, statement_count, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [runId, org.id, period.taxYear, period.start, period.end, request.delivery, fresh.length, userId]);
  const statements = fresh.map(([contactId, content]) => ({
    contactId, content, id: randomUUID(),
    status: (email ? (addresses.has(contactId) ? 'queued' : 'no_email') : null) as StatementDeliveryStatus | null,
  }));
  await insertStatements(db, org.id, runId, currency, statements);
  const run = await queryOne<{ created_at: Date }>(db, 'SELECT created_at FROM giving_statement_runs WHERE id = $1', [runId]);
  const summaries: StatementSummary[] = statements.map((st) => ({
    id: st.id, contactId: st.contactId, donationCount: st.content.lines.length, totalAmount: st.content.total, giftAidClaimed: st.content.giftAidClaimed,
    delivery: { status: st.status, error: null, sentAt: null },
  }));
  const kept = [...unchanged.values()];
  return {
    run: { id: runId, taxYear: period.taxYear, periodStart: period.start, periodEnd: period.end, delivery: request.delivery, statementCount: fresh.length, createdAt: run!.created_at.toISOString() },
    statements: summaries,
    unchanged: kept,
    givers: {
      withGifts: byGiver.size,
      withoutGifts: only ? only.filter((id) => !byGiver.has(id)) : [],
      withoutEmail: [...summaries, ...kept].filter((st) => st.delivery.status === 'no_email').map((st) => st.contactId!),
    },
  };
}

/** Two email runs for one period at once would each see no earlier statement and email twice: they take turns. */
async function lockPeriod(db: Queryable, orgId: string, period: { start: string; end: string }): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`giving-statements:${orgId}:${period.start}:${period.end}`]);
}

/** Givers (of those given) with an email address in the people module's published view of live contacts. */
async function emailAddresses(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<Set<string>> {
  if (contactIds.length === 0) return new Set();
  const rows = await queryRows<{ id: string }>(db, `SELECT id FROM people_directory WHERE org_id = $1 AND id = ANY($2::uuid[]) AND coalesce(email, '') <> ''`,
    [orgId, contactIds]);
  return new Set(rows.map((row) => row.id));
}

type StatementRow = Pick<RowOf<GivingStatement>, 'id' | 'run_id' | 'contact_id' | 'donation_count' | 'total_amount' | 'gift_aid_claimed'
  | 'delivery_status' | 'delivery_error' | 'sent_at'>;

function summaryOf(row: StatementRow): StatementSummary {
  return {
    id: row.id, contactId: row.contact_id, donationCount: row.donation_count, totalAmount: minorUnits(row.total_amount),
    giftAidClaimed: minorUnits(row.gift_aid_claimed), delivery: deliveryOf(row),
  };
}

/** What the giver reads: two statements whose emails would read the same are one statement to them. */
function readsTheSame(a: StatementContent, b: StatementContent): boolean {
  return statementSubject(a) === statementSubject(b) && statementEmailHtml(a) === statementEmailHtml(b);
}

/**
 * Each giver's latest statement from an earlier email run of the same period, where its email would
 * read exactly as one generated now (a gift's Gift Aid status moving on, which the email does not
 * show, changes nothing): generating again re-delivers that one (never twice once sent) instead of
 * making and emailing a copy. A giver whose gifts changed since gets a new statement.
 */
async function unchangedStatements(
  db: Queryable, orgId: string, period: { start: string; end: string }, contents: Map<string, StatementContent>,
): Promise<Map<string, UnchangedStatement>> {
  if (contents.size === 0) return new Map();
  const rows = await queryRows<StatementRow & { content: StatementContent }>(db, `
    SELECT DISTINCT ON (s.contact_id) s.id, s.run_id, s.contact_id, s.donation_count, s.total_amount, s.gift_aid_claimed,
      s.delivery_status, s.delivery_error, s.sent_at, s.content
    FROM giving_statements s JOIN giving_statement_runs r ON r.id = s.run_id
    WHERE s.org_id = $1 AND r.delivery = 'email' AND r.period_start = $2 AND r.period_end = $3 AND s.contact_id = ANY($4::uuid[])
    ORDER BY s.contact_id, s.created_at DESC, s.id DESC`,
  [orgId, period.start, period.end, [...contents.keys()]]);
  const same = rows.filter((row) => readsTheSame(row.content, contents.get(row.contact_id!)!));
  return new Map(same.map((row) => [row.contact_id!, { ...summaryOf(row), runId: row.run_id }]));
}

async function insertStatements(
  db: Queryable, orgId: string, runId: string, currency: string,
  statements: Array<{ id: string; contactId: string; content: StatementContent; status: StatementDeliveryStatus | null }>,
): Promise<void> {
  if (statements.length === 0) return;
  await db.query(`INSERT INTO giving_statements (id, org_id, run_id, contact_id, currency, donation_count, total_amount, gift_aid_claimed, content, delivery_status)
    SELECT u.id, $1, $2, u.contact_id, $3, u.donation_count, u.total_amount, u.gift_aid_claimed, u.content, u.delivery_status
    FROM unnest($4::uuid[], $5::uuid[], $6::int[], $7::bigint[], $8::bigint[], $9::jsonb[], $10::text[])
      AS u(id, contact_id, donation_count, total_amount, gift_aid_claimed, content, delivery_status)`,
  [orgId, runId, currency, statements.map((st) => st.id), statements.map((st) => st.contactId), statements.map((st) => st.content.lines.length),
    statements.map((st) => st.content.total), statements.map((st) => st.content.giftAidClaimed), statements.map((st) => JSON.stringify(st.content)),
    statements.map((st) => st.status)]);
}

function formatMoney(minor: number, currency: string): string {
  return `${minor < 0 ? '-' : ''}${currency} ${minorUnitsAsDecimal(Math.abs(minor), currency)}`;
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
  const row = await queryOne<StatementRow & { content: StatementContent; created_at: Date }>(db,
    'SELECT * FROM giving_statements WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!row) throw notFound('Statement', id, 'giving_generate_statements lists the statements it made.');
  return { summary: summaryOf(row), runId: row.run_id, content: row.content, text: statementText(row.content), createdAt: row.created_at.toISOString() };
}

export interface StatementListItem extends StatementSummary {
  runId: string;
  periodStart: string;
  periodEnd: string;
  taxYear: string | null;
  createdAt: string;
}

async function requireRun(db: Queryable, orgId: string, runId: string): Promise<void> {
  if (!(await queryOne(db, 'SELECT 1 FROM giving_statement_runs WHERE org_id = $1 AND id = $2', [orgId, runId]))) throw notFound('Statement run', runId);
}

/** Statements generated, newest first: one run's, one giver's, or all; a run or giver of another organisation is not found. */
export async function listStatements(
  db: Queryable, orgId: string, options: { runId?: string; contactId?: string; deliveryStatus?: StatementDeliveryStatus; limit: number; offset: number },
): Promise<StatementListItem[]> {
  if (options.contactId) await requireContact(db, orgId, options.contactId);
  if (options.runId) await requireRun(db, orgId, options.runId);
  const rows = await queryRows<StatementRow & { created_at: Date; period_start: string; period_end: string; tax_year: string | null }>(db, `
    SELECT s.id, s.run_id, s.contact_id, s.donation_count, s.total_amount, s.gift_aid_claimed, s.delivery_status, s.delivery_error, s.sent_at, s.created_at,
      r.period_start, r.period_end, r.tax_year
    FROM giving_statements s JOIN giving_statement_runs r ON r.id = s.run_id
    WHERE s.org_id = $1 AND ($2::uuid IS NULL OR s.run_id = $2) AND ($3::uuid IS NULL OR s.contact_id = $3) AND ($6::text IS NULL OR s.delivery_status = $6)
    ORDER BY s.created_at DESC, s.id DESC LIMIT $4 OFFSET $5`,
  [orgId, options.runId ?? null, options.contactId ?? null, options.limit, options.offset, options.deliveryStatus ?? null]);
  return rows.map((row) => ({
    ...summaryOf(row), runId: row.run_id, periodStart: row.period_start, periodEnd: row.period_end, taxYear: row.tax_year, createdAt: row.created_at.toISOString(),
  }));
}

/**
 * Queues statements for email again: one statement, or every statement of a run that has not gone.
 * A sent statement is left as it is (it is never emailed twice); a download statement or one whose
 * giver had no address is queued too, so a statement can be emailed once an address is added.
 * Returns the statements named with their delivery as it now stands.
 */
export async function queueStatementsForEmail(db: Queryable, orgId: string, target: { runId?: string; statementId?: string }): Promise<UnchangedStatement[]> {
  if (target.runId) await requireRun(db, orgId, target.runId);
  const rows = await queryRows<StatementRow>(db, `
    UPDATE giving_statements SET delivery_status = CASE WHEN delivery_status IN ('sent', 'failed') THEN delivery_status ELSE 'queued' END
    WHERE org_id = $1 AND ($2::uuid IS NULL OR run_id = $2) AND ($3::uuid IS NULL OR id = $3)
    RETURNING id, run_id, contact_id, donation_count, total_amount, gift_aid_claimed, delivery_status, delivery_error, sent_at`,
  [orgId, target.runId ?? null, target.statementId ?? null]);
  if (target.statementId && rows.length === 0) throw notFound('Statement', target.statementId, 'giving_list_statements lists the statements made.');
  return rows.map((row) => ({ ...summaryOf(row), runId: row.run_id }));
}
