import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound } from '../../kit';
import { displayNameOf } from '../display-name';
import { mergeContacts, type MergeResult } from '../merge';
import { pairKey } from './scan';
import { CATEGORIES, CHECKS, OVERALL_FORMULA, type CategoryScore, type CheckKey } from './rules';

/** Readers of the newest completed scan, dismissals, the review queue, and the merge of a pair a scan found. */

interface ScanRow {
  id: string;
  job_id: string;
  contact_count: number;
  score: number;
  categories: Record<string, CategoryScore> & { figures?: Record<string, number> };
  checks: Record<string, number>;
  duration_ms: number;
  completed_at: Date;
}

export async function latestScan(db: Queryable, orgId: string): Promise<ScanRow | undefined> {
  return queryOne<ScanRow>(db, `SELECT id, job_id, contact_count, score, categories, checks, duration_ms, completed_at FROM dq_scans
    WHERE org_id = $1 AND completed_at IS NOT NULL ORDER BY completed_at DESC, id DESC LIMIT 1`, [orgId]);
}

export function requireScanned(scan: ScanRow | undefined): ScanRow {
  if (!scan) {
    throw new StewardError('not_found', 'No data quality scan has finished yet', { hint: 'Start one with people_run_data_quality_scan and follow it with people_get_data_quality_job.' });
  }
  return scan;
}

export async function summary(db: Queryable, orgId: string, historyLimit: number) {
  const scan = await latestScan(db, orgId);
  const history = await queryRows<{ id: string; score: number; contact_count: number; completed_at: Date; categories: Record<string, CategoryScore> }>(db,
    `SELECT id, score, contact_count, completed_at, categories FROM dq_scans WHERE org_id = $1 AND completed_at IS NOT NULL
     ORDER BY completed_at DESC, id DESC LIMIT $2`, [orgId, historyLimit]);
  return {
    scanned: scan !== undefined,
    scanId: scan?.id ?? null,
    scannedAt: scan ? new Date(scan.completed_at).toISOString() : null,
    contacts: scan?.contact_count ?? 0,
    score: scan?.score ?? null,
    formula: OVERALL_FORMULA,
    categories: CATEGORIES.map((key) => {
      const category = scan?.categories[key];
      return {
        category: key,
        score: category?.score ?? null,
        formula: category?.formula ?? null,
        figures: category?.figures ?? {},
        explanation: category?.explanation ?? null,
      };
    }),
    history: history.map((row) => ({
      scanId: row.id, score: row.score, contacts: row.contact_count, scannedAt: new Date(row.completed_at).toISOString(),
      categories: Object.fromEntries(CATEGORIES.map((key) => [key, row.categories[key]?.score ?? 0])) as Record<(typeof CATEGORIES)[number], number>,
    })),
  };
}

export function checksOfScan(scan: ScanRow | undefined) {
  return CHECKS.map((check) => ({
    key: check.key, category: check.category, title: check.title, fix: check.fix,
    affected: scan ? scan.checks[check.key] ?? 0 : 0,
  }));
}

export async function affectedContacts(db: Queryable, orgId: string, checkKey: CheckKey, limit: number, offset: number) {
  const scan = requireScanned(await latestScan(db, orgId));
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; detail: string | null; full_count: number }>(db,
    `SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, h.detail, count(*) OVER ()::int AS full_count
     FROM dq_scan_hits h JOIN contacts c ON c.org_id = h.org_id AND c.id = h.contact_id AND c.deleted_at IS NULL
     WHERE h.org_id = $1 AND h.scan_id = $2 AND h.check_key = $3 ORDER BY c.id LIMIT $4 OFFSET $5`, [orgId, scan.id, checkKey, limit, offset]);
  return {
    scanId: scan.id, checkKey, total: rows[0]?.full_count ?? 0,
    contacts: rows.map((row) => ({ contactId: row.id, name: displayNameOf(row), detail: row.detail })),
  };
}

// ---------------------------------------------------------------- duplicates

interface DupRow {
  id: string; kind: 'email' | 'phone' | 'fuzzy'; match_key: string; contact_ids: string[]; confidence: number;
  reasons: Array<{ kind: string; detail: string; similarity?: number }>; dismissal_id: string | null; full_count: number;
}

