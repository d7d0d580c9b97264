import { createHash } from 'node:crypto';
import { proposalActionWorkflowId, type CredentialActor, type ProposalDecider } from '../../core/approvals';
import type { ToolPlan } from '../../core/tool-plan';
import { namedStatement, queryNamed, type Queryable } from '../../db/pool';
import type { ProposalCreated, ProposalDecided } from '../module';
import type { AnyTool, AuditChanges } from '../tool';

/**
 * The audit event of one write tool call, derived from the call itself so no module has to
 * remember to write one: the kernel inserts it in the call's transaction (activities/tool-activities.ts),
 * one INSERT, whose trigger links it into the organisation's hash chain.
 */
export interface AuditEventRow {
  orgId: string;
  tool: string;
  workflowId: string;
  action: string;
  operation: string;
  category: AuditCategory;
  actorKind: ActorKind;
  actorUserId: string | null;
  onBehalfOfUserId: string | null;
  credentialId: string | null;
  credentialKind: string | null;
  credentialHash: string | null;
  scopes: string[];
  targetType: string | null;
  targetId: string | null;
  changes: AuditChanges | null;
  contactIds: string[];
  outcome: 'success' | 'denied' | 'failed';
  approvalId: string | null;
  amountMinor: number | null;
  currency: string | null;
  units: number | null;
  actionSummary: string | null;
}

export const AUDIT_CATEGORIES = ['general', 'finance', 'pastoral', 'access', 'export'] as const;
export type AuditCategory = (typeof AUDIT_CATEGORIES)[number];
export const ACTOR_KINDS = ['human', 'agent', 'system', 'webhook'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** Modules whose records are financial (kept six years plus the current one). */
const FINANCE_MODULES = new Set(['giving', 'store', 'billing', 'ticketing']);
const PASTORAL_TOOL = /pastoral|prayer|care|safeguard|life_event|visit|crisis|grief/;

/** Verbs by the operation they are. */
const OPERATIONS: Record<string, string> = {
  create: 'create', add: 'create', record: 'create', import: 'create', duplicate: 'create', invite: 'create', upsert: 'upsert',
  update: 'update', set: 'update', adjust: 'update', edit: 'update', rename: 'update', move: 'update', merge: 'update', assign: 'update', confirm: 'update', commit: 'update', close: 'update', open: 'update', approve: 'decide', reject: 'decide', decline: 'decide', decide: 'decide',
  delete: 'delete', remove: 'delete', archive: 'delete', cancel: 'delete', revoke: 'delete', erase: 'delete', void: 'delete', restore: 'restore',
  send: 'send', broadcast: 'send', schedule: 'schedule', refund: 'refund', export: 'export', submit: 'submit',
};

/** Input keys whose values are secrets or message bodies: kept by reference (a digest) only. */
const BY_REFERENCE = /(secret|password|token|apikey|api_key|^key$|body|html|^text$|message|content|template|signature)/i;
/** Fields the call's framing carries, not the record's. */
const FRAMING = new Set(['actionSummary', 'cursor', 'limit', 'idempotencyKey']);

/** `giving_refund_donation` → `giving.donation.refund`; a tool named by its module alone keeps the rest as the noun. */
export function actionOf(tool: string, module: string): string {
  const rest = tool.startsWith(`${module}_`) ? tool.slice(module.length + 1) : tool;
  const [verb, ...noun] = rest.split('_');
  return noun.length === 0 ? `${module}.${verb}` : `${module}.${noun.join('_')}.${verb}`;
}

export function operationOf(tool: string, module: string): string {
  const rest = tool.startsWith(`${module}_`) ? tool.slice(module.length + 1) : tool;
  return OPERATIONS[rest.split('_')[0]] ?? 'execute';
}

export function categoryOf(tool: string, module: string): AuditCategory {
  if (FINANCE_MODULES.has(module)) return 'finance';
  if (module === 'people' && PASTORAL_TOOL.test(tool)) return 'pastoral';
  return 'general';
}

/**
 * Who acted: a person at the dashboard is a human; an API key, an OAuth client (an assistant) or an
 * autonomous agent's run is an agent acting for the person who holds the credential.
 */
export function actorKindOf(credentialKind: string | null): ActorKind {
  return credentialKind === 'dashboard' ? 'human' : 'agent';
}

/** A credential is named by its id and a hash of it (the secret is never at hand here, and never stored). */
export function credentialHashOf(credentialId: string | null): string | null {
  return credentialId ? createHash('sha256').update(`steward-credential:${credentialId}`).digest('hex').slice(0, 32) : null;
}

/** The proposal a call carries out, when its workflow is an approved proposal's action. */
export function approvalIdOf(orgId: string, workflowId: string): string | null {
  const prefix = proposalActionWorkflowId(orgId, '');
  return workflowId.startsWith(prefix) ? workflowId.slice(prefix.length) || null : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function reference(value: unknown): { ref: string } {
  return { ref: `sha256:${createHash('sha256').update(JSON.stringify(value) ?? '').digest('hex').slice(0, 32)}` };
}

/** A value as the trail keeps it: secrets and bodies by reference, long text and big lists cut short. */
function kept(key: string, value: unknown): unknown {
  if (value === undefined) return undefined;
  if (BY_REFERENCE.test(key) && value !== null) return reference(value);
  if (typeof value === 'string' && value.length > 500) return `${value.slice(0, 500)}…`;
  if (Array.isArray(value) && value.length > 50) return { count: value.length, ref: reference(value).ref };
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const item = kept(k, v);
      if (item !== undefined) out[k] = item;
    }
    return out;
  }
  return value;
}

