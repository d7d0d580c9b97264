import type { Principal } from './principal';
import { toolCallWorkflowId } from './workflow-ids';
import { STAFF_ROLES } from './roles';
import type { ToolPlan } from './tool-plan';

/**
 * Human approval, as plain data shared by the API, the workflows and the
 * activities: states, workflow ids, who may decide, and the shape of the
 * approval routes tools declare on their values.
 */

export const PROPOSAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

export const OUTREACH_STATUSES = ['pending_review', 'approved', 'sent', 'declined', 'cancelled'] as const;
export type OutreachStatus = (typeof OUTREACH_STATUSES)[number];

export const OUTREACH_CHANNELS = ['email', 'sms', 'whatsapp'] as const;
export type OutreachChannel = (typeof OUTREACH_CHANNELS)[number];

export const AUTONOMY_MODES = ['off', 'propose', 'auto'] as const;
export type AutonomyMode = (typeof AUTONOMY_MODES)[number];

export const AUTOMATION_TYPES = ['welfare_check', 'encouragement', 'grief_support'] as const;
export type AutomationType = (typeof AUTOMATION_TYPES)[number];

/** The eleven autonomous agents of spec 4.3, in the order platform_list_agents shows them. */
export const AGENTS = [
  { key: 'people', name: 'People', module: 'people', purpose: 'Finds likely duplicate contacts and proposes merging them.' },
  { key: 'pastoral_care', name: 'Pastoral Care', module: 'people', purpose: 'Finds people with no pastoral contact for 180+ days and proposes welfare outreach.' },
  { key: 'giving', name: 'Giving', module: 'giving', purpose: 'Watches giving patterns (no actions yet).' },
  { key: 'grow', name: 'Grow', module: 'grow', purpose: 'Campaign and growth suggestions (no actions yet).' },
  { key: 'spaces', name: 'Spaces', module: 'spaces', purpose: 'Room and booking housekeeping (no actions yet).' },
  { key: 'ticketing', name: 'Ticketing', module: 'ticketing', purpose: 'Event sales and waitlists (no actions yet).' },
  { key: 'guests', name: 'Guests', module: 'guests', purpose: 'Guest follow-up reminders (no actions yet).' },
  { key: 'runsheet', name: 'Runsheet', module: 'runsheet', purpose: 'Finds open rota places on the next two weeks\' service plans and proposes filling them from free team members.' },
  { key: 'mediahub', name: 'MediaHub', module: 'mediahub', purpose: 'Media publishing suggestions (no actions yet).' },
  { key: 'channels', name: 'Channels', module: 'channels', purpose: 'Messaging hygiene (no actions yet).' },
  { key: 'live', name: 'Live', module: 'live', purpose: 'Live stream checks (no actions yet).' },
] as const;
export type AgentKey = (typeof AGENTS)[number]['key'];

export function isAgentKey(value: string): value is AgentKey {
  return AGENTS.some((agent) => agent.key === value);
}

/** Search-attribute values of StewardKind. */
export type ApprovalKind = 'proposal' | 'outreach' | 'agent' | 'automation';

export const proposalWorkflowId = (proposalId: string) => `proposal-${proposalId}`;
export const outreachWorkflowId = (itemId: string) => `outreach-${itemId}`;
export const agentScheduleId = (orgId: string, agentKey: string) => `agent-${orgId}-${agentKey}`;
export const automationScheduleId = (orgId: string, automationId: string) => `automation-${orgId}-${automationId}`;
/** The child tool call that carries out an approved proposal: one id, so it runs at most once. */
export const proposalActionWorkflowId = (orgId: string, proposalId: string) => toolCallWorkflowId(orgId, `proposal-${proposalId}`);

const OUTREACH_PREFIX = 'outreach-';
export function outreachIdFromWorkflowId(workflowId: string): string | undefined {
  return workflowId.startsWith(OUTREACH_PREFIX) ? workflowId.slice(OUTREACH_PREFIX.length) : undefined;
}