interface ContactBrief {
  contactId: string; name: string; email: string | null; phone: string | null; postcode: string | null; dateOfBirth: string | null; createdAt: string;
}

async function briefs(db: Queryable, orgId: string, ids: string[]): Promise<Map<string, ContactBrief>> {
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null;
    phone: string | null; address_postcode: string | null; date_of_birth: string | null; created_at: Date }>(db,
    `SELECT id, first_name, last_name, preferred_name, email, phone, address_postcode, date_of_birth::text AS date_of_birth, created_at
     FROM contacts WHERE org_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL`, [orgId, ids]);
  return new Map(rows.map((row) => [row.id, {
    contactId: row.id, name: displayNameOf(row), email: row.email, phone: row.phone, postcode: row.address_postcode,
    dateOfBirth: row.date_of_birth, createdAt: new Date(row.created_at).toISOString(),
  }]));
}

/** Groups (kind email | phone) or pairs (fuzzy) of the newest scan, dismissed ones left out unless asked for; members no longer live are dropped. */
export async function listDuplicates(db: Queryable, orgId: string, options: { fuzzy: boolean; minConfidence: number; includeDismissed: boolean; limit: number; offset: number }) {
  const scan = requireScanned(await latestScan(db, orgId));
  const rows = await queryRows<DupRow>(db, `SELECT d.id, d.kind, d.match_key, d.contact_ids, d.confidence, d.reasons, x.id AS dismissal_id,
      count(*) OVER ()::int AS full_count
    FROM dq_duplicates d
    LEFT JOIN dq_dismissals x ON x.org_id = d.org_id AND x.kind = (CASE WHEN d.kind = 'fuzzy' THEN 'pair' ELSE 'group' END) AND x.match_key = d.match_key AND x.restored_at IS NULL
    WHERE d.org_id = $1 AND d.scan_id = $2 AND (d.kind = 'fuzzy') = $3 AND d.confidence >= $4 AND ($5 OR x.id IS NULL)
    ORDER BY d.confidence DESC, cardinality(d.contact_ids) DESC, d.match_key LIMIT $6 OFFSET $7`,
  [orgId, scan.id, options.fuzzy, options.minConfidence, options.includeDismissed, options.limit, options.offset]);
  const people = await briefs(db, orgId, [...new Set(rows.flatMap((row) => row.contact_ids))]);
  return {
    scanId: scan.id,
    total: rows[0]?.full_count ?? 0,
    items: rows.map((row) => {
      const contacts = row.contact_ids.map((id) => people.get(id)).filter((c): c is ContactBrief => c !== undefined);
      return {
        id: row.id, kind: row.kind, confidence: row.confidence,
        reason: row.reasons.map((r) => r.detail).join('; '),
        reasons: row.reasons.map((r) => ({ kind: r.kind, detail: r.detail, ...(r.similarity !== undefined ? { similarity: r.similarity } : {}) })),
        dismissed: row.dismissal_id !== null,
        // Fewer than two left: merged or deleted since the scan.
        stillDuplicate: contacts.length >= 2,
        contacts,
      };
    }),
  };
}

/** Dismisses groups or pairs by their ids in any scan: the dismissal names what they matched on, so later scans keep them dismissed. */
export async function dismiss(db: Queryable, orgId: string, userId: string | null, fuzzy: boolean, ids: string[], reason: string | undefined) {
  const rows = await queryRows<{ id: string; kind: string; match_key: string }>(db,
    `SELECT id, kind, match_key FROM dq_duplicates WHERE org_id = $1 AND id = ANY($2::uuid[])`, [orgId, ids]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const id of ids) {
    const row = byId.get(id);
    if (!row || (row.kind === 'fuzzy') !== fuzzy) {
      throw notFound(fuzzy ? 'Fuzzy pair' : 'Duplicate group', id, fuzzy ? 'List pairs with people_list_data_quality_fuzzy_pairs.' : 'List groups with people_list_data_quality_duplicates.');
    }
  }
  const kind = fuzzy ? 'pair' : 'group';
  let dismissed = 0;
  for (const key of [...new Set(rows.map((row) => row.match_key))]) {
    const inserted = await db.query(`INSERT INTO dq_dismissals (id, org_id, kind, match_key, reason, dismissed_by) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (org_id, kind, match_key) WHERE restored_at IS NULL DO NOTHING`, [randomUUID(), orgId, kind, key, reason ?? null, userId]);
    dismissed += inserted.rowCount ?? 0;
    if (fuzzy) {
      await db.query(`UPDATE dq_queue SET status = 'dismissed', decision = 'not_duplicate', decided_by = $3, decided_at = now()
        WHERE org_id = $1 AND kind = 'fuzzy_pair' AND match_key = $2 AND status = 'open'`, [orgId, key, userId]);
    }
  }
  return { dismissed, alreadyDismissed: new Set(rows.map((row) => row.match_key)).size - dismissed };
}