/** Contact ids the call names (its arguments' contact fields): whose erasure redacts this event. */
export function contactIdsOf(args: Record<string, unknown>): string[] {
  const found = new Set<string>();
  const visit = (key: string, value: unknown, depth: number) => {
    if (depth > 3) return;
    const isContactKey = /contactid/i.test(key) || /contactids/i.test(key);
    if (typeof value === 'string' && isContactKey && UUID.test(value)) found.add(value.toLowerCase());
    else if (Array.isArray(value)) value.forEach((item) => visit(isContactKey ? key : '', item, depth + 1));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value as Record<string, unknown>)) visit(k, v, depth + 1);
  };
  for (const [key, value] of Object.entries(args)) visit(key, value, 0);
  return [...found].slice(0, 100);
}

/**
 * What the call acted on: the tool's own declaration; else the id argument named after the tool's
 * noun (`donationId` for giving_refund_donation); else the first id argument; else the first record
 * the result holds (a created thing).
 */
export function targetOf(tool: AnyTool, args: Record<string, unknown>, result: unknown): { type: string; id: string } | null {
  const declared = tool.audit?.target?.(args as never, result as never);
  if (declared !== undefined) return declared;
  const noun = tool.name.slice(tool.module.length + 1).split('_').slice(1).join('_');
  const camel = noun.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  const idKeys = Object.keys(args).filter((key) => key.endsWith('Id') && typeof args[key] === 'string' && key !== 'batchId');
  const named = idKeys.find((key) => key === `${camel}Id`) ?? idKeys.find((key) => camel.endsWith(key.slice(0, -2).replace(/^./, (c) => c.toUpperCase())) || key.slice(0, -2) === camel);
  const key = named ?? idKeys[0];
  if (key) return { type: key.slice(0, -2).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), id: String(args[key]) };
  if (result && typeof result === 'object') {
    for (const [name, value] of Object.entries(result as Record<string, unknown>)) {
      if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { id?: unknown }).id === 'string') {
        return { type: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), id: (value as { id: string }).id };
      }
    }
  }
  return null;
}

/** The changed fields: the tool's declaration (with previous values) when it has one, else the arguments as after values. */
export function changesOf(tool: AnyTool, args: Record<string, unknown>, result: unknown, before: Record<string, unknown> | null): AuditChanges | null {
  const after = tool.audit?.after ? tool.audit.after(args as never, result as never) : Object.fromEntries(Object.entries(args).filter(([key]) => !FRAMING.has(key)));
  const fields: AuditChanges['fields'] = {};
  for (const [key, value] of Object.entries(after)) {
    const entry: { before?: unknown; after: unknown } = { after: kept(key, value) ?? null };
    if (before && Object.prototype.hasOwnProperty.call(before, key)) entry.before = kept(key, before[key]) ?? null;
    fields[key] = entry;
  }
  return Object.keys(fields).length === 0 ? null : { fields };
}

function moneyOf(args: Record<string, unknown>, result: unknown, tool: AnyTool): { amountMinor: number | null; currency: string | null } {
  const declared = tool.audit?.money?.(args as never, result as never);
  if (declared) return declared;
  const amount = args.amount;
  return Number.isSafeInteger(amount) ? { amountMinor: amount as number, currency: typeof args.currency === 'string' ? args.currency : null } : { amountMinor: null, currency: null };
}

