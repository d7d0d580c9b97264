import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import type { JobRow } from './jobs';
import {
  CHECKS, FUZZY_COUNTED_CONFIDENCE, FUZZY_MIN_CONFIDENCE, FUZZY_MIN_SIMILARITY, checksOf, fuzzyConfidence, phoneE164, presentValues, scoresOf,
  type CheckKey, type ContactRow, type ScanFigures,
} from './rules';

/**
 * A scan, run by its job in steps: each `checks` step reads the next chunk of live contacts (by
 * id), runs the per-contact checks (rules.ts) and stores what they found; the `duplicates` step
 * finds exact groups (same email; same phone in E.164) and fuzzy pairs (pg_trgm similarity of
 * names among sound-alike surnames, dates of birth, postcodes), then scores the scan and keeps
 * the review queue in line.
 */

export const SCAN_CHUNK = 2000;
/** At most this many fuzzy pairs are kept per scan, the most alike first. */
const MAX_FUZZY_PAIRS = 20_000;

const VALIDITY: ReadonlySet<CheckKey> = new Set(CHECKS.filter((c) => c.category === 'validity').map((c) => c.key));
const COMPLETENESS: ReadonlySet<CheckKey> = new Set(CHECKS.filter((c) => c.category === 'completeness').map((c) => c.key));
const CONSISTENCY: ReadonlySet<CheckKey> = new Set(CHECKS.filter((c) => c.category === 'consistency').map((c) => c.key));

interface Tallies {
  contacts: number;
  missingFields: number;
  presentValues: number;
  invalidValues: number;
  inconsistentContacts: number;
  staleContacts: number;
  contactableContacts: number;
}

interface ScanState {
  stage: 'checks' | 'duplicates';
  cursor: string | null;
  tallies: Tallies;
  startedMs: number;
}

const CONTACT_COLUMNS = `id, first_name, last_name, preferred_name, email, phone, date_of_birth::text AS date_of_birth, address_line1, address_city,
  address_county, address_postcode, address_country, status, whatsapp_consent, updated_at`;

/** Progress counts contacts checked (contacts added during the scan raise the total); the duplicates step finishes it. */
async function setProgress(db: Queryable, job: JobRow, done: number, state: ScanState): Promise<void> {
  await db.query('UPDATE dq_jobs SET done = $3, total = GREATEST(total, $3), result = $4 WHERE org_id = $1 AND id = $2', [job.org_id, job.id, done, JSON.stringify(state)]);
}