export async function restoreDismissals(db: Queryable, orgId: string, input: { dismissalIds?: string[]; all?: boolean; kind?: 'group' | 'pair' }) {
  if (input.dismissalIds) {
    const found = await queryRows<{ id: string }>(db, 'SELECT id FROM dq_dismissals WHERE org_id = $1 AND id = ANY($2::uuid[])', [orgId, input.dismissalIds]);
    const known = new Set(found.map((row) => row.id));
    const missing = input.dismissalIds.find((id) => !known.has(id));
    if (missing) throw notFound('Dismissal', missing, 'List dismissals with people_get_data_quality_dismissed_counts.');
  }
  const restored = await db.query(`UPDATE dq_dismissals SET restored_at = now() WHERE org_id = $1 AND restored_at IS NULL
    AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[])) AND ($3::text IS NULL OR kind = $3)`, [orgId, input.dismissalIds ?? null, input.kind ?? null]);
  return { restored: restored.rowCount ?? 0 };
}

export async function dismissedCounts(db: Queryable, orgId: string, limit: number) {
  const counts = await queryRows<{ kind: string; n: number }>(db,
    'SELECT kind, count(*)::int AS n FROM dq_dismissals WHERE org_id = $1 AND restored_at IS NULL GROUP BY kind', [orgId]);
  const recent = await queryRows<{ id: string; kind: 'group' | 'pair'; match_key: string; reason: string | null; created_at: Date }>(db,
    `SELECT id, kind, match_key, reason, created_at FROM dq_dismissals WHERE org_id = $1 AND restored_at IS NULL ORDER BY created_at DESC, id LIMIT $2`, [orgId, limit]);
  const of = (kind: string) => counts.find((row) => row.kind === kind)?.n ?? 0;
  return {
    groups: of('group'), pairs: of('pair'),
    dismissals: recent.map((row) => ({
      dismissalId: row.id, kind: row.kind,
      // A group's key says what it matched on (email:…, phone:…); a pair's names its two contacts.
      matchedOn: row.kind === 'pair' ? 'fuzzy' : row.match_key.split(':')[0],
      contactIds: row.kind === 'pair' ? row.match_key.split(':').slice(1) : [],
      reason: row.reason, dismissedAt: new Date(row.created_at).toISOString(),
    })),
  };
}

/**
 * Merges two contacts a scan showed together (a group or a pair, its members listed with their
 * fields: the preview), through the people module's merge service. Locks in merge.ts make two
 * merges of the same pair at once merge once: the second finds the duplicate gone (not_found).
 */
export async function mergeViaDashboard(db: Queryable, orgId: string, userId: string | null,
  input: { duplicateId: string; keepContactId: string; mergeContactId: string; fieldChoices?: Record<string, 'keep' | 'merge'> }): Promise<MergeResult> {
  const found = await queryOne<{ kind: string; match_key: string; contact_ids: string[] }>(db,
    'SELECT kind, match_key, contact_ids FROM dq_duplicates WHERE org_id = $1 AND id = $2', [orgId, input.duplicateId]);
  if (!found) throw notFound('Duplicate group or pair', input.duplicateId, 'List them with people_list_data_quality_duplicates or people_list_data_quality_fuzzy_pairs.');
  for (const [path, id] of [['keepContactId', input.keepContactId], ['mergeContactId', input.mergeContactId]] as const) {
    if (!found.contact_ids.includes(id)) {
      throw new StewardError('validation_failed', `Contact ${id} is not in that ${found.kind === 'fuzzy' ? 'pair' : 'group'}`, {
        issues: [{ path, message: 'must be one of the contacts the group or pair lists' }],
      });
    }
  }
  const result = await mergeContacts(db, orgId, input.keepContactId, input.mergeContactId, userId, input.fieldChoices ?? {});
  await db.query(`UPDATE dq_queue SET status = 'resolved', decision = 'merged', decided_by = $3, decided_at = now()
    WHERE org_id = $1 AND kind = 'fuzzy_pair' AND match_key = $2 AND status = 'open'`, [orgId, pairKey(input.keepContactId, input.mergeContactId), userId]);
  return result;
}