/** The event of a committed write call. */
export function auditEventOf(plan: ToolPlan, tool: AnyTool, workflowId: string, result: unknown, before: Record<string, unknown> | null): AuditEventRow {
  const { principal } = plan;
  const args = plan.args;
  const target = targetOf(tool, args, result);
  const money = moneyOf(args, result, tool);
  return {
    orgId: principal.orgId,
    tool: plan.tool,
    workflowId,
    action: actionOf(tool.name, tool.module),
    operation: operationOf(tool.name, tool.module),
    category: tool.audit?.category ?? categoryOf(tool.name, tool.module),
    actorKind: actorKindOf(principal.credentialKind),
    actorUserId: principal.userId,
    onBehalfOfUserId: principal.credentialKind === 'dashboard' ? null : principal.userId,
    credentialId: principal.credentialId,
    credentialKind: principal.credentialKind,
    credentialHash: credentialHashOf(principal.credentialId),
    scopes: [...principal.scopes].sort(),
    targetType: target?.type ?? null,
    targetId: target?.id ?? null,
    changes: changesOf(tool, args, result, before),
    contactIds: [...new Set([...contactIdsOf(args), ...(target?.type === 'contact' && UUID.test(target.id) ? [target.id.toLowerCase()] : [])])],
    outcome: 'success',
    approvalId: approvalIdOf(principal.orgId, workflowId),
    amountMinor: money.amountMinor,
    currency: money.currency,
    units: plan.policy.meter?.units ?? null,
    actionSummary: typeof args.actionSummary === 'string' ? args.actionSummary : null,
  };
}

/** The access event of a read that showed restricted records: which (by id), of whom, by whom; never their contents. */
export function accessEventOf(plan: ToolPlan, tool: AnyTool, workflowId: string, access: { target: { type: string; id: string }; records: string[] }): AuditEventRow {
  const base = auditEventOf({ ...plan, args: {} }, { ...tool, audit: undefined }, workflowId, null, null);
  const contactIds = access.target.type === 'contact' && UUID.test(access.target.id) ? [access.target.id.toLowerCase()] : [];
  return {
    ...base, action: `${actionOf(tool.name, tool.module)}`, operation: 'access', category: 'access', targetType: access.target.type, targetId: access.target.id,
    changes: { fields: { records: { after: access.records.slice(0, 200) } } }, contactIds, units: null,
  };
}

/**
 * Refusals by policy (scope, intent, role, allowance, spend cap, subscription) are `denied`; every
 * other stable error a write meets (not found, conflict, a rule of the module) is `failed`.
 */
const DENIAL_CODES = new Set(['insufficient_scope', 'forbidden', 'allowance_exceeded', 'spend_cap_reached', 'subscription_inactive']);

export function outcomeOfErrorCode(code: string): 'denied' | 'failed' {
  return DENIAL_CODES.has(code) ? 'denied' : 'failed';
}

/**
 * The event of a write call that did not happen: who tried, with which credential and scopes, and
 * the stable error code it met (as the `error` field). A call refused before it ran (no workflow,
 * arguments never parsed) keeps no arguments; one that failed inside its workflow keeps the values it
 * attempted, as a success would, under the outcome that says they were not applied.
 */
export function unsuccessfulEventOf(plan: ToolPlan, tool: AnyTool, workflowId: string, errorCode: string): AuditEventRow {
  // The tool's own target and change declarations read its result, which a call that did not happen has not got.
  const base = auditEventOf(plan, { ...tool, audit: tool.audit?.category ? { category: tool.audit.category } : undefined }, workflowId, null, null);
  const fields = { ...(base.changes?.fields ?? {}), error: { after: errorCode } };
  return { ...base, outcome: outcomeOfErrorCode(errorCode), changes: { fields }, units: null };
}

const COLUMNS = ['org_id', 'tool', 'workflow_id', 'action', 'operation', 'category', 'actor_kind', 'actor_user_id', 'on_behalf_of_user_id',
  'credential_id', 'credential_kind', 'credential_hash', 'scopes', 'target_type', 'target_id', 'changes', 'contact_ids', 'outcome',
  'approval_id', 'amount_minor', 'currency', 'units', 'action_summary'] as const;
