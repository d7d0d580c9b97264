import { createHash, randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { displayNameOf } from '../display-name';
import { PostcodeProviderUnavailable, defaultPostcodeProvider, lookupPostcode, type PostcodeAddress } from '../postcodes';
import { notFound } from '../../kit';
import { addTimelineEntries, uuidOfParts } from '../timeline';
import { insertJob, type JobRow } from './jobs';
import {
  badNameCase, fixedEmail, isUkAddress, normaliseUkPostcode, phoneE164, splitFullName, titleCase, twoEmails, PREVIEW_HOURS,
  type FixKind, type SpecialFixKind,
} from './rules';

/**
 * Fixes: a preview says, row by row, what a fix would change (and a hash of all of it); applying
 * names that hash, is refused when the same preview would now come out differently, and starts a
 * job that writes the rows in chunks, recording every field's value before so the fix can be
 * undone for 30 days (undoStep). A row whose value changed since the preview is skipped, not
 * overwritten, and put in the review queue.
 */

export type AnyFix = FixKind | SpecialFixKind;

/** Fields a fix may write: camelCase → how to read and write it. */
const FIELDS: Record<string, { read: (c: string) => string; write: (c: string, value: string) => string }> = Object.fromEntries([
  ...[['firstName', 'first_name'], ['lastName', 'last_name'], ['preferredName', 'preferred_name'], ['email', 'email'], ['phone', 'phone'],
    ['addressPostcode', 'address_postcode'], ['addressCity', 'address_city'], ['addressCounty', 'address_county'], ['addressCountry', 'address_country']]
    .map(([field, column]) => [field, { read: (c: string) => `${c}.${column}`, write: (_c: string, value: string) => `${column} = ${value}` }]),
  ['secondEmail', {
    read: (c: string) => `(${c}.custom_fields->>'second_email')`,
    write: (c: string, value: string) => `custom_fields = CASE WHEN ${value} IS NULL THEN ${c}.custom_fields - 'second_email' ELSE jsonb_set(${c}.custom_fields, '{second_email}', to_jsonb(${value})) END`,
  }],
]);

export interface FixChange { field: string; before: string | null; after: string | null }
export interface FixRow { contactId: string; name: string; changes: FixChange[] }

interface Candidate {
  id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; phone: string | null;
  address_postcode: string | null; address_city: string | null; address_county: string | null; address_country: string | null;
  second_email: string | null;
}

async function candidates(db: Queryable, orgId: string, contactIds: string[] | undefined): Promise<Candidate[]> {
  return queryRows<Candidate>(db, `SELECT id, first_name, last_name, preferred_name, email, phone, address_postcode, address_city, address_county,
      address_country, custom_fields->>'second_email' AS second_email
    FROM contacts WHERE org_id = $1 AND deleted_at IS NULL AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[])) ORDER BY id`, [orgId, contactIds ?? null]);
}

/** At most this many distinct postcodes are looked up for one preview; the rest get their format fixed only. */
const MAX_POSTCODE_LOOKUPS = 100;

/** Outside the transaction (a tool's prepare step): the towns and counties the postcodes needing them imply. */
export async function lookupImpliedTowns(db: Queryable, orgId: string, country: string, contactIds: string[] | undefined): Promise<Record<string, PostcodeAddress | null>> {
  const rows = await queryRows<{ address_postcode: string; address_country: string | null }>(db, `SELECT address_postcode, address_country FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL AND address_postcode IS NOT NULL AND (address_city IS NULL OR address_county IS NULL)
      AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))`, [orgId, contactIds ?? null]);
  const postcodes = [...new Set(rows.filter((r) => isUkAddress(r.address_country, country)).map((r) => normaliseUkPostcode(r.address_postcode)).filter((p): p is string => !!p))]
    .sort().slice(0, MAX_POSTCODE_LOOKUPS);
  const provider = defaultPostcodeProvider();
  const found: Record<string, PostcodeAddress | null> = {};
  for (const postcode of postcodes) {
    try {
      found[postcode] = await lookupPostcode(db, provider, postcode);
    } catch (error) {
      if (error instanceof PostcodeProviderUnavailable) break;
      throw error;
    }
  }
  return found;
}

function changesOf(fix: AnyFix, c: Candidate, country: string, towns: Record<string, PostcodeAddress | null>): FixChange[] {
  const changes: FixChange[] = [];
  const change = (field: string, before: string | null, after: string | null) => {
    if (before !== after) changes.push({ field, before, after });
  };
  switch (fix) {
    case 'name_case':
      for (const [field, value] of [['firstName', c.first_name], ['lastName', c.last_name], ['preferredName', c.preferred_name]] as const) {
        if (value && badNameCase(value)) change(field, value, titleCase(value));
      }
      break;
    case 'phone_e164': {
      const e164 = phoneE164(c.phone, country);
      if (c.phone && e164) change('phone', c.phone, e164);
      break;
    }
    case 'uk_postcode': {
      if (!c.address_postcode || !isUkAddress(c.address_country, country)) break;
      const postcode = normaliseUkPostcode(c.address_postcode);
      if (!postcode) break;
      change('addressPostcode', c.address_postcode, postcode);
      const town = towns[postcode];
      if (town) {
        if (!c.address_city && town.city) change('addressCity', c.address_city, town.city);
        if (!c.address_county && town.county) change('addressCounty', c.address_county, town.county);
        if (!c.address_country && town.country) change('addressCountry', c.address_country, town.country);
      }
      break;
    }
    case 'email_format': {
      const email = fixedEmail(c.email);
      if (c.email && email) change('email', c.email, email);
      break;
    }
    case 'split_full_name': {
      const split = splitFullName(c);
      if (split) {
        change('firstName', c.first_name, split.firstName);
        change('lastName', c.last_name, split.lastName);
      }
      break;
    }
    case 'move_second_email': {
      const both = twoEmails(c.email);
      if (both && !c.second_email) {
        change('email', c.email, both[0]);
        change('secondEmail', c.second_email, both[1]);
      }
      break;
    }
  }
  return changes;
}

export interface Preview {
  fix: AnyFix;
  previewHash: string;
  rowCount: number;
  changeCount: number;
  rows: FixRow[];
}

function hashOf(fix: AnyFix, contactIds: string[] | undefined, rows: FixRow[]): string {
  const scope = contactIds ? [...contactIds].sort() : null;
  return createHash('sha256').update(JSON.stringify({ fix, scope, rows: rows.map((r) => [r.contactId, r.changes]) })).digest('hex');
}

/** Every row the fix would change, with the hash that binds an apply to it. */
export async function computePreview(db: Queryable, orgId: string, country: string, fix: AnyFix, contactIds: string[] | undefined,
  towns: Record<string, PostcodeAddress | null>): Promise<Preview> {
  const found = await candidates(db, orgId, contactIds);
  if (contactIds) {
    // A contact id of another organisation (or a deleted contact) is missing, as everywhere.
    const known = new Set(found.map((c) => c.id));
    const missing = contactIds.find((id) => !known.has(id));
    if (missing) throw notFound('Contact', missing);
  }
  const rows: FixRow[] = [];
  for (const c of found) {
    const changes = changesOf(fix, c, country, towns);
    if (changes.length > 0) rows.push({ contactId: c.id, name: displayNameOf({ ...c, preferred_name: c.preferred_name }), changes });
  }
  return { fix, previewHash: hashOf(fix, contactIds, rows), rowCount: rows.length, changeCount: rows.reduce((n, r) => n + r.changes.length, 0), rows };
}

/**
 * Applies a fix as previewed: the preview is made again in this transaction and must come out with
 * the hash given (else nothing is applied: preview again). The same preview applied twice (two
 * calls at once included) starts one job; the rows are kept for the job, which writes them.
 */
export async function startApplyJob(db: Queryable, orgId: string, country: string, userId: string | null, fix: AnyFix, special: boolean,
  previewHash: string, contactIds: string[] | undefined, towns: Record<string, PostcodeAddress | null>): Promise<{ job: JobRow; alreadyApplied: boolean; rowCount: number }> {
  // Two applies at once: the second's insert below waits for the first and fails on the unique index; its retry finds the first here.
  const earlier = await queryOne<{ job_id: string }>(db, `SELECT applied_job_id AS job_id FROM dq_previews
    WHERE org_id = $1 AND hash = $2 AND undone_at IS NULL AND applied_job_id IS NOT NULL`, [orgId, previewHash]);
  if (earlier) {
    const job = await queryOne<JobRow>(db, 'SELECT * FROM dq_jobs WHERE org_id = $1 AND id = $2', [orgId, earlier.job_id]);
    return { job: job!, alreadyApplied: true, rowCount: job!.total };
  }
  const preview = await computePreview(db, orgId, country, fix, contactIds, towns);
  if (preview.previewHash !== previewHash) {
    throw new StewardError('conflict', 'The fix would no longer change exactly what the preview showed', {
      hint: `The contacts changed since the preview (or no such preview was made). Preview again with ${special ? 'people_preview_data_quality_special_fix' : 'people_preview_data_quality_fix'} and apply the new previewHash.`,
    });
  }
  if (preview.rowCount === 0) {
    throw new StewardError('validation_failed', 'The preview has no rows: there is nothing to apply', { issues: [{ path: 'previewHash', message: 'a preview with no rows' }] });
  }
  const previewId = randomUUID();
  const job = await insertJob(db, orgId, 'apply_fix', { previewId, fix, special }, userId, preview.rowCount);
  await db.query(`INSERT INTO dq_previews (id, org_id, fix, special, rows, row_count, hash, created_by, expires_at, applied_job_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + interval '${PREVIEW_HOURS} hours', $9)`,
  [previewId, orgId, fix, special, JSON.stringify(preview.rows), preview.rowCount, previewHash, userId, job.id]);
  return { job, alreadyApplied: false, rowCount: preview.rowCount };
}

const APPLY_CHUNK = 500;
const UNDO_CHUNK = 1000;
const MAX_STALE_KEPT = 1000;

/** Writes one field for many contacts, each only where it still holds `before`; answers the refs of the rows written. */
async function writeField(db: Queryable, orgId: string, field: string, items: Array<{ contactId: string; before: string | null; after: string | null; ref: string }>): Promise<Array<{ contactId: string; before: string | null; after: string | null; ref: string }>> {
  const spec = FIELDS[field];
  if (!spec || items.length === 0) return [];
  return queryRows(db, `WITH input AS (SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS t(contact_id, before, after, ref))
    UPDATE contacts c SET ${spec.write('c', 'i.after')}, updated_at = now()
    FROM input i WHERE c.org_id = $1 AND c.id = i.contact_id AND c.deleted_at IS NULL AND ${spec.read('c')} IS NOT DISTINCT FROM i.before
    RETURNING c.id AS "contactId", i.before, i.after, i.ref`,
  [orgId, items.map((i) => i.contactId), items.map((i) => i.before), items.map((i) => i.after), items.map((i) => i.ref)]);
}

function byField<T extends { field: string }>(items: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) map.set(item.field, [...(map.get(item.field) ?? []), item]);
  return map;
}