// ---------------------------------------------------------------- review queue

interface QueueRow {
  id: string; kind: string; match_key: string; contact_ids: string[]; summary: string; details: Record<string, unknown>; status: 'open' | 'resolved' | 'dismissed';
  decision: string | null; note: string | null; decided_at: Date | null; created_at: Date; full_count?: number;
}

async function queueView(db: Queryable, orgId: string, rows: QueueRow[]) {
  const people = await briefs(db, orgId, [...new Set(rows.flatMap((row) => row.contact_ids.slice(0, 20)))]);
  return rows.map((row) => ({
    id: row.id, kind: row.kind, summary: row.summary, status: row.status, decision: row.decision, note: row.note,
    contactCount: row.contact_ids.length,
    contacts: row.contact_ids.slice(0, 20).map((id) => people.get(id)).filter((c): c is ContactBrief => c !== undefined),
    createdAt: new Date(row.created_at).toISOString(), decidedAt: row.decided_at ? new Date(row.decided_at).toISOString() : null,
  }));
}

export async function listQueue(db: Queryable, orgId: string, filter: { status: string; kind?: string; limit: number; offset: number }) {
  const rows = await queryRows<QueueRow>(db, `SELECT *, count(*) OVER ()::int AS full_count FROM dq_queue
    WHERE org_id = $1 AND status = $2 AND ($3::text IS NULL OR kind = $3) ORDER BY created_at DESC, id LIMIT $4 OFFSET $5`,
  [orgId, filter.status, filter.kind ?? null, filter.limit, filter.offset]);
  return { total: rows[0]?.full_count ?? 0, items: await queueView(db, orgId, rows) };
}

/** A person's decision on a queue item: resolve (dealt with) or dismiss (for a likely pair: they are different people, dismissed for good). */
export async function reviewQueueItem(db: Queryable, orgId: string, userId: string | null, input: { itemId: string; decision: 'resolve' | 'dismiss'; note?: string }) {
  const row = await queryOne<QueueRow>(db, 'SELECT * FROM dq_queue WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, input.itemId]);
  if (!row) throw notFound('Review queue item', input.itemId, 'List the queue with people_list_data_quality_queue.');
  if (row.status !== 'open') {
    throw new StewardError('conflict', `The item was already decided (${row.status}${row.decision ? `: ${row.decision}` : ''})`, { hint: 'List open items with people_list_data_quality_queue.' });
  }
  if (input.decision === 'dismiss' && row.kind === 'fuzzy_pair') {
    await db.query(`INSERT INTO dq_dismissals (id, org_id, kind, match_key, reason, dismissed_by) VALUES ($1, $2, 'pair', $3, $4, $5)
      ON CONFLICT (org_id, kind, match_key) WHERE restored_at IS NULL DO NOTHING`, [randomUUID(), orgId, row.match_key, input.note ?? 'Not the same person (review queue)', userId]);
  }
  const updated = await queryOne<QueueRow>(db, `UPDATE dq_queue SET status = $3, decision = $4, note = $5, decided_by = $6, decided_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`,
  [orgId, input.itemId, input.decision === 'resolve' ? 'resolved' : 'dismissed', input.decision === 'dismiss' && row.kind === 'fuzzy_pair' ? 'not_duplicate' : input.decision, input.note ?? null, userId]);
  return (await queueView(db, orgId, [updated!]))[0];
}

export async function openQueueCount(db: Queryable, orgId: string): Promise<number> {
  return (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM dq_queue WHERE org_id = $1 AND status = 'open'`, [orgId]))?.n ?? 0;
}