/** Every write's event goes through it, so it is prepared once per connection (see namedStatement). */
const INSERT_EVENT = namedStatement('insert-audit-event', `INSERT INTO audit_events (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_c, i) => `$${i + 1}`).join(', ')})`);

/** One INSERT; the chain trigger sets seq, prev_hash, personal_digest and hash. */
export async function insertAuditEvent(db: Queryable, row: AuditEventRow): Promise<void> {
  await queryNamed(db, INSERT_EVENT, [row.orgId, row.tool, row.workflowId, row.action, row.operation, row.category, row.actorKind, row.actorUserId,
    row.onBehalfOfUserId, row.credentialId, row.credentialKind, row.credentialHash, row.scopes, row.targetType, row.targetId,
    row.changes === null ? null : JSON.stringify(row.changes), row.contactIds, row.outcome, row.approvalId, row.amountMinor, row.currency,
    row.units, row.actionSummary]);
}

/**
 * A change no tool call made: a payment provider's signed webhook, one of Steward's own timers
 * and jobs (a checkout that expired, a booking released), or a person on a dashboard page that
 * writes directly (an API key made or revoked). `source` names what made it (the
 * provider's event id, the job's workflow id) and takes the workflow column's place; `channel`
 * takes the tool column's (`webhook:payments`, `job:checkout_expiry`).
 */
export interface OutsideChange {
  orgId: string;
  actorKind: 'webhook' | 'system' | 'human';
  /** The person, for a human actor. */
  actorUserId?: string | null;
  /** The person whose decision a job carried out (a held message a person released). */
  onBehalfOfUserId?: string | null;
  channel: string;
  source: string;
  module: string;
  /** The record's noun and what happened to it: `order` + `pay` gives the action `store.order.pay`. */
  noun: string;
  verb: string;
  target: { type: string; id: string } | null;
  fields: Record<string, unknown>;
  /** The changed fields' values before the change (kept as `before` beside each field's `after`). */
  previous?: Record<string, unknown>;
  /** What the change amounted to: a job that recorded a delivery the provider refused is `failed`; `success` by default. */
  outcome?: 'success' | 'failed';
  amountMinor?: number | null;
  currency?: string | null;
  contactIds?: readonly string[];
}

export function outsideChangeEventOf(change: OutsideChange): AuditEventRow {
  const fields: AuditChanges['fields'] = {};
  const previous = change.previous ?? {};
  for (const [key, value] of Object.entries(change.fields)) {
    const item = kept(key, value);
    if (item === undefined) continue;
    fields[key] = Object.prototype.hasOwnProperty.call(previous, key) ? { before: kept(key, previous[key]) ?? null, after: item } : { after: item };
  }
  return {
    orgId: change.orgId,
    tool: change.channel.slice(0, 100),
    workflowId: change.source.slice(0, 255),
    action: `${change.module}.${change.noun}.${change.verb}`,
    operation: OPERATIONS[change.verb] ?? 'update',
    // The noun stands in for the tool's name: a people record that is pastoral (a safeguarding check) is kept as pastoral.
    category: categoryOf(change.noun, change.module),
    actorKind: change.actorKind,
    actorUserId: change.actorUserId ?? null,
    onBehalfOfUserId: change.onBehalfOfUserId ?? null,
    credentialId: null,
    credentialKind: null,
    credentialHash: null,
    scopes: [],
    targetType: change.target?.type ?? null,
    targetId: change.target?.id ?? null,
    changes: Object.keys(fields).length === 0 ? null : { fields },
    contactIds: [...new Set((change.contactIds ?? []).filter((id) => UUID.test(id)).map((id) => id.toLowerCase()))],
    outcome: change.outcome ?? 'success',
    approvalId: null,
    amountMinor: change.amountMinor ?? null,
    currency: change.currency ?? null,
    units: null,
    actionSummary: null,
  };
}

const DECISION_VERBS = { approved: 'approve', rejected: 'reject', expired: 'expire' } as const;

/**
 * Who a proposal decision's event names, and what stands in its tool column. A credential's decision
 * is carried out by the approve or reject tool (the dashboard page calls the same tools), with the
 * actor as a tool call would name it; the expiry timer and an agent in auto mode are the system, the
 * latter with the agent's own credential and scopes, for the owner it acts for.
 */
