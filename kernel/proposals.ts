import type { RowOf } from '../modules/kit';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { PROPOSAL_STATUSES, type ProposalDecider, type ProposalExecution, type ProposalProposer, type ProposalStatus } from '../core/approvals';
import { StewardError } from '../core/errors';
import { fn } from 'sequelize';
import { queryOne, queryRows, withTransaction, type Pool, type Queryable } from '../db/pool';
import { withModels } from '../db/sequelize';
import type { ProposalCreated, ProposalDecided } from '../modules/module';
import { registeredModules } from '../modules/registry';
import { argsHashOf } from '../modules/tool';
import { Proposal as ProposalModel } from './models/proposals';

/**
 * Agent proposals: an action (a tool call) that waits for an owner or admin.
 * The row is the record; the proposal-<id> workflow decides, executes and expires it.
 */

/** Pins a proposal's action: approval executes exactly these arguments (the API's idempotency hash). */
export const actionHashOf = argsHashOf;

/** A stable uuid from any text, for ids that a retried step must produce again (e.g. per run and subject). */
export function stableUuid(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const proposalExecutionSchema = z.object({
  status: z.enum(['succeeded', 'failed']),
  workflowId: z.string(),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).strict().optional(),
}).strict();

export const proposalSchema = z.object({
  id: z.uuid(),
  status: z.enum(PROPOSAL_STATUSES),
  summary: z.string(),
  agent: z.string().nullable().describe('The proposing agent, or null when a tool call by a person or assistant needs approval'),
  action: z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) }).strict(),
  proposedByUserId: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedByUserId: z.string().nullable(),
  decidedAt: z.string().nullable(),
  decisionReason: z.string().nullable(),
  execution: proposalExecutionSchema.nullable(),
}).strict();
export type Proposal = z.infer<typeof proposalSchema>;

/** A proposal as stored, under its column names: what getProposalRow gives the API and the approval activities. */
/** A proposal's row; status, arguments and execution as they were checked when written (the model types them loosely). */
type ProposalRow = Pick<RowOf<ProposalModel>, 'id' | 'org_id' | 'summary' | 'agent_key' | 'tool' | 'args_hash' | 'proposed_by_user_id'
  | 'proposed_by_credential_id' | 'created_at' | 'expires_at' | 'decided_by_user_id' | 'decided_at' | 'decision_reason'>
  & { status: ProposalStatus; args: Record<string, unknown>; execution: ProposalExecution | null };

function proposalView(proposal: ProposalModel): Proposal {
  // status, args and execution were checked when written (CHECK constraint, tool schema, proposalExecutionSchema); the model types them loosely.
  return {
    id: proposal.id, status: proposal.status as ProposalStatus, summary: proposal.summary, agent: proposal.agentKey,
    action: { tool: proposal.tool, arguments: proposal.args as Record<string, unknown> }, proposedByUserId: proposal.proposedByUserId,
    createdAt: proposal.createdAt.toISOString(), expiresAt: proposal.expiresAt.toISOString(),
    decidedByUserId: proposal.decidedByUserId, decidedAt: proposal.decidedAt?.toISOString() ?? null,
    decisionReason: proposal.decisionReason, execution: proposal.execution as ProposalExecution | null,
  };
}

/** A proposal to insert: what its creation's hook hears, under the row's own id, and its dedupe key. */
export interface NewProposal extends Omit<ProposalCreated, 'proposalId' | 'proposer'> {
  id: string;
  /** Who asked, as the creation's audit event names them (the credential's kind and scopes, the agent's credential); omitted, the event names what the row holds. */
  proposer?: ProposalProposer | null;
  dedupeKey: string | null;
}

/**
 * Inserts a pending proposal; a second insert of the same id for the same
 * organisation is a no-op (true). False when nothing was inserted for this
 * organisation: another open proposal has the same dedupe key, or the id
 * already belongs to another organisation (whose row is never touched).
 * One transaction: the row and whatever the modules record of it
 * (`proposalCreated`: the audit trail's event) commit together, and only an
 * insert that added the row tells them, so a retry records nothing more.
 */
export async function insertProposal(pool: Pool, input: NewProposal): Promise<boolean> {
  return withTransaction(pool, async (db) => {
    // Ids are unique across organisations, so this one lookup is by id alone; only the owner's own row counts as done.
    const existing = await withModels(db, (transaction) => ProposalModel.findOne({ attributes: ['orgId'], where: { id: input.id }, transaction }));
    if (existing) return existing.orgId === input.orgId;
    // DO NOTHING on the partial unique index of open dedupe keys, and its row count: SQL.
    const result = await db.query(`
      INSERT INTO proposals (id, org_id, agent_key, proposed_by_user_id, proposed_by_credential_id, tool, args, args_hash, summary, dedupe_key, source_run, expires_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
      ON CONFLICT (org_id, dedupe_key) WHERE status = 'pending' AND dedupe_key IS NOT NULL DO NOTHING`,
      [input.id, input.orgId, input.agentKey, input.proposedByUserId, input.proposedByCredentialId, input.tool, JSON.stringify(input.args),
        input.argsHash, input.summary, input.dedupeKey, input.sourceRun, input.expiresAt]);
    if ((result.rowCount ?? 0) === 0) return false;
    const { id, dedupeKey: _dedupeKey, proposer, ...recorded } = input;
    const created: ProposalCreated = { ...recorded, proposalId: id, proposer: proposer ?? null };
    for (const listener of registeredModules().flatMap((module) => (module.proposalCreated ? [module.proposalCreated] : []))) await listener(db, created);
    return true;
  });
}

