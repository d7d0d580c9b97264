import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { StewardError, type ErrorIssue } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { parseOrgDate } from '../people/api';
import type { OrgSettings } from '../tool';
import { batchSchema, createBatch, getBatch, lockOpenBatch, type BatchView } from './batches';
import { DONATION_METHODS, initialGiftAidStatus, insertDonation, type DonationMethod, type ResolvedDonation } from './donations';
import { todayUtc } from '../metrics';
import { defaultFund, requireFund, type FundView } from './funds';
import { MAX_MINOR_UNITS } from './money';
import { organisationCurrency } from './settings';

/**
 * Donations from a CSV: a card processor's payout report, a bank statement export, or a
 * spreadsheet. A dry run reports what each row would become; a commit records them all or, on any
 * error row (or an unaccepted near-duplicate), none. Idempotent on (source, external id): a row
 * whose id is already recorded is a duplicate and is skipped, so importing one file twice, or twice
 * at once, records each gift once. Rows without an id column get one from their content.
 */

/** The CSV text limit: about 900 KB, what a tool call can carry; a larger export is split into several imports. */
export const MAX_IMPORT_CHARS = 900_000;
export const MAX_IMPORT_ROWS = 2000;

export const IMPORT_ROW_STATUSES = ['created', 'duplicate', 'near_duplicate', 'error'] as const;
type RowStatus = (typeof IMPORT_ROW_STATUSES)[number];

export const importRowSchema = z.object({
  row: z.number().int().describe('Spreadsheet row number (the header is row 1)'),
  status: z.enum(IMPORT_ROW_STATUSES),
  externalId: z.string().nullable(),
  amount: z.number().int().nullable(),
  receivedOn: z.string().nullable(),
  contactId: z.uuid().nullable(),
  fundId: z.uuid().nullable(),
  message: z.string().nullable().describe('Why the row is an error, a duplicate or a near-duplicate'),
  donationId: z.uuid().nullable().describe('The gift recorded (created), or the one it duplicates or resembles'),
}).strict();
type ImportRow = z.infer<typeof importRowSchema>;

export const importResultSchema = z.object({
  mode: z.enum(['dry_run', 'commit']),
  source: z.string(),
  currency: z.string(),
  counts: z.object({
    rows: z.number().int(), created: z.number().int(), duplicate: z.number().int(), nearDuplicate: z.number().int(), error: z.number().int(),
    recorded: z.number().int().describe('Gifts this call recorded (a commit: the created rows, and near-duplicates when accepted); 0 for a dry run'),
  }).strict(),
  rows: z.array(importRowSchema),
  batch: batchSchema.nullable().describe('The batch the gifts went into (commit); commit it with giving_commit_batch'),
}).strict();
export type ImportResult = z.infer<typeof importResultSchema>;

export interface ImportInput {
  csv: string;
  source: string;
  mode: 'dry_run' | 'commit';
  batchId?: string;
  batchName?: string;
  defaultMethod: DonationMethod;
  fundId?: string;
  acceptNearDuplicates: boolean;
}

type Column = 'date' | 'amount' | 'amountMinor' | 'externalId' | 'method' | 'fund' | 'giverReference' | 'contactId' | 'email' | 'fee' | 'note';

/** Header names as exports write them, compared in lower case without spaces or punctuation. */
const HEADER_ALIASES: Record<string, Column> = {
  date: 'date', receivedon: 'date', received: 'date', transactiondate: 'date', valuedate: 'date', paymentdate: 'date',
  amount: 'amount', credit: 'amount', paidin: 'amount', gross: 'amount', value: 'amount',
  amountminor: 'amountMinor', amountpence: 'amountMinor', pence: 'amountMinor', minorunits: 'amountMinor',
  externalid: 'externalId', reference: 'externalId', transactionid: 'externalId', id: 'externalId', ref: 'externalId', paymentid: 'externalId',
  method: 'method', paymentmethod: 'method', type: 'method',
  fund: 'fund', fundcode: 'fund', fundname: 'fund',
  giverreference: 'giverReference', giverref: 'giverReference', donorreference: 'giverReference', donorref: 'giverReference',
  contactid: 'contactId', email: 'email', fee: 'fee', fees: 'fee',
  note: 'note', description: 'note', memo: 'note', narrative: 'note',
};

