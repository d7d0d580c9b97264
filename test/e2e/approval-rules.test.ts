import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { ApprovalCaller } from '../../api/approvals';
import { decideProposalUpdate, outreachDecisionUpdate } from '../../core/approval-messages';
import { outreachWorkflowId, proposalWorkflowId, type OutreachDecision, type ProposalDecision } from '../../core/approvals';
import { StewardError } from '../../core/errors';
import { stewardErrorBodyOf } from '../../core/failures';
import type { Principal } from '../../core/principal';
import { ALL_SCOPES, type Scope } from '../../core/scopes';
import { withTransaction } from '../../db/pool';
import { findTool } from '../../modules/catalogue';
import { markOutreachApproved } from '../../modules/people/outreach';
import { actionHashOf } from '../../kernel/proposals';
import { policyOf } from '../../modules/tool';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * The approval rules are enforced twice: by the API before it sends a decision, and again by the
 * workflow (and, for the content version, by the database write the workflow makes). Each copy is
 * tested here on its own, so losing either one fails a test: decisions are sent straight to the
 * workflows, bypassing the API, and the API's refusals are checked with a Temporal client that
 * fails any use, so nothing behind the API can be what refused.
 */
describe('approval rules, each copy on its own', () => {
  let harness: Harness;
  let org: TestOrg;
  const approveRecordCalls: string[] = [];

  beforeAll(async () => {
    harness = await Harness.start({
      wrapActivities: (activities) => ({
        ...activities,
        // Counts the workflow's approval writes, to tell a refusal by the workflow from one by the write.
        approveOutreachRecord: async (...args: Parameters<typeof activities.approveOutreachRecord>) => {
          approveRecordCalls.push(args[1]);
          return activities.approveOutreachRecord(...args);
        },
      }),
    });
    org = await harness.createOrg({ name: 'Rules Church' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  const principal = (role: Principal['role'], scopes: readonly Scope[] = ALL_SCOPES): Principal => ({
    orgId: org.orgId, userId: org.ownerUserId, role, scopes: [...scopes], intent: null, credentialId: randomUUID(), credentialKind: 'api_key',
  });

  /** A Temporal client that fails the test if the API reaches for it: the API must refuse on its own. */
  const unreachableTemporal = new Proxy({}, {
    get: (_target, property) => {
      if (property === 'then') return undefined;
      throw new Error(`the API used Temporal (${String(property)}) instead of refusing`);
    },
  }) as Client;

  async function pendingMerge(): Promise<{ proposalId: string; keep: string; merge: string }> {
    const [keep, merge] = [randomUUID(), randomUUID()];
    const email = `dup-${randomUUID()}@example.org`;
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, created_at) VALUES
      ($1, $3, 'Dana', 'Dup', $4, now() - interval '2 days'), ($2, $3, 'Dana', 'Dup', $4, now() - interval '1 day')`, [keep, merge, org.orgId, email]);
    const response = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: keep, mergeContactId: merge, actionSummary: 'Merge Dana' });
    expect(response.body.error?.code).toBe('approval_required');
    return { proposalId: response.body.error!.details.proposalId, keep, merge };
  }

  const proposalStatus = async (id: string) => (await harness.pool.query('SELECT status FROM proposals WHERE id = $1', [id])).rows[0].status as string;
  const mergedAway = async (id: string) => (await harness.pool.query('SELECT deleted_at FROM contacts WHERE id = $1', [id])).rows[0].deleted_at !== null;

  function approvalOf(decider: Principal, args: Record<string, unknown>): ProposalDecision {
    const tool = findTool('people_merge_data_quality_contacts')!;
    return {
      decision: 'approve', principal: decider,
      plan: { tool: tool.name, module: tool.module, args, principal: decider, policy: policyOf(tool), argsHash: actionHashOf(tool.name, args) },
    };
  }

  /** The error code a refusal carries, from the API (a StewardError) or a workflow update (its failure details); else the message. */
  async function refusalOf(work: Promise<unknown>): Promise<string> {
    const error = await work.then(() => undefined, (e: unknown) => e);
    expect(error).toBeDefined();
    if (error instanceof StewardError) return error.code;
    return stewardErrorBodyOf(error)?.code ?? String((error as Error).message);
  }

  describe('proposals', () => {
    it('the workflow refuses a decision from a role that may not decide, sent straight to it', async () => {
      const { proposalId, keep, merge } = await pendingMerge();
      const handle = harness.temporal.workflow.getHandle(proposalWorkflowId(proposalId));
      const refusal = await refusalOf(handle.executeUpdate(decideProposalUpdate, { args: [approvalOf(principal('staff'), { keepContactId: keep, mergeContactId: merge })] }));
      expect(refusal).toBe('forbidden');
      expect(await proposalStatus(proposalId)).toBe('pending');
      expect(await mergedAway(merge)).toBe(false);
    });

    it('the workflow runs only the arguments that were approved, whatever plan it is sent', async () => {
      const { proposalId, keep, merge } = await pendingMerge();
      const handle = harness.temporal.workflow.getHandle(proposalWorkflowId(proposalId));
      // The same tool with the contacts swapped: a consistent plan, but not the action that was proposed.
      const refusal = await refusalOf(handle.executeUpdate(decideProposalUpdate, { args: [approvalOf(principal('owner'), { keepContactId: merge, mergeContactId: keep })] }));
      expect(refusal).toBe('validation_failed');
      expect(await proposalStatus(proposalId)).toBe('pending');
      expect(await mergedAway(keep)).toBe(false);
      expect(await mergedAway(merge)).toBe(false);
    });

    it('a plan whose hash matches but whose arguments were swapped runs the proposed arguments, not the swapped ones', async () => {
      const { proposalId, keep, merge } = await pendingMerge();
      const handle = harness.temporal.workflow.getHandle(proposalWorkflowId(proposalId));
      const forged = approvalOf(principal('owner'), { keepContactId: merge, mergeContactId: keep });
      // The hash of the proposed action, carried by a plan that names the reverse merge.
      forged.plan!.argsHash = (await harness.pool.query('SELECT args_hash FROM proposals WHERE id = $1', [proposalId])).rows[0].args_hash;
      const outcome = await handle.executeUpdate(decideProposalUpdate, { args: [forged] });
      expect(outcome.execution?.status).toBe('succeeded');
      expect(await mergedAway(merge)).toBe(true);
      expect(await mergedAway(keep)).toBe(false);
    });

    it('the API refuses a decider without the role before anything reaches Temporal', async () => {
      const { proposalId, merge } = await pendingMerge();
      const caller = new ApprovalCaller(unreachableTemporal, harness.pool, harness.taskQueue);
      const refusal = await refusalOf(caller.call(principal('staff'), findTool('platform_approve_proposal')!, { proposalId }, {}));
      expect(refusal).toBe('forbidden');
      expect(await proposalStatus(proposalId)).toBe('pending');
      expect(await mergedAway(merge)).toBe(false);
    });
  });

  describe('pastoral outreach', () => {
    async function editedItem(): Promise<{ id: string; version: number }> {
      const contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Olga', lastName: 'Out', email: `olga-${randomUUID()}@example.org` })).contact.id;
      const item = (await harness.call(org.apiKey, 'people_create_outreach', { contactId, channel: 'email', subject: 'Hello', body: 'First text' })).item;
      const edited = (await harness.call(org.apiKey, 'people_edit_outreach', { outreachId: item.id, body: 'Second text' })).item;
      expect(edited.contentVersion).toBe(2);
      return { id: item.id, version: edited.contentVersion };
    }
    const itemStatus = async (id: string) => (await harness.pool.query('SELECT status FROM outreach_items WHERE id = $1', [id])).rows[0].status as string;
    const approve = (decider: Principal, contentVersion: number): OutreachDecision => ({ decision: 'approve', principal: decider, contentVersion });

    it('the workflow refuses approval of an older content version itself, before any write', async () => {
      const { id } = await editedItem();
      const handle = harness.temporal.workflow.getHandle(outreachWorkflowId(id));
      const refusal = await refusalOf(handle.executeUpdate(outreachDecisionUpdate, { args: [approve(principal('owner'), 1)] }));
      expect(refusal).toBe('conflict');
      // Refused by the workflow's own check: the approval write (which checks again) was never attempted.
      expect(approveRecordCalls).not.toContain(id);
      expect(await itemStatus(id)).toBe('pending_review');
    });

    it('the approval write refuses an older content version on its own', async () => {
      const { id } = await editedItem();
      const refusal = await refusalOf(withTransaction(harness.pool, (db) => markOutreachApproved(db, org.orgId, id, 1, org.ownerUserId)));
      expect(refusal).toBe('conflict');
      expect(await itemStatus(id)).toBe('pending_review');
    });

    it('the workflow refuses a volunteer\'s approval sent straight to it', async () => {
      const { id, version } = await editedItem();
      const handle = harness.temporal.workflow.getHandle(outreachWorkflowId(id));
      const refusal = await refusalOf(handle.executeUpdate(outreachDecisionUpdate, { args: [approve(principal('volunteer', ['people:read', 'people:write']), version)] }));
      expect(refusal).toBe('forbidden');
      expect(await itemStatus(id)).toBe('pending_review');
    });

    it('the API refuses a volunteer before anything reaches Temporal', async () => {
      const { id, version } = await editedItem();
      const caller = new ApprovalCaller(unreachableTemporal, harness.pool, harness.taskQueue);
      const refusal = await refusalOf(caller.call(principal('volunteer', ['people:read', 'people:write']), findTool('people_approve_outreach')!, { outreachId: id, contentVersion: version }, {}));
      expect(refusal).toBe('forbidden');
      expect(await itemStatus(id)).toBe('pending_review');
    });
  });
});