export async function getProposal(db: Queryable, orgId: string, id: string): Promise<Proposal | undefined> {
  const proposal = await withModels(db, (transaction) => ProposalModel.findOne({ where: { orgId, id }, transaction }));
  return proposal ? proposalView(proposal) : undefined;
}

// Its callers outside this module read the stored columns by name, so this one stays a SQL row.
export async function getProposalRow(db: Queryable, orgId: string, id: string): Promise<ProposalRow | undefined> {
  return queryOne<ProposalRow>(db, 'SELECT * FROM proposals WHERE org_id = $1 AND id = $2', [orgId, id]);
}

/**
 * Reading proposals on someone's behalf: a proposal shows its action's arguments
 * (and, once carried out, its result), so a caller sees only proposals whose
 * action tool they could call themselves. `actionTools` are the names of the
 * tools whose scope the caller holds; any other proposal behaves as missing.
 */
export async function getVisibleProposal(db: Queryable, orgId: string, id: string, actionTools: readonly string[]): Promise<Proposal | undefined> {
  const proposal = await withModels(db, (transaction) => ProposalModel.findOne({ where: { orgId, id, tool: [...actionTools] }, transaction }));
  return proposal ? proposalView(proposal) : undefined;
}

export async function requireVisibleProposal(db: Queryable, orgId: string, id: string, actionTools: readonly string[]): Promise<Proposal> {
  const proposal = await getVisibleProposal(db, orgId, id, actionTools);
  if (!proposal) throw new StewardError('not_found', `Proposal ${id} was not found`, { hint: 'platform_pending_proposals lists open proposals.' });
  return proposal;
}

/** Newest first, only proposals whose action tool is one of `actionTools` (see getVisibleProposal). */
export async function listProposals(
  db: Queryable, orgId: string, filter: { status: ProposalStatus | 'all'; agent?: string; limit: number; actionTools: readonly string[] },
): Promise<Proposal[]> {
  const proposals = await withModels(db, (transaction) => ProposalModel.findAll({
    where: {
      orgId,
      ...(filter.status !== 'all' ? { status: filter.status } : {}),
      ...(filter.agent != null ? { agentKey: filter.agent } : {}),
      tool: [...filter.actionTools],
    },
    order: [['createdAt', 'DESC'], ['id', 'ASC']],
    limit: filter.limit,
    transaction,
  }));
  return proposals.map(proposalView);
}

/**
 * pending → approved | rejected | expired; a decided proposal is never decided again. One transaction:
 * the row's move and whatever the modules record of it (`proposalDecided`: the audit trail's event)
 * commit together, and only the call that made the move tells them, so a retried activity that finds
 * its decision already written records nothing more.
 */
export async function decideProposal(
  pool: Pool, orgId: string, id: string, to: Exclude<ProposalStatus, 'pending'>, decidedBy: ProposalDecider, reason: string | null,
): Promise<Proposal> {
  // decided_by_user_id names the person who decided; the expiry timer and an agent in auto mode are no person.
  const userId = decidedBy.kind === 'credential' ? decidedBy.userId : null;
  await withTransaction(pool, async (db) => {
    const current = await withModels(db, async (transaction) => {
      // Locked (FOR UPDATE), so two deciders cannot both find it pending.
      const row = await ProposalModel.findOne({ where: { orgId, id }, lock: true, transaction });
      if (!row) throw new StewardError('not_found', `Proposal ${id} was not found`);
      if (row.status !== 'pending' && row.status !== to) throw new StewardError('conflict', `Proposal is already ${row.status}`);
      if (row.status === 'pending') {
        await ProposalModel.update({ status: to, decidedByUserId: userId, decidedAt: fn('now'), decisionReason: reason }, { where: { orgId, id }, transaction });
      }
      return row;
    });
    if (current.status !== 'pending') return;
    const decided: ProposalDecided = {
      orgId, proposalId: id, status: to, tool: current.tool, args: current.args as Record<string, unknown>, argsHash: current.argsHash,
      summary: current.summary, agentKey: current.agentKey, proposedByUserId: current.proposedByUserId,
      proposedByCredentialId: current.proposedByCredentialId, reason, decidedBy,
    };
    for (const listener of registeredModules().flatMap((module) => (module.proposalDecided ? [module.proposalDecided] : []))) await listener(db, decided);
  });
  return (await getProposal(pool, orgId, id))!;
}

export async function recordProposalExecution(db: Queryable, orgId: string, id: string, execution: ProposalExecution): Promise<Proposal> {
  await withModels(db, (transaction) => ProposalModel.update({ execution }, { where: { orgId, id }, transaction }));
  return (await getProposal(db, orgId, id))!;
}

/** Subjects that already have an open proposal, or one a person rejected (not proposed again). */
export async function blockedDedupeKeys(db: Queryable, orgId: string, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  // SQL on `db` itself: agent planning runs it on whatever Queryable it is given (test/e2e/approval-queries.test.ts
  // records each statement there to check its organisation filter), which need not be a connection models can use.
  const rows = await queryRows<{ dedupe_key: string }>(db, `
    SELECT DISTINCT dedupe_key FROM proposals WHERE org_id = $1 AND dedupe_key = ANY($2::text[]) AND status IN ('pending', 'rejected')`, [orgId, keys]);
  return new Set(rows.map((row) => row.dedupe_key));
}