const METHOD_ALIASES: Record<string, DonationMethod> = {
  cash: 'cash', cheque: 'cheque', check: 'cheque', chq: 'cheque', card: 'card', debitcard: 'card', creditcard: 'card', contactless: 'card',
  banktransfer: 'bank_transfer', transfer: 'bank_transfer', bacs: 'bank_transfer', fasterpayment: 'bank_transfer', fps: 'bank_transfer', bgc: 'bank_transfer',
  standingorder: 'standing_order', so: 'standing_order', sto: 'standing_order', online: 'online', paypal: 'online', stripe: 'online', web: 'online',
};

const keyOf = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Digits after the decimal point in a currency's major unit (ISO 4217); two unless listed. */
const ZERO_DECIMAL = new Set(['JPY', 'KRW', 'UGX', 'VND', 'CLP', 'ISK', 'XAF', 'XOF']);
export function minorDigits(currency: string): number {
  return ZERO_DECIMAL.has(currency) ? 0 : 2;
}

/**
 * "1,250.50", "£12.50" or "12" in major units as exact minor units, by string arithmetic (never a
 * float). Returns an error message for anything else, including more decimals than the currency has.
 */
export function parseMajorAmount(text: string, currency: string): number | string {
  const cleaned = text.trim().replace(/^[£$€¥]/, '').replace(/,(?=\d{3}(\D|$))/g, '');
  const match = /^(\d+)(?:\.(\d+))?$/.exec(cleaned);
  if (!match) return `"${text.slice(0, 20)}" is not a positive amount like 12.50`;
  const digits = minorDigits(currency);
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return `"${text.slice(0, 20)}" has more than ${digits} decimal places for ${currency}`;
  const minor = Number(match[1] + fraction.padEnd(digits, '0'));
  if (!Number.isSafeInteger(minor) || minor > MAX_MINOR_UNITS) return `"${text.slice(0, 20)}" is too large`;
  return minor;
}

function parseMinorAmount(text: string): number | string {
  if (!/^\d+$/.test(text.trim())) return `"${text.slice(0, 20)}" is not a whole number of minor units`;
  const minor = Number(text.trim());
  return Number.isSafeInteger(minor) && minor <= MAX_MINOR_UNITS ? minor : `"${text.slice(0, 20)}" is too large`;
}

/** The CSV's records, or validation_failed naming the row where it stops being a CSV. */
export function readCsv(csv: string): string[][] {
  try {
    return parse(csv, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: false }) as string[][];
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new StewardError('validation_failed', `The CSV could not be read${line ? ` at row ${line}` : ''}: ${(error as Error).message.slice(0, 200)}`, {
      issues: [{ path: line ? `csv.row ${line}` : 'csv', message: 'malformed CSV' }],
      hint: 'Export the file again as CSV (comma-separated, quotes around fields with commas), header row first.',
    });
  }
}

/** How many gifts a commit could record (the meter's count for the call): its data rows. */
export function importedRowCount(input: { csv: string; mode: string }): number {
  if (input.mode !== 'commit') return 0;
  try {
    return Math.max(0, readCsv(input.csv).length - 1);
  } catch {
    return 0;
  }
}

/** In a dry run a missing default fund is not created: its rows say it will be, on commit. */
const DEFAULT_FUND_ON_COMMIT = { id: '', name: 'General Fund', giftAidEligible: true } as const;

interface Lookups {
  funds: FundView[];
  fallbackFund: Pick<FundView, 'id' | 'name' | 'giftAidEligible'> | null;
  fallbackFundError: string | null;
  givers: Map<string, string>;
}

async function lookups(db: Queryable, org: OrgSettings, input: ImportInput, used: Set<Column>): Promise<Lookups> {
  const funds = (await queryRows<{ id: string }>(db, "SELECT id FROM giving_funds WHERE org_id = $1 AND status = 'active'", [org.id]));
  // One connection runs one query at a time: read them in turn.
  const views: FundView[] = [];
  for (const fund of funds) views.push(await requireFund(db, org.id, fund.id));
  let fallbackFund: Lookups['fallbackFund'] = null;
  let fallbackFundError: string | null = null;
  try {
    fallbackFund = input.fundId ? await requireFund(db, org.id, input.fundId, { active: true }) : input.mode === 'commit' ? await defaultFund(db, org.id) : (await existingDefault(db, org.id)) ?? DEFAULT_FUND_ON_COMMIT;
  } catch (error) {
    if (input.fundId) throw error;
    fallbackFundError = (error as Error).message;
  }
  const givers = new Map<string, string>();
  if (used.has('giverReference')) {
    for (const row of await queryRows<{ reference: string; contact_id: string }>(db, 'SELECT lower(giver_reference) AS reference, contact_id FROM giving_givers WHERE org_id = $1', [org.id])) {
      givers.set(row.reference, row.contact_id);
    }
  }
  return { funds: views, fallbackFund, fallbackFundError, givers };
}