/** Only owners and admins holding platform:write decide agent proposals (spec 3). */
export function mayDecideProposals(principal: Pick<Principal, 'role' | 'scopes'>): boolean {
  return (principal.role === 'owner' || principal.role === 'admin') && principal.scopes.includes('platform:write');
}

/** Pastoral messages are approved by staff and above holding people:write, never by volunteers. */
export function mayDecideOutreach(principal: Pick<Principal, 'role' | 'scopes'>): boolean {
  return STAFF_ROLES.includes(principal.role) && principal.scopes.includes('people:write');
}

/**
 * How a tool belongs to the approval workflows, declared on the tool value
 * (`approval`) instead of being a plain tool call. `update` tools send a
 * Temporal update (a decision) to the item's workflow, named by the argument
 * `idArg`; `gated` tools never run directly: calling one creates a proposal,
 * and the tool runs when an owner or admin approves it; with `when` (a
 * Condition, see ApprovalCondition in modules/tool.ts) only the calls it
 * picks do, and the others run as plain calls.
 */
export type ApprovalRoute<Condition = unknown> =
  | { kind: 'update'; target: 'proposal'; decision: 'approve' | 'reject'; idArg: 'proposalId' }
  | { kind: 'update'; target: 'outreach'; decision: 'approve' | 'decline' | 'cancel' | 'edit'; idArg: 'outreachId' }
  | { kind: 'gated'; when?: Condition };

/** Whether a tool call is an approved proposal's action (its workflow id is fixed by the proposal, and callers cannot choose such ids). */
export function isProposalActionWorkflowId(orgId: string, workflowId: string): boolean {
  return workflowId.startsWith(proposalActionWorkflowId(orgId, ''));
}

/** What a proposal asks to do: a tool call, fixed when proposed (the hash pins the arguments). */
export interface ProposalAction {
  tool: string;
  args: Record<string, unknown>;
  argsHash: string;
}

export interface ProposalSnapshot {
  id: string;
  orgId: string;
  status: ProposalStatus;
  action: ProposalAction;
  summary: string;
  agent: string | null;
  expiresAt: string;
}

export interface ProposalExecution {
  status: 'succeeded' | 'failed';
  workflowId: string;
  result?: unknown;
  error?: { code: string; message: string; hint?: string };
}

/** What the decider is told: a definite answer. */
export interface ProposalDecisionResult {
  proposalId: string;
  status: ProposalStatus;
  execution: ProposalExecution | null;
}

export interface ProposalDecision {
  decision: 'approve' | 'reject';
  principal: Principal;
  reason?: string;
  /** For approvals: the action as a plan under the approver's credential, built and checked by the API. */
  plan?: ToolPlan;
}

/**
 * Who took a proposal out of pending, as its audit event names them: a credential that called approve
 * or reject (a person at the dashboard, or an assistant or key acting for its holder); the proposal's
 * own timer (expiry); or an agent in auto mode approving its own action with its credential, for the
 * organisation's owner. Only the credential's id, kind and scopes travel, never a secret.
 */
export type ProposalDecider =
  | ({ kind: 'credential' } & CredentialActor)
  | { kind: 'expiry' }
  | { kind: 'auto'; agentKey: string; onBehalfOfUserId: string; credentialId: string; scopes: readonly string[] };

/**
 * A person's credential as an audit event names it when the decision it made reaches its record
 * through a workflow rather than the tool activity: the person, the credential's id, kind and scopes
 * (never a secret). `credentialId` and `credentialKind` are null when only the person is known (a step
 * scheduled before the credential was passed to it).
 */
export interface CredentialActor {
  userId: string;
  credentialId: string | null;
  credentialKind: string | null;
  scopes: readonly string[];
}

export function credentialActorOf(principal: Pick<Principal, 'userId' | 'credentialId' | 'credentialKind' | 'scopes'>): CredentialActor {
  return { userId: principal.userId, credentialId: principal.credentialId, credentialKind: principal.credentialKind, scopes: [...principal.scopes] };
}

