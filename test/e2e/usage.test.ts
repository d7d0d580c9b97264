import { METERED_FEATURES } from '../../core/billing';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { isDeterministicDatabaseError, toFailure } from '../../modules/activity-kit';
import { StewardError } from '../../core/errors';
import type { ToolPlan } from '../../core/tool-plan';
import { Harness, type TestOrg } from '../helpers/harness';

/** Per workflow id: how many times each wrapped activity ran, and on which attempts. */
const attempts = new Map<string, { recordUsage: number[]; runTool: number[] }>();
function track(activity: 'recordUsage' | 'runTool'): number {
  const info = Context.current().info;
  const id = info.workflowExecution!.workflowId;
  const entry = attempts.get(id) ?? { recordUsage: [], runTool: [] };
  entry[activity].push(info.attempt);
  attempts.set(id, entry);
  return info.attempt;
}

/** Contacts whose email starts with this fail runTool once, after it has committed. */
const RUN_TOOL_LOST_ACK = 'lost-ack-run';

describe('metered usage, retries and allowances', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start({
      wrapActivities: (a) => ({
        ...a,
        recordUsage: async (plan: ToolPlan) => {
          const attempt = track('recordUsage');
          const recorded = await a.recordUsage(plan);
          // The write happened, but the worker "loses" the acknowledgement, so Temporal retries.
          if (attempt === 1) throw new Error('lost ack');
          return recorded;
        },
        runTool: async (plan: ToolPlan) => {
          const attempt = track('runTool');
          const result = await a.runTool(plan);
          if (attempt === 1 && String(plan.args.email ?? '').startsWith(RUN_TOOL_LOST_ACK)) throw new Error('lost ack after commit');
          return result;
        },
      }),
    });
    org = await harness.createOrg({ name: 'Metered Church' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  const count = async (sql: string, params: unknown[]) => (await harness.pool.query(sql, params)).rows[0].n as number;

  it('records usage exactly once when the recording activity is retried', async () => {
    const key = `usage-${Date.now()}`;
    const { status, body } = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'metered@example.org' }, { 'Idempotency-Key': key });
    expect(status).toBe(200);
    const workflowId = `call-${org.orgId}-${key}`;
    // The recording really was retried: attempt 1 failed after writing, attempt 2 succeeded.
    expect(attempts.get(workflowId)?.recordUsage).toEqual([1, 2]);
    const rows = await harness.pool.query('SELECT feature, units, tool, org_id FROM usage_events WHERE idempotency_key = $1', [workflowId]);
    expect(rows.rows).toEqual([{ feature: 'contacts', units: 1, tool: 'people_create_contact', org_id: org.orgId }]);
    expect(await count('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND email = $2', [org.orgId, 'metered@example.org'])).toBe(1);
    expect(body.result.contact.email).toBe('metered@example.org');
  });

  it('each metered call adds exactly one usage row, keyed by its own workflow id, on every path', async () => {
    const orgRows = () => count('SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1', [org.orgId]);
    const before = await orgRows();
    const keys = [`one-row-${Date.now()}-a`, `one-row-${Date.now()}-b`];
    for (const [i, key] of keys.entries()) {
      const { status } = await harness.invoke(org.apiKey, 'people_create_contact', { email: `one-row-${i}@example.org` }, { 'Idempotency-Key': key });
      expect(status).toBe(200);
      expect(await orgRows()).toBe(before + i + 1);
      expect(await count('SELECT count(*)::int AS n FROM usage_events WHERE idempotency_key = $1', [`call-${org.orgId}-${key}`])).toBe(1);
    }
    await harness.call(org.apiKey, 'platform_execute_workflow_tool', { toolName: 'people_create_contact', arguments: { email: 'one-row-inner@example.org' } });
    expect(await orgRows()).toBe(before + keys.length + 1);
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const result = await mcp.callTool({ name: 'people_create_contact', arguments: { email: 'one-row-mcp@example.org' } });
      expect(result.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
    expect(await orgRows()).toBe(before + keys.length + 2);
  });

  it('unmetered tools never record usage', async () => {
    const before = await count('SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1', [org.orgId]);
    const { contact } = await harness.call(org.apiKey, 'people_create_contact', { email: 'unmetered-target@example.org' });
    await harness.call(org.apiKey, 'people_get_contact', { contactId: contact.id });
    await harness.call(org.apiKey, 'people_update_contact', { contactId: contact.id, firstName: 'Una' });
    await harness.call(org.apiKey, 'people_add_note', { contactId: contact.id, content: 'Unmetered note' });
    expect(await count('SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1', [org.orgId])).toBe(before + 1);
  });

  it('a runTool retried after its commit creates exactly one contact and returns the first result', async () => {
    const key = `runtool-${Date.now()}`;
    const email = `${RUN_TOOL_LOST_ACK}@example.org`;
    const { status, body } = await harness.invoke(org.apiKey, 'people_create_contact', { email, firstName: 'Retry', lastName: 'Once' }, { 'Idempotency-Key': key });
    expect(status).toBe(200);
    const workflowId = `call-${org.orgId}-${key}`;
    expect(attempts.get(workflowId)?.runTool).toEqual([1, 2]);
    const rows = await harness.pool.query('SELECT id FROM contacts WHERE org_id = $1 AND email = $2', [org.orgId, email]);
    expect(rows.rows).toEqual([{ id: body.result.contact.id }]);
    expect(await count('SELECT count(*)::int AS n FROM usage_events WHERE idempotency_key = $1', [workflowId])).toBe(1);
    expect(await count('SELECT count(*)::int AS n FROM audit_events WHERE workflow_id = $1', [workflowId])).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM timeline_entries WHERE org_id = $1 AND source_id = $2 AND kind = 'contact_created'", [org.orgId, body.result.contact.id])).toBe(1);
  });

  describe('allowance', () => {
    let small: TestOrg;

    beforeAll(async () => {
      small = await harness.createOrg({ name: 'Small Chapel' });
      await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'contacts', 2)", [small.orgId]);
    });

    const contacts = () => count('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND deleted_at IS NULL', [small.orgId]);

    it('refuses a contact beyond the allowance with 402 allowance_exceeded, writing nothing', async () => {
      await harness.call(small.apiKey, 'people_create_contact', { email: 'one@example.org' });
      await harness.call(small.apiKey, 'people_create_contact', { email: 'two@example.org' });
      expect(await contacts()).toBe(2);
      const usageBefore = await count('SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1', [small.orgId]);

      const third = await harness.invoke(small.apiKey, 'people_create_contact', { email: 'three@example.org' });
      expect(third.status).toBe(402);
      expect(third.body.ok).toBe(false);
      expect(third.body.error).toMatchObject({
        code: 'allowance_exceeded',
        details: { feature: 'contacts', used: 2, limit: 2, requested: 1 },
        hint: expect.stringContaining('platform_usage'),
      });
      expect(await contacts()).toBe(2);
      expect(await count('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1', [small.orgId])).toBe(2);
      expect(await count('SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1', [small.orgId])).toBe(usageBefore);
      // The other organisation is unaffected by Small Chapel's allowance.
      await harness.call(org.apiKey, 'people_create_contact', { email: 'three@example.org' });
    });

    it('also through platform_execute_workflow_tool and MCP', async () => {
      const viaExecute = await harness.invoke(small.apiKey, 'platform_execute_workflow_tool', { toolName: 'people_create_contact', arguments: { email: 'exec@example.org' } });
      expect(viaExecute.status).toBe(402);
      expect(viaExecute.body.error!.code).toBe('allowance_exceeded');
      const mcp = await harness.mcpClient(small.apiKey);
      try {
        const result = await mcp.callTool({ name: 'people_create_contact', arguments: { email: 'mcp@example.org' } });
        expect(result.isError).toBe(true);
        expect(JSON.parse((result.content as any)[0].text).error.code).toBe('allowance_exceeded');
      } finally {
        await mcp.close();
      }
      expect(await contacts()).toBe(2);
    });

    it('platform_usage reflects usage against the allowance', async () => {
      const usage = await harness.call(small.apiKey, 'platform_usage', {});
      expect(usage.plan).toBe('starter');
      const byFeature = Object.fromEntries(usage.features.map((f: any) => [f.feature, f]));
      expect(byFeature.contacts).toEqual({ feature: 'contacts', used: 2, limit: 2, remaining: 0, period: 'standing' });
      expect(byFeature.email_sends).toEqual({ feature: 'email_sends', used: 0, limit: 2000, remaining: 2000, period: 'month' });
      expect(usage.features).toHaveLength(METERED_FEATURES.length);
    });

    it('contacts are a standing allowance: deleting one frees a place', async () => {
      const listed = await harness.call(small.apiKey, 'people_list_contacts', {});
      await harness.call(small.apiKey, 'people_delete_contact', { contactId: listed.contacts[0].id });
      const usage = await harness.call(small.apiKey, 'platform_usage', {});
      expect(usage.features.find((f: any) => f.feature === 'contacts')).toMatchObject({ used: 1, remaining: 1 });
      await harness.call(small.apiKey, 'people_create_contact', { email: 'replacement@example.org' });
      expect(await contacts()).toBe(2);
      expect((await harness.invoke(small.apiKey, 'people_create_contact', { email: 'over@example.org' })).status).toBe(402);
    });

    it('concurrent creates never overshoot the allowance', async () => {
      await harness.pool.query("UPDATE org_allowance_overrides SET monthly_limit = 4 WHERE org_id = $1 AND feature = 'contacts'", [small.orgId]);
      const responses = await Promise.all(Array.from({ length: 6 }, (_, i) =>
        harness.invoke(small.apiKey, 'people_create_contact', { email: `race-${i}@example.org` })));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 402, 402, 402, 402]);
      expect(await contacts()).toBe(4);
    });

    it('platform_usage counts metered usage for the other organisation', async () => {
      const usage = await harness.call(org.apiKey, 'platform_usage', {});
      const live = await count('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND deleted_at IS NULL', [org.orgId]);
      expect(usage.features.find((f: any) => f.feature === 'contacts')).toEqual({ feature: 'contacts', used: live, limit: 500, remaining: 500 - live, period: 'standing' });
    });
  });
});

