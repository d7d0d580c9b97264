import { Context } from '@temporalio/activity';
import {
  DEFAULT_PROPOSAL_TTL_MS, isAgentKey, type AutonomyMode, type ProposalDecider, type ProposalExecution, type ProposalProposer,
  type ProposalSnapshot, type ProposalWorkflowInput,
} from '../core/approvals';
import { StewardError } from '../core/errors';
import type { Principal } from '../core/principal';
import type { ToolPlan } from '../core/tool-plan';
import { queryOne, withTransaction, type Pool } from '../db/pool';
import { findTool } from '../modules/catalogue';
import { generateOutreachForAutomation, getAutomation, recordAutomationRun } from '../modules/people/automations';
import { planAgentActions, recordAgentRun } from '../modules/platform/agents';
import { getOrgSettings } from '../modules/platform/orgs';
import {
  actionHashOf, decideProposal, getProposalRow, insertProposal, recordProposalExecution, stableUuid,
} from '../kernel/proposals';
import { findOwner } from '../modules/platform/users';
import { policyOf } from '../modules/tool';
import { syncAgentSchedules, syncAutomationSchedule } from './schedules';
import { guarded } from '../modules/activity-kit';
import { announceCallProgress } from '../temporal/call-progress-relay';
import { decisionReport, proposalDecisionKey } from '../temporal/proposal-progress';

/**
 * An agent acting on its own (auto mode) acts for the organisation's owner,
 * with exactly the one scope its action needs; its audit rows say `agent`.
 */
async function agentPrincipal(pool: Pool, orgId: string, agentKey: string, scope: Principal['scopes'][number]): Promise<Principal> {
  const owner = await findOwner(pool, orgId);
  if (!owner) throw new StewardError('not_found', 'The organisation has no owner to act for');
  return {
    orgId, userId: owner.userId, role: 'owner', scopes: [scope], intent: null,
    credentialId: agentCredentialId(orgId, agentKey),
    credentialKind: 'agent',
  };
}

/** An agent's own credential id in an organisation: stable, so every run and its audit events name the same one. */
function agentCredentialId(orgId: string, agentKey: string): string {
  return stableUuid(`agent:${orgId}:${agentKey}`);
}

/**
 * Who asked for a proposal the workflow inserts itself: the credential the API passed (its kind and
 * scopes absent from runs started before they were), or the agent named; null when neither is known.
 */
function proposerOf(orgId: string, create: NonNullable<ProposalWorkflowInput['create']>): ProposalProposer | null {
  const by = create.proposedBy;
  if (by?.userId) {
    return { kind: 'credential', userId: by.userId, credentialId: by.credentialId, credentialKind: by.credentialKind ?? null, scopes: [...(by.scopes ?? [])] };
  }
  if (create.agent) return { kind: 'agent', agentKey: create.agent, onBehalfOfUserId: null, credentialId: agentCredentialId(orgId, create.agent), scopes: [] };
  return null;
}

/** Proposal records, read and written by the proposal workflow. */
function createProposalActivities(deps: { pool: Pool }) {
  const { pool } = deps;
  return {
    /** Inserts the proposal when asked to, then reads it; null when an equal proposal is already open. */
    async openProposal(input: ProposalWorkflowInput): Promise<ProposalSnapshot | null> {
      return guarded(async () => {
        if (input.create) {
          const inserted = await insertProposal(pool, {
            id: input.proposalId, orgId: input.orgId, tool: input.create.action.tool, args: input.create.action.args,
            argsHash: input.create.action.argsHash, summary: input.create.summary, agentKey: input.create.agent,
            proposedByUserId: input.create.proposedBy?.userId ?? null, proposedByCredentialId: input.create.proposedBy?.credentialId ?? null,
            proposer: proposerOf(input.orgId, input.create), dedupeKey: input.create.dedupeKey, sourceRun: null, expiresAt: new Date(Date.now() + (input.ttlMs ?? DEFAULT_PROPOSAL_TTL_MS)),
          });
          if (!inserted) return null;
        }
        const row = await getProposalRow(pool, input.orgId, input.proposalId);
        if (!row) throw new StewardError('not_found', `Proposal ${input.proposalId} was not found`);
        return {
          id: row.id, orgId: row.org_id, status: row.status, summary: row.summary, agent: row.agent_key,
          action: { tool: row.tool, args: row.args, argsHash: row.args_hash }, expiresAt: row.expires_at.toISOString(),
        };
      });
    },

    /**
     * `decidedBy` names the credential that approved or rejected (its audit event's actor); a run
     * scheduled before it was passed has the deciding person's id only, and an expiry has no person.
     */
    async decideProposalRecord(
      orgId: string, proposalId: string, to: 'approved' | 'rejected' | 'expired', userId: string | null, reason: string | null, decidedBy?: ProposalDecider,
    ): Promise<void> {
      const decider: ProposalDecider = decidedBy ?? (to === 'expired' || userId === null
        ? { kind: 'expiry' }
        : { kind: 'credential', userId, credentialId: null, credentialKind: null, scopes: [] });
      await guarded(() => decideProposal(pool, orgId, proposalId, to, decider, reason));
      // Then tells it to a caller waiting on the proposal (its next stage: running the action, or its end).
      await announceCallProgress(pool, proposalDecisionKey(proposalId), decisionReport(to));
    },

    async recordProposalExecution(orgId: string, proposalId: string, execution: ProposalExecution): Promise<void> {
      await guarded(() => recordProposalExecution(pool, orgId, proposalId, execution));
    },
  };
}

