import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { StewardError, type ErrorIssue } from '../../core/errors';
import { queryOne, type Queryable } from '../../db/pool';
import { assertAllowance, lockFeature } from '../../kernel/billing';
import type { OrgSettings, ProgressReport } from '../tool';
import { countFilteredContacts, createContact, listContacts, updateContact, type ContactFilters, type ContactWrite } from './contacts';
import { listDefinitions } from './custom-fields';
import { parseOrgDate } from './dates';
import { contactFields } from './schemas';
import { addContactTags } from './tags';

const HEADER_ALIASES: Record<string, string> = {
  prefix: 'prefix', title: 'prefix',
  firstname: 'firstName', forename: 'firstName', givenname: 'firstName',
  lastname: 'lastName', surname: 'lastName', familyname: 'lastName',
  preferredname: 'preferredName', knownas: 'preferredName',
  email: 'email', emailaddress: 'email',
  phone: 'phone', mobile: 'phone', telephone: 'phone', phonenumber: 'phone',
  dateofbirth: 'dateOfBirth', dob: 'dateOfBirth', birthday: 'dateOfBirth',
  gender: 'gender',
  addressline1: 'addressLine1', address1: 'addressLine1', address: 'addressLine1', street: 'addressLine1',
  addressline2: 'addressLine2', address2: 'addressLine2',
  city: 'addressCity', town: 'addressCity', addresscity: 'addressCity',
  county: 'addressCounty', addresscounty: 'addressCounty',
  postcode: 'addressPostcode', postalcode: 'addressPostcode', zip: 'addressPostcode', addresspostcode: 'addressPostcode',
  country: 'addressCountry', addresscountry: 'addressCountry',
  status: 'status', membershipstatus: 'membershipStatus', whatsappconsent: 'whatsappConsent',
  baptismdate: 'baptismDate', membershipdate: 'membershipDate', anniversarydate: 'anniversaryDate',
  tags: 'tags',
};

const DATE_FIELDS = new Set(['dateOfBirth', 'baptismDate', 'membershipDate', 'anniversaryDate']);
const rowSchema = z.object(Object.fromEntries(Object.entries(contactFields).map(([k, v]) => [k, v.optional()]))).strict();

export const MAX_IMPORT_ROWS = 5000;
/** Requests are capped at 1 MB of JSON, so the CSV text must fit well inside that. */
export const MAX_IMPORT_CHARS = 900_000;

interface RowPlan {
  row: number;
  action: 'create' | 'update' | 'skip';
  fields: ContactWrite;
  tags: string[];
  matchedContactId?: string;
  displayName: string;
}

function headerKey(header: string): string {
  return header.toLowerCase().replace(/[^a-z0-9:]/g, '');
}

function cellValue(field: string, raw: string, customTypes: Map<string, string>): unknown {
  if (field === 'whatsappConsent') return ['yes', 'true', '1', 'y'].includes(raw.toLowerCase());
  if (field.startsWith('custom:')) {
    const type = customTypes.get(field.slice(7));
    if (type === 'number' && raw !== '' && !Number.isNaN(Number(raw))) return Number(raw);
    if (type === 'boolean') return ['yes', 'true', '1', 'y'].includes(raw.toLowerCase());
  }
  return raw;
}

/**
 * Reads a CSV into a plan: one action per row (create, update or skip as a
 * duplicate) and every row's errors with its spreadsheet row number (header = row 1).
 */
