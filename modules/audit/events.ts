import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { ACTOR_KINDS, AUDIT_CATEGORIES } from './record';

/** An audit event as the tools show it. */
export const eventSchema = z.object({
  id: z.string().describe('The event id (audit_get_event)'),
  seq: z.number().int().describe("Its place in the organisation's hash chain"),
  at: z.string(),
  action: z.string().describe('module.noun.verb, e.g. giving.donation.refund'),
  operation: z.string(),
  category: z.enum(AUDIT_CATEGORIES),
  tool: z.string(),
  workflowId: z.string(),
  actor: z.object({
    kind: z.enum(ACTOR_KINDS),
    userId: z.string().nullable(),
    onBehalfOfUserId: z.string().nullable().describe('The person an agent acted for'),
    credentialId: z.string().nullable(),
    credentialKind: z.string().nullable(),
    credentialHash: z.string().nullable().describe('A hash naming the credential; never its secret'),
  }).strict(),
  scopes: z.array(z.string()),
  target: z.object({ type: z.string(), id: z.string() }).strict().nullable(),
  outcome: z.enum(['success', 'denied', 'failed']),
  errorCode: z.string().nullable().describe('For a denied or failed call: the stable error code it met (insufficient_scope, not_found...)'),
  approvalId: z.string().nullable().describe('The approved proposal this call carried out'),
  amountMinor: z.number().int().nullable(),
  currency: z.string().nullable(),
  units: z.number().int().nullable(),
  summary: z.string().nullable().describe('What the assistant said it was doing'),
  changedFields: z.array(z.string()),
  redacted: z.boolean().describe('Personal data removed by an erasure; the fact stays'),
}).strict();
export type EventView = z.infer<typeof eventSchema>;

export interface EventRow {
  id: string; seq: string; at: string; action: string; operation: string; category: string; tool: string; workflow_id: string;
  actor_kind: string; actor_user_id: string | null; on_behalf_of_user_id: string | null; credential_id: string | null; credential_kind: string | null;
  credential_hash: string | null; scopes: string[]; target_type: string | null; target_id: string | null; outcome: string; approval_id: string | null;
  amount_minor: string | null; currency: string | null; units: number | null; action_summary: string | null; changes: { fields?: Record<string, { before?: unknown; after: unknown }>; redacted?: boolean } | null;
  redacted_at: Date | null; prev_hash: string | null; hash: string; personal_digest: string;
}

/** The columns a view needs (id and seq as text: bigints; order by e.seq, never by these aliases). */
export const EVENT_COLUMNS = `id::text, seq::text, to_json(created_at) #>> '{}' AS at, action, operation, category, tool, workflow_id, actor_kind, actor_user_id,
  on_behalf_of_user_id, credential_id, credential_kind, credential_hash, scopes, target_type, target_id, outcome, approval_id, amount_minor::text,
  currency, units, action_summary, changes, redacted_at, prev_hash, hash, personal_digest`;

/** Unsuccessful calls keep the error they met as their `error` field (modules/audit/record.ts, unsuccessfulEventOf). */
function errorCodeOf(row: EventRow): string | null {
  if (row.outcome === 'success') return null;
  const recorded = row.changes?.fields as Record<string, { after?: unknown }> | string[] | undefined;
  if (!recorded || Array.isArray(recorded)) return null;
  const code = recorded.error?.after;
  return typeof code === 'string' ? code : null;
}

export function viewOf(row: EventRow): EventView {
  // A redacted event keeps only the names of its changed fields (a list).
  const recorded = row.changes?.fields as unknown;
  const fields = Array.isArray(recorded) ? recorded.map(String) : recorded && typeof recorded === 'object' ? Object.keys(recorded) : [];
  return {
    id: row.id, seq: Number(row.seq), at: row.at, action: row.action, operation: row.operation, category: row.category as EventView['category'],
    tool: row.tool, workflowId: row.workflow_id,
    actor: {
      kind: row.actor_kind as EventView['actor']['kind'], userId: row.actor_user_id, onBehalfOfUserId: row.on_behalf_of_user_id,
      credentialId: row.credential_id, credentialKind: row.credential_kind, credentialHash: row.credential_hash,
    },
    scopes: row.scopes, target: row.target_type && row.target_id ? { type: row.target_type, id: row.target_id } : null,
    outcome: row.outcome as EventView['outcome'], errorCode: errorCodeOf(row), approvalId: row.approval_id,
    amountMinor: row.amount_minor === null ? null : Number(row.amount_minor), currency: row.currency, units: row.units,
    summary: row.action_summary, changedFields: fields, redacted: row.redacted_at !== null,
  };
}