/** In a dry run nothing is written, not even the default fund: a missing one is described instead. */
async function existingDefault(db: Queryable, orgId: string): Promise<FundView | null> {
  const row = await queryOne<{ id: string }>(db, 'SELECT id FROM giving_funds WHERE org_id = $1 AND is_default', [orgId]);
  return row ? requireFund(db, orgId, row.id) : null;
}

interface PlannedRow {
  report: ImportRow;
  gift?: ResolvedDonation;
}

/** Reads every row into a planned gift or an error; nothing is written. */
async function planRows(db: Queryable, org: OrgSettings, currency: string, input: ImportInput): Promise<PlannedRow[]> {
  if (input.csv.length > MAX_IMPORT_CHARS) {
    throw new StewardError('validation_failed', `The CSV is larger than ${MAX_IMPORT_CHARS} characters`, {
      issues: [{ path: 'csv', message: 'too large' }], hint: 'Split the export into several files and import each.',
    });
  }
  const records = readCsv(input.csv);
  if (records.length < 2) throw new StewardError('validation_failed', 'The CSV needs a header row and at least one data row', { issues: [{ path: 'csv', message: 'no data rows' }] });
  if (records.length - 1 > MAX_IMPORT_ROWS) {
    throw new StewardError('validation_failed', `At most ${MAX_IMPORT_ROWS} rows per import`, { issues: [{ path: 'csv', message: 'too many rows' }], hint: 'Split the file.' });
  }
  const [header, ...rows] = records;
  const columns = header.map((name) => HEADER_ALIASES[keyOf(name)]);
  const used = new Set(columns.filter(Boolean) as Column[]);
  if (!used.has('date') || !(used.has('amount') || used.has('amountMinor'))) {
    throw new StewardError('validation_failed', 'The CSV needs a date column and an amount column', {
      issues: [{ path: 'csv.row 1', message: 'missing date or amount header' }],
      hint: 'Headers such as: date, amount (12.50) or amount_minor (1250), reference, method, fund, giver_reference, email, fee, description.',
    });
  }
  const found = await lookups(db, org, input, used);
  const occurrences = new Map<string, number>();
  const planned: PlannedRow[] = [];
  for (const [index, cells] of rows.entries()) {
    const cell = (column: Column) => {
      const at = columns.indexOf(column);
      return at >= 0 ? (cells[at] ?? '').trim() : '';
    };
    planned.push(await planRow(db, org, currency, input, found, index + 2, cell, occurrences));
  }
  return planned;
}