/** The decider of a decision a principal made (approve or reject). */
export function deciderOf(principal: Pick<Principal, 'userId' | 'credentialId' | 'credentialKind' | 'scopes'>): ProposalDecider {
  return { kind: 'credential', ...credentialActorOf(principal) };
}

/**
 * Who asked for a proposal, as its creation's audit event names them: a credential whose gated call
 * became one (a person at the dashboard, an assistant or a key acting for its holder), or an agent's
 * run with the agent's own credential and the one scope its action needs, for the owner it acts for.
 */
export type ProposalProposer =
  | ({ kind: 'credential' } & CredentialActor)
  | { kind: 'agent'; agentKey: string; onBehalfOfUserId: string | null; credentialId: string; scopes: readonly string[] };

export interface OutreachDecision {
  decision: 'approve' | 'decline' | 'cancel' | 'edit';
  principal: Principal;
  /** Approve: the content version the approver saw. Edit: optional guard against concurrent edits. */
  contentVersion?: number;
  reason?: string;
  changes?: { subject?: string | null; body?: string; channel?: OutreachChannel };
}

/**
 * An outreach item as it crosses the workflow boundary (activity results,
 * update results, query answers). The people module's `OutreachItem` (its
 * zod output) has exactly this shape; modules/people/outreach-delivery.ts
 * checks that at compile time.
 */
export interface OutreachItemRecord {
  id: string;
  contactId: string;
  contactName: string;
  channel: OutreachChannel;
  recipient: string | null;
  subject: string | null;
  body: string;
  contentVersion: number;
  status: OutreachStatus;
  source: 'manual' | 'automation' | 'agent';
  automationId: string | null;
  reason: string | null;
  approvedVersion: number | null;
  approvedAt: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
  /** The contact is on a crisis hold now (read with the item; nothing is sent while it holds). */
  crisisHold: boolean;
  sendError: { code: string; message: string } | null;
  sentAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The part of an outreach item the workflow keeps to validate decisions. */
export interface OutreachState {
  id: string;
  orgId: string;
  status: OutreachStatus;
  contentVersion: number;
  /** Set while a send is under way, so a cancel cannot slip in between. */
  sending: boolean;
  sendError: { code: string; message: string } | null;
}

/**
 * The sendError code of an approved item whose earlier send attempt may have
 * reached a provider that cannot de-duplicate (SMTP) without its answer being
 * recorded. It is not resent automatically; approving it again sends it again.
 */
export const SEND_NEEDS_REVIEW = 'needs_review';

export interface ProposalWorkflowInput {
  orgId: string;
  proposalId: string;
  /** When set, the workflow inserts the proposal row itself (API and gated tools). */
  create?: {
    action: ProposalAction;
    summary: string;
    agent: string | null;
    /** The proposing credential; its kind and scopes name it in the creation's audit event (absent from runs started before they were passed). */
    proposedBy: { userId: string | null; credentialId: string | null; credentialKind?: string | null; scopes?: readonly string[] } | null;
    dedupeKey: string | null;
  };
  /** How long the proposal stays open; the row's expires_at is authoritative once created. */
  ttlMs?: number;
  /** False on a server without Steward's search attributes (the time-skipping test server has no way to register them). */
  searchAttributes?: boolean;
}

/**
 * How the outreach workflow retries its record steps (load, edit, approve, decline, cancel). Shared so a
 * decision step knows its last attempt: a failure that will be tried again is not final and leaves no
 * audit event; the last attempt's does (modules/people/activities/outreach.ts).
 */
export const OUTREACH_RECORD_RETRY = Object.freeze({
  initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20,
});

export interface OutreachWorkflowInput {
  orgId: string;
  itemId: string;
}

export interface AgentRunInput {
  orgId: string;
  agentKey: string;
}

export interface AutomationRunInput {
  orgId: string;
  automationId: string;
}

/** Default period a proposal stays open before it expires. */
export const DEFAULT_PROPOSAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;