export async function planImport(db: Queryable, org: OrgSettings, csv: string, onDuplicate: 'skip' | 'update') {
  let records: string[][];
  try {
    records = parse(csv, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: false }) as string[][];
  } catch (error) {
    throw new StewardError('validation_failed', `The CSV could not be read: ${(error as Error).message}`, { issues: [{ path: 'csv', message: 'malformed CSV' }] });
  }
  if (records.length < 2) throw new StewardError('validation_failed', 'The CSV needs a header row and at least one data row', { issues: [{ path: 'csv', message: 'no data rows' }] });
  if (records.length - 1 > MAX_IMPORT_ROWS) throw new StewardError('validation_failed', `At most ${MAX_IMPORT_ROWS} rows per import`, { issues: [{ path: 'csv', message: 'too many rows' }] });

  const definitions = await listDefinitions(db, org.id);
  const customTypes = new Map(definitions.map((d) => [d.key, d.type]));
  const [header, ...rows] = records;
  const columns = header.map((h) => {
    const key = headerKey(h);
    if (key.startsWith('custom:') && customTypes.has(key.slice(7))) return key;
    if (customTypes.has(h.trim())) return `custom:${h.trim()}`;
    return HEADER_ALIASES[key];
  });
  const ignoredColumns = header.filter((_, i) => !columns[i]);

  const errors: Array<{ row: number; field: string; message: string }> = [];
  const plans: RowPlan[] = [];
  const emailsInFile = new Map<string, number>();
  for (const [index, cells] of rows.entries()) {
    const rowNumber = index + 2;
    const raw: Record<string, unknown> = {};
    const customFields: Record<string, unknown> = {};
    let tags: string[] = [];
    columns.forEach((field, i) => {
      const text = cells[i] ?? '';
      if (!field || text === '') return;
      if (field === 'tags') tags = text.split(/[;|]/).map((t) => t.trim()).filter(Boolean);
      else if (field.startsWith('custom:')) customFields[field.slice(7)] = cellValue(field, text, customTypes);
      else raw[field] = cellValue(field, text, customTypes);
    });
    if (Object.keys(customFields).length > 0) raw.customFields = customFields;
    const rowErrors = validateRow(org, raw, customTypes);
    if (rowErrors.length > 0) {
      errors.push(...rowErrors.map((e) => ({ row: rowNumber, ...e })));
      continue;
    }
    plans.push(await planRow(db, org.id, rowNumber, raw as ContactWrite, tags, onDuplicate, emailsInFile));
  }
  return { rows: rows.length, plans, errors, ignoredColumns };
}

function validateRow(org: OrgSettings, raw: Record<string, unknown>, customTypes: Map<string, string>) {
  const errors: Array<{ field: string; message: string }> = [];
  const parsed = rowSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors.push({ field: issue.path.join('.') || 'row', message: issue.message });
    return errors;
  }
  if (!raw.email && !(raw.firstName && raw.lastName)) errors.push({ field: 'email', message: 'needs an email, or a first and a last name' });
  for (const field of DATE_FIELDS) {
    if (typeof raw[field] !== 'string') continue;
    try {
      raw[field] = parseOrgDate(raw[field] as string, org.dateFormat, field);
    } catch (error) {
      errors.push({ field, message: (error as StewardError).issues?.[0]?.message ?? 'invalid date' });
    }
  }
  for (const [key, value] of Object.entries((raw.customFields as Record<string, unknown>) ?? {})) {
    const type = customTypes.get(key);
    const ok = type === 'number' ? typeof value === 'number' : type === 'boolean' ? typeof value === 'boolean' : typeof value === 'string';
    if (!ok) errors.push({ field: `customFields.${key}`, message: `expected ${type}` });
  }
  return errors;
}

async function planRow(
  db: Queryable, orgId: string, row: number, fields: ContactWrite, tags: string[], onDuplicate: 'skip' | 'update', emailsInFile: Map<string, number>,
): Promise<RowPlan> {
  const displayName = [fields.firstName, fields.lastName].filter(Boolean).join(' ') || String(fields.email);
  const email = typeof fields.email === 'string' ? fields.email.toLowerCase() : undefined;
  if (email && emailsInFile.has(email)) return { row, action: 'skip', fields, tags, displayName };
  if (email) emailsInFile.set(email, row);
  const existing = email
    ? await queryOne<{ id: string }>(db, 'SELECT id FROM contacts WHERE org_id = $1 AND lower(email) = $2 AND deleted_at IS NULL LIMIT 1', [orgId, email])
    : undefined;
  if (!existing) return { row, action: 'create', fields, tags, displayName };
  return { row, action: onDuplicate, fields, tags, matchedContactId: existing.id, displayName };
}

function rowErrorsAsIssues(errors: Array<{ row: number; field: string; message: string }>): ErrorIssue[] {
  return errors.map((e) => ({ path: `row ${e.row}.${e.field}`, message: e.message }));
}