export interface EventFilters {
  actorUserId?: string;
  onBehalfOfUserId?: string;
  actorKind?: string;
  credentialId?: string;
  actionPrefix?: string;
  tool?: string;
  targetType?: string;
  targetId?: string;
  outcome?: string;
  category?: string;
  approvalId?: string;
  approvedOnly?: boolean;
  from?: string;
  to?: string;
}

/** A page cursor: the last seq shown (events come newest first by chain order). */
export function encodeSeqCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ seq })).toString('base64url');
}

export function decodeSeqCursor(cursor: string): number {
  try {
    const { seq } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { seq?: unknown };
    if (Number.isSafeInteger(seq) && (seq as number) > 0) return seq as number;
  } catch {
    // refused below
  }
  throw new StewardError('validation_failed', 'The cursor is not one this list gave out', {
    hint: 'Pass nextCursor from the previous page unchanged, or omit cursor for the first page.',
    issues: [{ path: 'cursor', message: 'unrecognised cursor' }],
  });
}

/** A LIKE pattern matching the prefix literally. */
function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Where-clauses and values for the filters; `$1` is the organisation. */
export function filterClauses(orgId: string, filters: EventFilters): { clauses: string[]; values: unknown[] } {
  const clauses = ['org_id = $1'];
  const values: unknown[] = [orgId];
  const add = (sql: (n: string) => string, value: unknown) => {
    values.push(value);
    clauses.push(sql(`$${values.length}`));
  };
  if (filters.actorUserId) add((n) => `actor_user_id = ${n}::uuid`, filters.actorUserId);
  if (filters.onBehalfOfUserId) add((n) => `on_behalf_of_user_id = ${n}::uuid`, filters.onBehalfOfUserId);
  if (filters.actorKind) add((n) => `actor_kind = ${n}`, filters.actorKind);
  if (filters.credentialId) add((n) => `credential_id = ${n}::uuid`, filters.credentialId);
  if (filters.actionPrefix) add((n) => `action LIKE ${n}`, prefixPattern(filters.actionPrefix));
  if (filters.tool) add((n) => `tool = ${n}`, filters.tool);
  if (filters.targetType) add((n) => `target_type = ${n}`, filters.targetType);
  if (filters.targetId) add((n) => `target_id = ${n}`, filters.targetId);
  if (filters.outcome) add((n) => `outcome = ${n}`, filters.outcome);
  if (filters.category) add((n) => `category = ${n}`, filters.category);
  if (filters.approvalId) add((n) => `approval_id = ${n}::uuid`, filters.approvalId);
  if (filters.approvedOnly) clauses.push('approval_id IS NOT NULL');
  if (filters.from) add((n) => `created_at >= ${n}::timestamptz`, filters.from);
  if (filters.to) add((n) => `created_at < ${n}::timestamptz`, filters.to);
  return { clauses, values };
}