interface ApplyTallies { changed: number; contactsChanged: number; stale: number; staleIds: string[] }

const fixLabel = (fix: unknown) => String(fix).replace(/_/g, ' ');

/**
 * One care timeline entry per contact a job's chunk changed, naming the fields (never their values),
 * keyed by the job and the contact: a contact in two chunks, or a chunk written again, keeps one.
 */
async function recordOnTimelines(db: Queryable, orgId: string, jobId: string, kind: string, lead: string, written: ReadonlyArray<{ contactId: string; field: string }>): Promise<void> {
  const fields = new Map<string, Set<string>>();
  for (const w of written) fields.set(w.contactId, (fields.get(w.contactId) ?? new Set()).add(w.field));
  await addTimelineEntries(db, orgId, [...fields].map(([contactId, names]) => ({
    contactId, kind, sourceKind: 'data_quality_job', sourceId: uuidOfParts(jobId, contactId), summary: `${lead} ${[...names].sort().join(', ')}`,
  })));
}

/** One chunk of an apply job; true when done. */
export async function applyStep(db: Queryable, job: JobRow): Promise<boolean> {
  const orgId = job.org_id;
  const tallies: ApplyTallies = { changed: 0, contactsChanged: 0, stale: 0, staleIds: [], ...(job.result as Partial<ApplyTallies> | null ?? {}) };
  if (job.status === 'queued') await db.query(`UPDATE dq_jobs SET status = 'running', started_at = now() WHERE org_id = $1 AND id = $2`, [orgId, job.id]);
  const rows = await queryRows<{ r: FixRow }>(db, `SELECT t.r FROM dq_previews p, jsonb_array_elements(p.rows) WITH ORDINALITY AS t(r, i)
    WHERE p.org_id = $1 AND p.id = $2 AND t.i > $3 AND t.i <= $3 + $4 ORDER BY t.i`, [orgId, String(job.params.previewId), job.done, APPLY_CHUNK]);
  const items = rows.flatMap(({ r }) => r.changes.map((change) => ({ ...change, contactId: r.contactId, ref: r.contactId })));
  const written: Array<{ contactId: string; field: string; before: string | null; after: string | null }> = [];
  for (const [field, list] of byField(items)) {
    for (const row of await writeField(db, orgId, field, list)) written.push({ ...row, field });
  }
  if (written.length > 0) {
    await db.query(`INSERT INTO dq_changes (org_id, job_id, contact_id, field, before, after)
      SELECT $1, $2, c, f, b, a FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[]) AS t(c, f, b, a)`,
    [orgId, job.id, written.map((w) => w.contactId), written.map((w) => w.field), written.map((w) => w.before), written.map((w) => w.after)]);
  }
  await recordOnTimelines(db, orgId, job.id, 'data_fixed', `Data quality fix (${fixLabel(job.params.fix)}) changed`, written);
  const writtenKeys = new Set(written.map((w) => `${w.contactId}|${w.field}`));
  const changedContacts = new Set(written.map((w) => w.contactId));
  const staleContacts = new Set(items.filter((i) => !writtenKeys.has(`${i.contactId}|${i.field}`)).map((i) => i.contactId));
  tallies.changed += written.length;
  tallies.contactsChanged += changedContacts.size;
  tallies.stale += staleContacts.size;
  tallies.staleIds = [...tallies.staleIds, ...staleContacts].slice(0, MAX_STALE_KEPT);
  const done = job.done + rows.length;
  const finished = rows.length < APPLY_CHUNK || done >= job.total;
  if (!finished) {
    await db.query('UPDATE dq_jobs SET done = $3, result = $4 WHERE org_id = $1 AND id = $2', [orgId, job.id, done, JSON.stringify(tallies)]);
    return false;
  }
  if (tallies.staleIds.length > 0) {
    await db.query(`INSERT INTO dq_queue (id, org_id, kind, match_key, contact_ids, summary, details)
      VALUES ($1, $2, 'stale_fix', $3, $4::uuid[], $5, $6) ON CONFLICT (org_id, kind, match_key) WHERE status = 'open' DO NOTHING`,
    [randomUUID(), orgId, `job:${job.id}`, tallies.staleIds, `${tallies.stale} contact(s) changed after the preview, so the fix skipped them: check them and preview again`,
      JSON.stringify({ jobId: job.id, fix: job.params.fix })]);
  }
  const { staleIds: _kept, ...result } = tallies;
  await db.query(`UPDATE dq_jobs SET status = 'completed', finished_at = now(), done = $3, result = $4 WHERE org_id = $1 AND id = $2`,
    [orgId, job.id, done, JSON.stringify({ ...result, fix: job.params.fix, skippedContactIds: tallies.staleIds.slice(0, 50) })]);
  return true;
}