/** Agent and automation runs, and keeping their schedules in line. */
function createAgentActivities(deps: { pool: Pool }) {
  const { pool } = deps;
  return {
    /**
     * One agent run's work. Off: nothing. Propose: the proposals are inserted here
     * (ids derived from the run and subject, so a retry inserts nothing new) and
     * the workflow starts one proposal workflow each. Auto: plans to execute now.
     */
    async planAgentRun(input: { orgId: string; agentKey: string; runId: string }): Promise<{
      autonomy: AutonomyMode;
      proposals: Array<{ proposalId: string; summary: string }>;
      plans: Array<{ plan: ToolPlan; summary: string; proposalId: string }>;
      ttlMs: number;
    }> {
      return guarded(async () => {
        if (!isAgentKey(input.agentKey)) throw new StewardError('not_found', `Unknown agent ${input.agentKey}`);
        const row = await queryOne<{ autonomy: AutonomyMode }>(pool, 'SELECT autonomy FROM agents WHERE org_id = $1 AND agent_key = $2', [input.orgId, input.agentKey]);
        const autonomy = row?.autonomy ?? 'off';
        const ttlMs = DEFAULT_PROPOSAL_TTL_MS;
        if (autonomy === 'off') return { autonomy, proposals: [], plans: [], ttlMs };
        const org = await getOrgSettings(pool, input.orgId);
        const actions = await planAgentActions(pool, org, input.agentKey);
        const proposals: Array<{ proposalId: string; summary: string }> = [];
        const plans: Array<{ plan: ToolPlan; summary: string; proposalId: string }> = [];
        // The agent proposes for the organisation's owner (as it acts for them in auto mode), with its own credential.
        const ownerUserId = actions.length > 0 ? (await findOwner(pool, input.orgId))?.userId ?? null : null;
        for (const action of actions) {
          const tool = findTool(action.tool);
          if (!tool) continue;
          const proposalId = stableUuid(`${input.runId}:${action.dedupeKey}`);
          const argsHash = actionHashOf(action.tool, action.args);
          const inserted = await insertProposal(pool, {
            id: proposalId, orgId: input.orgId, tool: action.tool, args: action.args, argsHash, summary: action.summary,
            agentKey: input.agentKey, proposedByUserId: null, proposedByCredentialId: null, dedupeKey: action.dedupeKey,
            proposer: { kind: 'agent', agentKey: input.agentKey, onBehalfOfUserId: ownerUserId, credentialId: agentCredentialId(input.orgId, input.agentKey), scopes: [tool.scope] },
            sourceRun: input.runId, expiresAt: new Date(Date.now() + ttlMs),
          });
          if (!inserted) continue;
          if (autonomy === 'propose') {
            proposals.push({ proposalId, summary: action.summary });
          } else {
            // Auto: the proposal row is the record of what the agent did; it is approved by the agent itself, for the owner.
            const principal = await agentPrincipal(pool, input.orgId, input.agentKey, tool.scope);
            await decideProposal(pool, input.orgId, proposalId, 'approved', {
              kind: 'auto', agentKey: input.agentKey, onBehalfOfUserId: principal.userId, credentialId: principal.credentialId, scopes: principal.scopes,
            }, `Carried out automatically by the ${input.agentKey} agent (auto mode)`);
            plans.push({
              proposalId, summary: action.summary,
              plan: { tool: tool.name, module: tool.module, args: action.args, principal, policy: policyOf(tool, action.args), argsHash },
            });
          }
        }
        return { autonomy, proposals, plans, ttlMs };
      });
    },

    async recordAgentRun(orgId: string, agentKey: string, status: string, summary: string): Promise<void> {
      await guarded(() => recordAgentRun(pool, orgId, agentKey, status, summary));
    },

    async runAutomation(input: { orgId: string; automationId: string; runId: string }): Promise<{ enabled: boolean; itemIds: string[]; skipped: number }> {
      return guarded(async () => {
        const automation = await getAutomation(pool, input.orgId, input.automationId);
        if (!automation || !automation.enabled) return { enabled: false, itemIds: [], skipped: 0 };
        const org = await getOrgSettings(pool, input.orgId);
        const { items, skipped } = await withTransaction(pool, (db) => generateOutreachForAutomation(db, org, automation, { sourceRun: input.runId, createdByUserId: null }));
        return { enabled: true, itemIds: items.map((item) => item.id), skipped: skipped.length };
      });
    },

    async recordAutomationRun(orgId: string, automationId: string, status: string, generated: number): Promise<void> {
      await guarded(() => recordAutomationRun(pool, orgId, automationId, status, generated));
    },

    async syncAgentSchedules(orgId: string, ifMissing = false): Promise<number> {
      return guarded(() => syncAgentSchedules(Context.current().client, pool, orgId, Context.current().info.taskQueue, ifMissing));
    },

    async syncAutomationSchedule(orgId: string, automationId: string): Promise<string> {
      return guarded(() => syncAutomationSchedule(Context.current().client, pool, orgId, automationId, Context.current().info.taskQueue));
    },
  };
}

export function createApprovalActivities(deps: { pool: Pool }) {
  return { ...createProposalActivities(deps), ...createAgentActivities(deps) };
}

export type ApprovalActivities = ReturnType<typeof createApprovalActivities>;