describe('which activity failures are retried', () => {
  const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

  it('stable tool errors fail at once with their code and body', () => {
    const failure = toFailure(new StewardError('not_found', 'Contact x was not found', { hint: 'search first' }));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'not_found', nonRetryable: true, details: [{ code: 'not_found', message: 'Contact x was not found', hint: 'search first' }] });
  });

  it.each(['23502', '23514', '22P02', '22007', '42P10', '42703'])('deterministic database error %s fails at once as internal_error, without its details', (code) => {
    expect(isDeterministicDatabaseError(pgError(code))).toBe(true);
    const failure = toFailure(pgError(code)) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('internal_error');
    expect(failure.nonRetryable).toBe(true);
    expect(JSON.stringify(failure.details)).not.toContain(`pg ${code}`);
  });

  it('an output that breaks the tool\'s schema fails at once', () => {
    let zodError: unknown;
    try {
      z.object({ id: z.string() }).strict().parse({ id: 1 });
    } catch (error) {
      zodError = error;
    }
    expect(toFailure(zodError)).toMatchObject({ type: 'internal_error', nonRetryable: true });
  });

  it.each(['23505', '23503', '40001', '40P01', '57P01', '08006'])('transient or racy database error %s stays retryable, without the values Postgres quoted', (code) => {
    const error = Object.assign(new Error('duplicate key value'), { code, detail: 'Key (email)=(maria@example.org) already exists.', constraint: 'contacts_email_key', table: 'contacts' });
    expect(isDeterministicDatabaseError(error)).toBe(false);
    const retried = toFailure(error) as Error;
    expect(retried).not.toBeInstanceOf(ApplicationFailure);
    expect(retried.message).toBe(`database error pg ${code} (constraint contacts_email_key) on contacts`);
    expect(JSON.stringify({ ...retried, message: retried.message })).not.toContain('maria@example.org');
  });

  it('answers conflict for a unique violation that a retry did not cure, not internal_error after every attempt', () => {
    const failure = toFailure(Object.assign(new Error('Validation error'), { name: 'SequelizeUniqueConstraintError', parameters: ['maria@example.org'], original: pgError('23505') }), 2) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'conflict', nonRetryable: true });
    expect(failure.message).not.toContain('maria');
  });

  it('leaves other errors retryable as they are', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(toFailure(reset)).toBe(reset);
    const plain = new Error('lost ack');
    expect(toFailure(plain)).toBe(plain);
  });
});