function deciderColumns(decider: ProposalDecider, verb: string): ActorColumns {
  switch (decider.kind) {
    case 'credential':
      return credentialColumns(decider, `platform_${verb}_proposal`);
    case 'auto':
      return {
        tool: 'job:agent_run', actorKind: 'system', actorUserId: null, onBehalfOfUserId: decider.onBehalfOfUserId,
        credentialId: decider.credentialId, credentialKind: 'agent', credentialHash: credentialHashOf(decider.credentialId), scopes: [...decider.scopes].sort(),
      };
    case 'expiry':
      return { tool: 'job:proposal_expiry', actorKind: 'system', actorUserId: null, onBehalfOfUserId: null, credentialId: null, credentialKind: null, credentialHash: null, scopes: [] };
  }
}

/** What a proposal's events say of the action it is about: kept as long as the action's own records would be, with its amount and the contacts its arguments name. */
function proposalActionColumns(tool: string, args: Record<string, unknown>): Pick<AuditEventRow, 'category' | 'contactIds' | 'amountMinor' | 'currency'> {
  const actionModule = tool.split('_')[0] ?? 'platform';
  const amount = args.amount;
  return {
    category: categoryOf(tool, actionModule),
    contactIds: contactIdsOf(args),
    amountMinor: Number.isSafeInteger(amount) ? amount as number : null,
    currency: Number.isSafeInteger(amount) && typeof args.currency === 'string' ? args.currency : null,
  };
}

function changesOfFields(fields: Record<string, unknown>, first: AuditChanges['fields']): AuditChanges {
  const changes: AuditChanges = { fields: { ...first } };
  for (const [key, value] of Object.entries(fields)) changes.fields[key] = { after: kept(key, value) ?? null };
  return changes;
}

/**
 * The event of a proposal leaving pending (`platform.proposal.approve`, `.reject`, `.expire`): who
 * decided, the action it was about (tool, arguments' hash, the proposing agent or person and
 * credential) and the outcome as the status it moved to. Kept as long as the action's own records
 * would be (a refund's decision is finance). The arguments themselves stay on the proposal; the
 * contacts they name are listed, so erasing one redacts this event too.
 */
export function proposalDecisionEventOf(decided: ProposalDecided, source: string): AuditEventRow {
  const verb = DECISION_VERBS[decided.status];
  const fields: Record<string, unknown> = {
    tool: decided.tool, argsHash: decided.argsHash, agent: decided.agentKey,
    proposedByUserId: decided.proposedByUserId, proposedByCredentialId: decided.proposedByCredentialId,
    ...(decided.reason !== null ? { reason: decided.reason } : {}),
  };
  return {
    orgId: decided.orgId,
    ...deciderColumns(decided.decidedBy, verb),
    workflowId: source.slice(0, 255),
    action: `platform.proposal.${verb}`,
    operation: 'decide',
    ...proposalActionColumns(decided.tool, decided.args),
    targetType: 'proposal',
    targetId: decided.proposalId,
    changes: changesOfFields(fields, { status: { before: 'pending', after: decided.status } }),
    outcome: 'success',
    // approval_id marks events that carried an approval out (audit_list_agent_actions approvedOnly); a decision carries none out.
    approvalId: null,
    units: null,
    actionSummary: decided.summary || null,
  };
}

type ActorColumns = Pick<AuditEventRow, 'tool' | 'actorKind' | 'actorUserId' | 'onBehalfOfUserId' | 'credentialId' | 'credentialKind' | 'credentialHash' | 'scopes'>;

/** A credential acting for its holder, as a tool call by it would name them. */
function credentialColumns(actor: CredentialActor, tool: string): ActorColumns {
  return {
    tool, actorKind: actorKindOf(actor.credentialKind), actorUserId: actor.userId,
    onBehalfOfUserId: actor.credentialKind === 'dashboard' ? null : actor.userId,
    credentialId: actor.credentialId, credentialKind: actor.credentialKind, credentialHash: credentialHashOf(actor.credentialId), scopes: [...actor.scopes].sort(),
  };
}

/**
 * Who a proposal's creation names. A gated call's credential, as the call itself would be named (the
 * tool column holds the tool it called, which did not run); an agent's run, the agent with its own
 * credential for the owner it acts for (`job:agent_run`); else what the row holds.
 */