/** Preview changes nothing; commit applies every row or, on any row error, none. */
export async function importContacts(
  db: Queryable, org: OrgSettings, input: { csv: string; mode: 'preview' | 'commit'; onDuplicate: 'skip' | 'update' },
  progress?: ProgressReport,
) {
  const plan = await planImport(db, org, input.csv, input.onDuplicate);
  const count = (action: RowPlan['action']) => plan.plans.filter((p) => p.action === action).length;
  const summary = {
    mode: input.mode, rows: plan.rows, toCreate: count('create'), toUpdate: count('update'), toSkip: count('skip'),
    errors: plan.errors, ignoredColumns: plan.ignoredColumns,
    preview: plan.plans.slice(0, 25).map((p) => ({ row: p.row, action: p.action, displayName: p.displayName, matchedContactId: p.matchedContactId ?? null })),
  };
  if (input.mode === 'preview') return { ...summary, committed: false };
  if (plan.errors.length > 0) {
    throw new StewardError('validation_failed', `${plan.errors.length} row(s) have errors; nothing was imported`, {
      issues: rowErrorsAsIssues(plan.errors), details: { rowErrors: plan.errors }, hint: 'Fix the rows and import again; mode "preview" checks without writing.',
    });
  }
  await lockFeature(db, org.id, 'contacts');
  await assertAllowance(db, org.id, 'contacts', summary.toCreate);
  for (const [index, row] of plan.plans.entries()) {
    if (row.action !== 'skip') {
      const contact = row.action === 'create'
        ? await createContact(db, org, row.fields)
        : (await updateContact(db, org, row.matchedContactId!, row.fields)).contact;
      if (row.tags.length) await addContactTags(db, org.id, contact.id, row.tags);
    }
    // Skipped rows count as done: the person hears how far through the file the import is.
    progress?.(index + 1, plan.plans.length, `Imported ${index + 1} of ${plan.plans.length} rows`);
  }
  return { ...summary, committed: true };
}

export const EXPORT_COLUMNS = [
  'id', 'prefix', 'firstName', 'lastName', 'preferredName', 'email', 'phone', 'dateOfBirth', 'gender',
  'addressLine1', 'addressLine2', 'addressCity', 'addressCounty', 'addressPostcode', 'addressCountry',
  'status', 'membershipStatus', 'whatsappConsent', 'tags', 'createdAt',
] as const;

/** Rows per export call: the CSV travels in the tool's result, which Temporal keeps well under its 2 MB payload limit. */
export const MAX_EXPORT_ROWS = 2000;

/** A cell a spreadsheet would run as a formula is prefixed with a quote. */
function safeCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = Array.isArray(value) ? value.join(';') : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** Contact fields as CSV, a page at a time; notes are never exported. */
/** Rows read per query while exporting: each read is followed by a progress report. */
const EXPORT_READ_ROWS = 250;

/**
 * One page of the export, read EXPORT_READ_ROWS at a time inside the caller's snapshot, reporting
 * the rows exported so far of the page's total (a count, never a name).
 */
export async function exportContacts(
  db: Queryable, orgId: string, filters: ContactFilters, columns: readonly string[], offset: number, progress?: ProgressReport,
) {
  const matching = await countFilteredContacts(db, orgId, filters);
  const total = Math.max(0, Math.min(MAX_EXPORT_ROWS, matching - offset));
  const page: Awaited<ReturnType<typeof listContacts>>['contacts'] = [];
  while (page.length < total) {
    const { contacts } = await listContacts(db, orgId, filters, { limit: Math.min(EXPORT_READ_ROWS, total - page.length), offset: offset + page.length, count: false });
    if (contacts.length === 0) break;
    page.push(...contacts);
    progress?.(page.length, total, `Exported ${page.length} of ${total} rows`);
  }
  const rows = page.map((contact) => columns.map((column) => safeCell((contact as Record<string, unknown>)[column])));
  return {
    csv: stringify([columns as string[], ...rows]),
    rowCount: rows.length,
    columns: [...columns],
    nextOffset: matching > offset + MAX_EXPORT_ROWS ? offset + MAX_EXPORT_ROWS : null,
  };
}