async function planRow(
  db: Queryable, org: OrgSettings, currency: string, input: ImportInput, found: Lookups, row: number,
  cell: (column: Column) => string, occurrences: Map<string, number>,
): Promise<PlannedRow> {
  const report: ImportRow = { row, status: 'error', externalId: null, amount: null, receivedOn: null, contactId: null, fundId: null, message: null, donationId: null };
  const fail = (field: string, message: string): PlannedRow => ({ report: { ...report, message: `${field}: ${message}` } });

  let receivedOn: string;
  try {
    receivedOn = parseOrgDate(cell('date'), org.dateFormat, 'date');
  } catch (error) {
    return fail('date', (error as StewardError).issues?.[0]?.message ?? 'not a date');
  }
  if (receivedOn > todayUtc()) return fail('date', 'is in the future');
  report.receivedOn = receivedOn;

  const amount = cell('amountMinor') ? parseMinorAmount(cell('amountMinor')) : parseMajorAmount(cell('amount'), currency);
  if (typeof amount === 'string') return fail('amount', amount);
  if (amount === 0) return fail('amount', 'a gift must be more than zero');
  report.amount = amount;
  const fee = cell('fee') ? parseMajorAmount(cell('fee'), currency) : 0;
  if (typeof fee === 'string') return fail('fee', fee);
  if (fee > amount) return fail('fee', 'is more than the gift');

  const methodText = cell('method');
  const method = methodText ? METHOD_ALIASES[keyOf(methodText)] ?? (DONATION_METHODS as readonly string[]).find((m) => m === methodText) as DonationMethod | undefined : input.defaultMethod;
  if (!method) return fail('method', `"${methodText.slice(0, 30)}" is not a payment method (cash, cheque, card, bank transfer, standing order, online)`);

  const fundText = cell('fund');
  const fund = fundText
    ? found.funds.find((f) => f.code?.toLowerCase() === fundText.toLowerCase() || f.name.toLowerCase() === fundText.toLowerCase())
    : found.fallbackFund ?? undefined;
  if (!fund) return fail('fund', fundText ? `no active fund has the name or code "${fundText.slice(0, 40)}"` : (found.fallbackFundError ?? 'no default fund'));
  report.fundId = fund.id || null;

  const giver = await giverOf(db, org.id, found, cell);
  if ('field' in giver) return fail(giver.field, giver.message);
  const contact = giver.contactId;
  report.contactId = contact;

  // A row without an id gets one from its content; identical rows in one file are told apart by their occurrence.
  let externalId = cell('externalId');
  if (!externalId) {
    const content = [receivedOn, amount, method, cell('note'), cell('giverReference'), cell('email'), cell('contactId'), fundText].join('\u001f');
    const seen = (occurrences.get(content) ?? 0) + 1;
    occurrences.set(content, seen);
    externalId = `row:${createHash('sha256').update(`${content}\u001f${seen}`).digest('hex').slice(0, 32)}`;
  }
  if (externalId.length > 200) return fail('reference', 'is longer than 200 characters');
  report.externalId = externalId;

  const gift: ResolvedDonation = {
    contactId: contact, amount, currency, fee, method, receivedOn, designations: [{ fundId: fund.id, amount }],
    giftAidStatus: initialGiftAidStatus({ contactId: contact, amount, isGasds: false, funds: [fund] }),
    source: `import:${input.source}`, externalId, pledgeId: null, adjustsDonationId: null, note: cell('note').slice(0, 1000) || null,
  };
  return { report: { ...report, status: 'created' }, gift };
}

type GiverMatch = { contactId: string | null } | { field: string; message: string };

/** The row's giver, by giver reference, contact id or email; a null contact for an anonymous gift. */
async function giverOf(db: Queryable, orgId: string, found: Lookups, cell: (column: Column) => string): Promise<GiverMatch> {
  const reference = cell('giverReference');
  if (reference) {
    const contactId = found.givers.get(reference.toLowerCase());
    return contactId ? { contactId } : { field: 'giver_reference', message: `no giver has reference "${reference.slice(0, 40)}"` };
  }
  const contactId = cell('contactId');
  if (contactId) {
    if (!z.uuid().safeParse(contactId).success) return { field: 'contact_id', message: 'not a contact id' };
    const row = await queryOne<{ id: string }>(db, 'SELECT id FROM people_directory WHERE org_id = $1 AND id = $2', [orgId, contactId]);
    return row ? { contactId: row.id } : { field: 'contact_id', message: `contact ${contactId} was not found` };
  }
  const email = cell('email');
  if (email) {
    const rows = await queryRows<{ id: string }>(db, 'SELECT id FROM people_directory WHERE org_id = $1 AND lower(email) = lower($2) LIMIT 2', [orgId, email]);
    if (rows.length === 1) return { contactId: rows[0].id };
    return { field: 'email', message: rows.length === 0 ? 'no contact has this email' : 'several contacts share this email; use giver_reference' };
  }
  return { contactId: null };
}

/**
 * Marks rows whose (source, external id) is already recorded, or repeats an earlier row, as
 * duplicates; and rows that look like a gift already recorded another way (same giver, amount
 * and date within a day, under another source or id) as near-duplicates.
 */