/** One chunk of an undo job: each change written back where the field still holds what the fix wrote; true when done. */
export async function undoStep(db: Queryable, job: JobRow): Promise<boolean> {
  const orgId = job.org_id;
  const state = { reverted: 0, skipped: 0, cursor: '0', ...(job.result as Record<string, unknown> | null ?? {}) } as { reverted: number; skipped: number; cursor: string };
  if (job.status === 'queued') await db.query(`UPDATE dq_jobs SET status = 'running', started_at = now() WHERE org_id = $1 AND id = $2`, [orgId, job.id]);
  // Ordered by the bigint id (the text copy is named apart, so ORDER BY does not sort it as text).
  const changes = await queryRows<{ id: string; contact_id: string; field: string; before: string | null; after: string | null }>(db,
    `SELECT c.id::text AS id, c.contact_id, c.field, c.before, c.after FROM dq_changes c
     WHERE c.org_id = $1 AND c.job_id = $2 AND c.undone_at IS NULL AND c.id > $3::bigint ORDER BY c.id LIMIT $4`,
    [orgId, String(job.params.fixJobId), state.cursor, UNDO_CHUNK]);
  const reverted: string[] = [];
  for (const [field, list] of byField(changes)) {
    // Back from after to before: the roles swap.
    const rows = await writeField(db, orgId, field, list.map((c) => ({ contactId: c.contact_id, before: c.after, after: c.before, ref: c.id })));
    reverted.push(...rows.map((r) => r.ref));
  }
  if (reverted.length > 0) await db.query('UPDATE dq_changes SET undone_at = now() WHERE org_id = $1 AND id = ANY($2::bigint[])', [orgId, reverted]);
  const revertedIds = new Set(reverted);
  await recordOnTimelines(db, orgId, job.id, 'data_fix_undone', 'Undid a data quality fix: put back', changes.filter((c) => revertedIds.has(c.id)).map((c) => ({ contactId: c.contact_id, field: c.field })));
  state.reverted += reverted.length;
  state.skipped += changes.length - reverted.length;
  if (changes.length > 0) state.cursor = changes[changes.length - 1].id;
  const done = job.done + changes.length;
  if (changes.length === UNDO_CHUNK) {
    await db.query('UPDATE dq_jobs SET done = $3, result = $4 WHERE org_id = $1 AND id = $2', [orgId, job.id, done, JSON.stringify(state)]);
    return false;
  }
  await db.query(`UPDATE dq_jobs SET status = 'completed', finished_at = now(), done = $3, total = GREATEST(total, $3), result = $4 WHERE org_id = $1 AND id = $2`,
    [orgId, job.id, done, JSON.stringify({ reverted: state.reverted, skipped: state.skipped, fixJobId: job.params.fixJobId })]);
  return true;
}