/** One step of a scan job; true when the scan has finished. */
export async function scanStep(db: Queryable, job: JobRow): Promise<boolean> {
  const orgId = job.org_id;
  const scanId = String(job.params.scanId);
  const country = String(job.params.country ?? 'GB');
  if (job.status === 'queued') {
    const total = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND deleted_at IS NULL', [orgId]);
    await db.query('INSERT INTO dq_scans (id, org_id, job_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [scanId, orgId, job.id]);
    const state: ScanState = {
      stage: 'checks', cursor: null, startedMs: Date.now(),
      tallies: { contacts: 0, missingFields: 0, presentValues: 0, invalidValues: 0, inconsistentContacts: 0, staleContacts: 0, contactableContacts: 0 },
    };
    await db.query(`UPDATE dq_jobs SET status = 'running', started_at = now(), total = $3, done = 0, result = $4 WHERE org_id = $1 AND id = $2`,
      [orgId, job.id, total?.n ?? 0, JSON.stringify(state)]);
    return false;
  }
  const state = job.result as unknown as ScanState;
  if (state.stage === 'checks') {
    const rows = await queryRows<ContactRow>(db, `SELECT ${CONTACT_COLUMNS} FROM contacts
      WHERE org_id = $1 AND deleted_at IS NULL AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3`, [orgId, state.cursor, SCAN_CHUNK]);
    const now = new Date();
    const hitContacts: string[] = [];
    const hitKeys: string[] = [];
    const hitDetails: Array<string | null> = [];
    const t = state.tallies;
    for (const [index, row] of rows.entries()) {
      // The API and worker may share this process (npm start): let other work in between.
      if (index % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
      const hits = checksOf(row, country, now);
      t.contacts++;
      t.presentValues += presentValues(row, country);
      let inconsistent = false;
      let contactable = true;
      for (const hit of hits) {
        hitContacts.push(row.id);
        hitKeys.push(hit.key);
        hitDetails.push(hit.detail);
        if (COMPLETENESS.has(hit.key)) t.missingFields++;
        if (VALIDITY.has(hit.key)) t.invalidValues++;
        if (CONSISTENCY.has(hit.key)) inconsistent = true;
        if (hit.key === 'stale_record') t.staleContacts++;
        if (hit.key === 'not_contactable') contactable = false;
      }
      if (inconsistent) t.inconsistentContacts++;
      if (contactable) t.contactableContacts++;
    }
    if (hitContacts.length > 0) {
      await db.query(`INSERT INTO dq_scan_hits (org_id, scan_id, check_key, contact_id, detail)
        SELECT $1, $2, k, c, d FROM unnest($3::uuid[], $4::text[], $5::text[]) AS t(c, k, d) ON CONFLICT DO NOTHING`,
      [orgId, scanId, hitContacts, hitKeys, hitDetails]);
    }
    const next: ScanState = rows.length < SCAN_CHUNK
      ? { ...state, stage: 'duplicates', cursor: null }
      : { ...state, cursor: rows[rows.length - 1].id };
    await setProgress(db, job, t.contacts, next);
    return false;
  }
  await duplicatesAndScore(db, job, scanId, country, state);
  return true;
}

interface Found {
  kind: 'email' | 'phone' | 'fuzzy';
  key: string;
  ids: string[];
  confidence: number;
  reasons: Array<{ kind: string; detail: string; similarity?: number }>;
}

async function exactGroups(db: Queryable, orgId: string, country: string): Promise<Found[]> {
  const found: Found[] = [];
  const emails = await queryRows<{ e: string; ids: string[] }>(db, `SELECT lower(trim(email)) AS e, array_agg(id ORDER BY created_at, id) AS ids
    FROM contacts WHERE org_id = $1 AND deleted_at IS NULL AND email IS NOT NULL AND trim(email) <> ''
    GROUP BY lower(trim(email)) HAVING count(*) > 1`, [orgId]);
  for (const row of emails) {
    found.push({ kind: 'email', key: `email:${row.e}`, ids: row.ids, confidence: 100, reasons: [{ kind: 'email', detail: 'Same email address (ignoring case and spaces)' }] });
  }
  const phones = await queryRows<{ id: string; phone: string }>(db, `SELECT id, phone FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL AND phone IS NOT NULL AND trim(phone) <> '' ORDER BY created_at, id`, [orgId]);
  const byPhone = new Map<string, string[]>();
  for (const row of phones) {
    const normalised = phoneE164(row.phone, country) ?? row.phone.replace(/\D/g, '');
    if (normalised.replace(/\D/g, '').length < 6) continue;
    const ids = byPhone.get(normalised) ?? [];
    ids.push(row.id);
    byPhone.set(normalised, ids);
  }
  for (const [phone, ids] of byPhone) {
    if (ids.length > 1) found.push({ kind: 'phone', key: `phone:${phone}`, ids, confidence: 100, reasons: [{ kind: 'phone', detail: 'Same phone number once written in E.164 form' }] });
  }
  return found;
}

export function pairKey(a: string, b: string): string {
  return a < b ? `pair:${a}:${b}` : `pair:${b}:${a}`;
}

async function fuzzyPairs(db: Queryable, orgId: string): Promise<Found[]> {
  // Sound-alike surnames (soundex) form the blocks; within one, names are compared by trigram similarity (pg_trgm).
  const rows = await queryRows<{ a_id: string; b_id: string; sim: number; same_dob: boolean | null; same_pc: boolean | null }>(db, `
    WITH live AS (
      SELECT id, lower(trim(first_name)) AS f, lower(trim(first_name)) || ' ' || lower(trim(last_name)) AS n, soundex(lower(last_name)) AS s, date_of_birth AS dob,
        NULLIF(upper(replace(coalesce(address_postcode, ''), ' ', '')), '') AS pc, NULLIF(lower(trim(coalesce(email, ''))), '') AS e,
        NULLIF(right(regexp_replace(coalesce(phone, ''), '\\D', '', 'g'), 10), '') AS p
      FROM contacts
      WHERE org_id = $1 AND deleted_at IS NULL AND coalesce(trim(first_name), '') <> '' AND coalesce(trim(last_name), '') <> ''
    )
    SELECT a.id AS a_id, b.id AS b_id, similarity(a.n, b.n)::float8 AS sim, (a.dob = b.dob) AS same_dob, (a.pc = b.pc) AS same_pc
    FROM live a JOIN live b ON a.s = b.s AND a.id < b.id
    WHERE similarity(a.n, b.n) >= $2
      -- A long shared surname makes whole names alike: the first names must be alike too (Jon and John, Stephen and Steven).
      AND (a.f = b.f OR levenshtein(a.f, b.f) <= 1 OR (levenshtein(a.f, b.f) <= 2 AND least(length(a.f), length(b.f)) >= 6) OR similarity(a.f, b.f) >= 0.5)
      AND NOT (a.dob IS NOT NULL AND b.dob IS NOT NULL AND a.dob <> b.dob)
      AND NOT (a.e IS NOT NULL AND a.e = b.e)
      AND NOT (a.p IS NOT NULL AND length(a.p) >= 6 AND a.p = b.p)
    ORDER BY sim DESC, a.id, b.id
    LIMIT $3`, [orgId, FUZZY_MIN_SIMILARITY, MAX_FUZZY_PAIRS]);
  const found: Found[] = [];
  for (const row of rows) {
    const confidence = fuzzyConfidence(row.sim, row.same_dob === true, row.same_pc === true);
    if (confidence < FUZZY_MIN_CONFIDENCE) continue;
    const reasons: Found['reasons'] = [{
      kind: 'name', similarity: Math.round(row.sim * 100) / 100,
      detail: `Names ${Math.round(row.sim * 100)}% alike by trigrams, first names alike and surnames sound alike (${Math.round(70 * row.sim)} points)`,
    }];
    if (row.same_dob) reasons.push({ kind: 'date_of_birth', detail: 'Same date of birth (20 points)' });
    if (row.same_pc) reasons.push({ kind: 'postcode', detail: 'Same postcode (10 points)' });
    found.push({ kind: 'fuzzy', key: pairKey(row.a_id, row.b_id), ids: [row.a_id, row.b_id], confidence, reasons });
  }
  return found;
}

async function duplicatesAndScore(db: Queryable, job: JobRow, scanId: string, country: string, state: ScanState): Promise<void> {
  const orgId = job.org_id;
  const found = [...await exactGroups(db, orgId, country), ...await fuzzyPairs(db, orgId)];
  const dismissed = new Set((await queryRows<{ kind: string; match_key: string }>(db,
    'SELECT kind, match_key FROM dq_dismissals WHERE org_id = $1 AND restored_at IS NULL', [orgId])).map((row) => `${row.kind}|${row.match_key}`));
  const isDismissed = (f: Found) => dismissed.has(`${f.kind === 'fuzzy' ? 'pair' : 'group'}|${f.key}`);

  // Retries of this step start again from nothing for this scan.
  await db.query('DELETE FROM dq_duplicates WHERE org_id = $1 AND scan_id = $2', [orgId, scanId]);
  await db.query(`DELETE FROM dq_scan_hits WHERE org_id = $1 AND scan_id = $2 AND check_key IN ('duplicate_email', 'duplicate_phone', 'possible_duplicate')`, [orgId, scanId]);
  if (found.length > 0) {
    await db.query(`INSERT INTO dq_duplicates (id, org_id, scan_id, kind, match_key, contact_ids, confidence, reasons)
      SELECT gen_random_uuid(), $1, $2, t.kind, t.key, ARRAY(SELECT jsonb_array_elements_text(t.ids))::uuid[], t.confidence, t.reasons
      FROM jsonb_to_recordset($3::jsonb) AS t(kind text, key text, ids jsonb, confidence int, reasons jsonb)`,
    [orgId, scanId, JSON.stringify(found)]);
  }
  const hitIds: string[] = [];
  const hitKeys: string[] = [];
  const duplicateContacts = new Set<string>();
  const seen = new Set<string>();
  for (const f of found) {
    if (isDismissed(f)) continue;
    if (f.kind === 'fuzzy' && f.confidence < FUZZY_COUNTED_CONFIDENCE) continue;
    const key: CheckKey = f.kind === 'email' ? 'duplicate_email' : f.kind === 'phone' ? 'duplicate_phone' : 'possible_duplicate';
    for (const id of f.ids) {
      duplicateContacts.add(id);
      if (seen.has(`${key}|${id}`)) continue;
      seen.add(`${key}|${id}`);
      hitIds.push(id);
      hitKeys.push(key);
    }
  }
  if (hitIds.length > 0) {
    await db.query(`INSERT INTO dq_scan_hits (org_id, scan_id, check_key, contact_id)
      SELECT $1, $2, k, c FROM unnest($3::uuid[], $4::text[]) AS t(c, k) ON CONFLICT DO NOTHING`, [orgId, scanId, hitIds, hitKeys]);
  }

  // The review queue: likely pairs (confidence 70+) and phone numbers nobody can read need a person.
  const queueKinds: string[] = [];
  const queueKeys: string[] = [];
  const queueIds: string[] = [];
  const queueSummaries: string[] = [];
  for (const f of found) {
    if (f.kind !== 'fuzzy' || f.confidence < FUZZY_COUNTED_CONFIDENCE || isDismissed(f)) continue;
    queueKinds.push('fuzzy_pair');
    queueKeys.push(f.key);
    queueIds.push(`{${f.ids.join(',')}}`);
    queueSummaries.push(`Likely the same person (confidence ${f.confidence}): merge them or say they are different people`);
  }
  const badPhones = await queryRows<{ contact_id: string }>(db,
    `SELECT contact_id FROM dq_scan_hits WHERE org_id = $1 AND scan_id = $2 AND check_key = 'invalid_phone'`, [orgId, scanId]);
  for (const row of badPhones) {
    queueKinds.push('unparseable_phone');
    queueKeys.push(`contact:${row.contact_id}`);
    queueIds.push(`{${row.contact_id}}`);
    queueSummaries.push('Phone number that cannot be read: correct it by hand (people_update_contact) or remove it');
  }
  if (queueKinds.length > 0) {
    await db.query(`INSERT INTO dq_queue (id, org_id, kind, match_key, contact_ids, summary)
      SELECT gen_random_uuid(), $1, k, m, i::uuid[], s FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS t(k, m, i, s)
      ON CONFLICT (org_id, kind, match_key) WHERE status = 'open' DO NOTHING`, [orgId, queueKinds, queueKeys, queueIds, queueSummaries]);
  }
  // What this scan no longer finds is no longer waiting for anyone.
  await db.query(`UPDATE dq_queue SET status = 'resolved', decision = 'no_longer_found', decided_at = now()
    WHERE org_id = $1 AND status = 'open' AND kind IN ('fuzzy_pair', 'unparseable_phone')
      AND NOT ((kind, match_key) IN (SELECT * FROM unnest($2::text[], $3::text[])))`, [orgId, queueKinds, queueKeys]);

  const counts = await queryRows<{ check_key: string; n: number }>(db,
    'SELECT check_key, count(*)::int AS n FROM dq_scan_hits WHERE org_id = $1 AND scan_id = $2 GROUP BY check_key', [orgId, scanId]);
  const checks = Object.fromEntries(CHECKS.map((c) => [c.key, 0])) as Record<string, number>;
  for (const row of counts) checks[row.check_key] = row.n;
  const figures: ScanFigures = { ...state.tallies, duplicateContacts: duplicateContacts.size };
  const { score, categories } = scoresOf(figures);
  const durationMs = Math.max(0, Date.now() - state.startedMs);
  const groups = found.filter((f) => f.kind !== 'fuzzy' && !isDismissed(f)).length;
  const pairs = found.filter((f) => f.kind === 'fuzzy' && !isDismissed(f)).length;
  await db.query(`UPDATE dq_scans SET contact_count = $3, score = $4, categories = $5, checks = $6, duration_ms = $7, completed_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, scanId, figures.contacts, score, JSON.stringify({ ...categories, figures }), JSON.stringify(checks), durationMs]);
  await db.query(`UPDATE dq_jobs SET status = 'completed', finished_at = now(), done = GREATEST(total, $3), total = GREATEST(total, $3), result = $4
    WHERE org_id = $1 AND id = $2`, [orgId, job.id, figures.contacts, JSON.stringify({ scanId, score, contacts: figures.contacts, duplicateGroups: groups, fuzzyPairs: pairs, durationMs })]);
}