async function markDuplicates(db: Queryable, orgId: string, source: string, planned: PlannedRow[]): Promise<void> {
  const ids = planned.filter((p) => p.gift).map((p) => p.gift!.externalId!);
  const existing = new Map((await queryRows<{ id: string; external_id: string }>(db,
    'SELECT id, external_id FROM giving_donations WHERE org_id = $1 AND source = $2 AND external_id = ANY($3::text[])', [orgId, source, ids]))
    .map((row) => [row.external_id, row.id]));
  const inFile = new Map<string, number>();
  for (const plan of planned) {
    if (!plan.gift) continue;
    const id = plan.gift.externalId!;
    const recorded = existing.get(id);
    const earlierRow = inFile.get(id);
    if (recorded) {
      plan.report = { ...plan.report, status: 'duplicate', donationId: recorded, message: 'already recorded from this source' };
    } else if (earlierRow !== undefined) {
      plan.report = { ...plan.report, status: 'duplicate', message: `repeats row ${earlierRow}` };
    } else {
      inFile.set(id, plan.report.row);
      const similar = await queryOne<{ id: string }>(db, `SELECT id FROM giving_donations
        WHERE org_id = $1 AND amount = $2 AND received_on BETWEEN $3::date - 1 AND $3::date + 1
          AND contact_id IS NOT DISTINCT FROM $4::uuid AND NOT (source = $5 AND external_id IS NOT DISTINCT FROM $6)
        LIMIT 1`, [orgId, plan.gift.amount, plan.gift.receivedOn, plan.gift.contactId, source, id]);
      if (similar) plan.report = { ...plan.report, status: 'near_duplicate', donationId: similar.id, message: 'a gift of the same amount from the same giver within a day is already recorded' };
    }
  }
}

function rowIssues(planned: PlannedRow[], status: RowStatus): ErrorIssue[] {
  return planned.filter((p) => p.report.status === status).map((p) => ({ path: `row ${p.report.row}`, message: p.report.message ?? status }));
}

/**
 * Imports a CSV of gifts. Imports from one source take turns (a transaction-long advisory lock), so
 * two at once cannot both find a row new; the unique (source, external id) index backs that up.
 */
export async function importDonations(
  db: Queryable, org: OrgSettings, input: ImportInput, userId: string | null, progress?: (done: number, total?: number, message?: string) => void,
): Promise<ImportResult> {
  const currency = await organisationCurrency(db, org);
  const source = `import:${input.source}`;
  if (input.mode === 'commit') await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${org.id}:giving-import:${source}`]);
  let batch: BatchView | null = null;
  let recorded = 0;
  if (input.batchId) batch = await getBatch(db, org.id, (await lockOpenBatch(db, org.id, input.batchId)).id);
  const planned = await planRows(db, org, currency, input);
  await markDuplicates(db, org.id, source, planned);
  const count = (status: RowStatus) => planned.filter((p) => p.report.status === status).length;

  if (input.mode === 'commit') {
    const errors = rowIssues(planned, 'error');
    if (errors.length > 0) {
      throw new StewardError('validation_failed', `${errors.length} row(s) of the CSV cannot be imported; nothing was recorded`, {
        issues: errors.slice(0, 50), hint: 'Fix the rows named (a dry run lists them all) and import again.',
      });
    }
    const near = rowIssues(planned, 'near_duplicate');
    if (near.length > 0 && !input.acceptNearDuplicates) {
      throw new StewardError('validation_failed', `${near.length} row(s) look like gifts already recorded; nothing was recorded`, {
        issues: near.slice(0, 50), hint: 'Check them (giving_get_donation on the donationId of a dry run); to record them anyway, commit with acceptNearDuplicates: true.',
      });
    }
    const toRecord = planned.filter((p) => p.report.status === 'created' || p.report.status === 'near_duplicate');
    if (toRecord.length > 0 && !batch) {
      batch = await createBatch(db, org.id, { name: input.batchName ?? `Import ${input.source} ${todayUtc()}`, currency, userId });
    }
    for (const [index, plan] of toRecord.entries()) {
      // A fund named by no row falls back to the default fund, created by now if it was missing.
      const gift = await insertDonation(db, org.id, batch!.id, plan.gift!, userId);
      progress?.(index + 1, toRecord.length, `Recorded ${index + 1} of ${toRecord.length} gifts`);
      if (!gift.duplicate) recorded += 1;
      plan.report = gift.duplicate
        ? { ...plan.report, status: 'duplicate', donationId: gift.id, message: 'already recorded from this source' }
        : { ...plan.report, donationId: gift.id };
    }
    if (batch) batch = await getBatch(db, org.id, batch.id);
  }
  return {
    mode: input.mode, source, currency,
    counts: { rows: planned.length, created: count('created'), duplicate: count('duplicate'), nearDuplicate: count('near_duplicate'), error: count('error'), recorded },
    rows: planned.map((p) => p.report), batch,
  };
}
