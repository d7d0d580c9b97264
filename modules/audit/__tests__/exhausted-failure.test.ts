import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createToolActivities } from '../../../activities/tool-activities';
import type { Principal } from '../../../core/principal';
import { TOOL_CALL_RETRY, type ToolPlan } from '../../../core/tool-plan';
import { withTransaction, type Pool } from '../../../db/pool';
import { findTool } from '../../catalogue';
import { createOrganisation } from '../../platform/orgs';
import { createMember } from '../../platform/users';
import { argsHashOf, policyOf } from '../../tool';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database';

/**
 * A write that fails for a reason outside the product (here: the connection drops whenever the call
 * looks up its stored result) is retried; only when the retry policy's last attempt fails too is
 * the failure final, and then the trail must say so.
 */
function poolThatDropsResultLookups(pool: Pool): Pool {
  const failing = (client: object) => new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (property !== 'query') return typeof value === 'function' ? value.bind(target) : value;
      return (sql: unknown, ...rest: unknown[]) => {
        const text = typeof sql === 'string' ? sql : (sql as { text?: string } | null)?.text;
        if (text?.includes('FROM tool_call_results')) return Promise.reject(new Error('Connection terminated unexpectedly'));
        return (value as (...args: unknown[]) => unknown).call(target, sql, ...rest);
      };
    },
  });
  return new Proxy(pool, {
    get(target, property) {
      if (property === 'connect') return async () => failing(await target.connect());
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('a write whose infrastructure keeps failing', () => {
  let db: TestDatabase;
  let plan: ToolPlan;

  beforeAll(async () => {
    db = await createTestDatabase();
    const { orgId, userId } = await withTransaction(db.pool, async (tx) => {
      const org = await createOrganisation(tx, { name: 'Flaky Chapel' });
      const owner = await createMember(tx, { orgId: org.id, email: `owner-${org.id}@test.local`, role: 'owner' });
      return { orgId: org.id, userId: owner.userId };
    });
    const tool = findTool('people_create_contact')!;
    const args = { firstName: 'Ada', lastName: 'Lovelace' };
    const principal: Principal = { orgId, userId, role: 'owner', scopes: ['people:write'], intent: null, credentialId: randomUUID(), credentialKind: 'api_key' };
    plan = { tool: tool.name, module: tool.module, args, principal, policy: policyOf(tool, args), argsHash: argsHashOf(tool.name, args) };
  });

  afterAll(async () => {
    await db?.drop();
  });

  const failedEvents = async (workflowId: string) => (await db.pool.query(
    'SELECT tool, outcome, changes FROM audit_events WHERE org_id = $1 AND workflow_id = $2', [plan.principal.orgId, workflowId],
  )).rows;

  it('leaves nothing in the trail while another attempt will follow', async () => {
    const activities = createToolActivities({ pool: poolThatDropsResultLookups(db.pool) });
    const workflowId = `tool-call-${randomUUID()}`;
    const attempt = new MockActivityEnvironment({ attempt: TOOL_CALL_RETRY.maximumAttempts - 1, workflowExecution: { workflowId, runId: randomUUID() } });
    await expect(attempt.run(activities.runTool, plan)).rejects.toThrow('Connection terminated unexpectedly');
    expect(await failedEvents(workflowId)).toEqual([]);
  });

  it('leaves one failed event, coded internal_error, when the last attempt fails', async () => {
    const activities = createToolActivities({ pool: poolThatDropsResultLookups(db.pool) });
    const workflowId = `tool-call-${randomUUID()}`;
    const attempt = new MockActivityEnvironment({ attempt: TOOL_CALL_RETRY.maximumAttempts, workflowExecution: { workflowId, runId: randomUUID() } });
    await expect(attempt.run(activities.runTool, plan)).rejects.toThrow('Connection terminated unexpectedly');
    const events = await failedEvents(workflowId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tool: 'people_create_contact', outcome: 'failed', changes: { fields: { error: { after: 'internal_error' } } } });
    // Nothing of the call itself was written.
    const contacts = await db.pool.query("SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND first_name = 'Ada'", [plan.principal.orgId]);
    expect(contacts.rows[0].n).toBe(0);
  });
});