/** One page, newest first in chain order; the cursor continues below the last seq shown. */
export async function listEvents(db: Queryable, orgId: string, filters: EventFilters, page: { limit: number; cursor?: string }): Promise<{ rows: EventRow[]; nextCursor: string | null }> {
  if (filters.from && filters.to && Date.parse(filters.from) >= Date.parse(filters.to)) {
    throw new StewardError('validation_failed', 'from must be before to', { issues: [{ path: 'from', message: 'after to' }], hint: 'Swap them, or leave one out.' });
  }
  const { clauses, values } = filterClauses(orgId, filters);
  if (page.cursor) {
    values.push(decodeSeqCursor(page.cursor));
    clauses.push(`seq < $${values.length}`);
  }
  values.push(page.limit + 1);
  const rows = await queryRows<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM audit_events e WHERE ${clauses.join(' AND ')} ORDER BY e.seq DESC LIMIT $${values.length}`, values);
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return { rows: shown, nextCursor: rows.length > page.limit && last ? encodeSeqCursor(Number(last.seq)) : null };
}

export async function getEventRow(db: Queryable, orgId: string, eventId: string): Promise<EventRow | undefined> {
  if (!/^[0-9]{1,18}$/.test(eventId)) return undefined;
  return queryOne<EventRow>(db, `SELECT ${EVENT_COLUMNS} FROM audit_events WHERE org_id = $1 AND id = $2::bigint`, [orgId, eventId]);
}

export const approvalSchema = z.object({
  id: z.string(),
  status: z.string(),
  proposedByUserId: z.string().nullable(),
  agent: z.string().nullable(),
  decidedByUserId: z.string().nullable().describe('The person who approved it'),
  decidedAt: z.string().nullable(),
}).strict();
export type ApprovalView = z.infer<typeof approvalSchema>;

/** The proposals behind events (who approved them, when), by id. */
export async function approvalsOf(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, ApprovalView>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await queryRows<{ id: string; status: string; proposed_by_user_id: string | null; agent_key: string | null; decided_by_user_id: string | null; decided_at: string | null }>(db,
    `SELECT id, status, proposed_by_user_id, agent_key, decided_by_user_id, to_json(decided_at) #>> '{}' AS decided_at FROM proposals WHERE org_id = $1 AND id = ANY($2::uuid[])`, [orgId, unique]);
  return new Map(rows.map((row) => [row.id, {
    id: row.id, status: row.status, proposedByUserId: row.proposed_by_user_id, agent: row.agent_key, decidedByUserId: row.decided_by_user_id, decidedAt: row.decided_at,
  }]));
}

export interface ChainCheck {
  ok: boolean;
  checked: number;
  firstSeq: number | null;
  lastSeq: number | null;
  headSeq: number;
  complete: boolean;
  problems: { seq: number; eventId: string; problem: 'hash_mismatch' | 'broken_link' | 'gap' | 'personal_data_altered' | 'missing_after' }[];
}

/**
 * Recomputes each event's hash from its columns and the previous link, in chain order from
 * `fromSeq`, at most `limit` events: a changed column, a removed or inserted event, or altered
 * personal fields (not marked redacted) show as problems. Events before `fromSeq` are trusted
 * (retention removes the oldest; the first event checked anchors the rest).
 */
export async function verifyChain(db: Queryable, orgId: string, fromSeq: number, limit: number): Promise<ChainCheck> {
  const rows = await queryRows<{ id: string; seq: string; hash_ok: boolean; link_ok: boolean | null; gap: boolean | null; personal_ok: boolean }>(db,
    `SELECT id::text, seq::text,
       audit_event_hash(e.prev_hash, e) = e.hash AS hash_ok,
       e.prev_hash = lag(e.hash) OVER w AS link_ok,
       e.seq <> lag(e.seq) OVER w + 1 AS gap,
       (e.redacted_at IS NOT NULL OR audit_personal_digest(e.changes, e.action_summary) = e.personal_digest) AS personal_ok
     FROM audit_events e WHERE e.org_id = $1 AND e.seq >= $2 WINDOW w AS (ORDER BY e.seq) ORDER BY e.seq LIMIT $3`, [orgId, fromSeq, limit]);
  const head = await queryOne<{ seq: string }>(db, 'SELECT seq::text FROM audit_chain_heads WHERE org_id = $1', [orgId]);
  const headSeq = head ? Number(head.seq) : 0;
  const problems: ChainCheck['problems'] = [];
  for (const row of rows) {
    const seq = Number(row.seq);
    if (!row.hash_ok) problems.push({ seq, eventId: row.id, problem: 'hash_mismatch' });
    if (row.gap) problems.push({ seq, eventId: row.id, problem: 'gap' });
    else if (row.link_ok === false) problems.push({ seq, eventId: row.id, problem: 'broken_link' });
    if (!row.personal_ok) problems.push({ seq, eventId: row.id, problem: 'personal_data_altered' });
  }
  const lastSeq = rows.length ? Number(rows[rows.length - 1]!.seq) : null;
  const complete = rows.length < limit;
  // The head remembers the last link written: events missing at the end show here.
  if (complete && (lastSeq ?? 0) < headSeq) problems.push({ seq: (lastSeq ?? 0) + 1, eventId: '', problem: 'missing_after' });
  return { ok: problems.length === 0, checked: rows.length, firstSeq: rows.length ? Number(rows[0]!.seq) : null, lastSeq, headSeq, complete, problems: problems.slice(0, 50) };
}