function proposerColumns(created: ProposalCreated): ActorColumns {
  const { proposer } = created;
  if (proposer?.kind === 'credential') return credentialColumns(proposer, created.tool);
  if (proposer?.kind === 'agent') {
    return {
      tool: 'job:agent_run', actorKind: 'agent', actorUserId: null, onBehalfOfUserId: proposer.onBehalfOfUserId,
      credentialId: proposer.credentialId, credentialKind: 'agent', credentialHash: credentialHashOf(proposer.credentialId), scopes: [...proposer.scopes].sort(),
    };
  }
  const known = created.agentKey !== null || created.proposedByUserId !== null;
  return {
    tool: created.agentKey !== null ? 'job:agent_run' : created.tool, actorKind: known ? 'agent' : 'system', actorUserId: created.proposedByUserId,
    onBehalfOfUserId: created.proposedByUserId, credentialId: created.proposedByCredentialId, credentialKind: null,
    credentialHash: credentialHashOf(created.proposedByCredentialId), scopes: [],
  };
}

/**
 * The event of a proposal created (`platform.proposal.create`): who asked (the gated call's credential
 * or the agent), for whom, the action (tool and arguments' hash; the arguments stay on the proposal,
 * the contacts they name are listed so erasing one redacts this event) and when it expires unless
 * decided. Kept as long as the action's own records would be, as its decision is.
 */
export function proposalCreationEventOf(created: ProposalCreated, source: string): AuditEventRow {
  const fields: Record<string, unknown> = {
    tool: created.tool, argsHash: created.argsHash, agent: created.agentKey,
    proposedByUserId: created.proposedByUserId, proposedByCredentialId: created.proposedByCredentialId,
    expiresAt: created.expiresAt.toISOString(),
  };
  return {
    orgId: created.orgId,
    ...proposerColumns(created),
    workflowId: source.slice(0, 255),
    action: 'platform.proposal.create',
    operation: 'create',
    ...proposalActionColumns(created.tool, created.args),
    targetType: 'proposal',
    targetId: created.proposalId,
    changes: changesOfFields(fields, { status: { after: 'pending' } }),
    outcome: 'success',
    approvalId: null,
    units: null,
    actionSummary: created.summary || null,
  };
}

/**
 * A decision a credential made whose tool goes to a workflow rather than the tool activity (the
 * outreach decisions): the event its call would leave, written where the decision is applied.
 * `fields` are the changed values after, `previous` their values before; bodies go by reference.
 */
export interface WorkflowDecision {
  orgId: string;
  /** The decision's tool (`people_approve_outreach`) and its module: the action and operation follow from them as for a call. */
  tool: string;
  module: string;
  /** Null when the step that applied it was scheduled before the deciding credential was passed to it: the event names no one. */
  actor: CredentialActor | null;
  workflowId: string;
  target: { type: string; id: string };
  contactIds: readonly string[];
  fields: Record<string, unknown>;
  previous?: Record<string, unknown>;
  /**
   * Set for a decision that was refused (the stable error code it met): the event is `denied` or
   * `failed` as a tool call's would be, with the code as its `error` field beside what `fields` keeps.
   */
  errorCode?: string;
}

export function workflowDecisionEventOf(decision: WorkflowDecision): AuditEventRow {
  const fields: AuditChanges['fields'] = {};
  for (const [key, value] of Object.entries(decision.fields)) {
    const entry: { before?: unknown; after: unknown } = { after: kept(key, value) ?? null };
    if (decision.previous && Object.prototype.hasOwnProperty.call(decision.previous, key)) entry.before = kept(key, decision.previous[key]) ?? null;
    fields[key] = entry;
  }
  if (decision.errorCode !== undefined) fields.error = { after: decision.errorCode };
  return {
    orgId: decision.orgId,
    ...(decision.actor ? credentialColumns(decision.actor, decision.tool) : {
      tool: decision.tool, actorKind: actorKindOf(null), actorUserId: null, onBehalfOfUserId: null, credentialId: null, credentialKind: null, credentialHash: null, scopes: [],
    }),
    workflowId: decision.workflowId.slice(0, 255),
    action: actionOf(decision.tool, decision.module),
    operation: operationOf(decision.tool, decision.module),
    category: categoryOf(decision.tool, decision.module),
    targetType: decision.target.type,
    targetId: decision.target.id,
    changes: Object.keys(fields).length === 0 ? null : { fields },
    contactIds: decision.contactIds.map((id) => id.toLowerCase()),
    outcome: decision.errorCode === undefined ? 'success' : outcomeOfErrorCode(decision.errorCode),
    approvalId: null,
    amountMinor: null,
    currency: null,
    units: null,
    actionSummary: null,
  };
}
