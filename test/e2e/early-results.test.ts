import { randomUUID } from 'node:crypto';
import { toolCallWorkflowId } from '../../core/workflow-ids';
import { eagerStartCounts } from '../../temporal/eager-starts';
import { earlyResultGraceExpiries, earlyResultWaiterCount, earlyResultsDelivered } from '../../temporal/early-results';
import { Harness, type TestOrg } from '../helpers/harness';
import { mcpCall, mcpRefusal } from '../helpers/mcp-calls';

/**
 * The API and the worker share this process, as under npm start: a call whose tool transaction is its
 * last step answers when that transaction commits. These tests hold the answer to what the workflow
 * itself returns, and check that calls with a step after the transaction (metering) still wait for it.
 */
describe('a call answered when its transaction commits (API and worker in one process)', () => {
  let harness: Harness;
  let org: TestOrg;
  let contactId: string;

  beforeAll(async () => {
    // Its own stack: it reads the API's early-result counters in this process.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Early Church' });
    contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Ada', lastName: 'Early', email: 'ada@early.test' })).contact.id;
  });

  afterAll(async () => {
    await harness?.close();
  });

  afterEach(() => expect(earlyResultWaiterCount()).toBe(0));

  const workflowResult = (key: string) => harness.temporal.workflow.getHandle(toolCallWorkflowId(org.orgId, key)).result();

  it('a read answers early over the bridge with exactly what its workflow returns', async () => {
    const key = `early-${randomUUID()}`;
    const before = earlyResultsDelivered();
    const startsBefore = eagerStartCounts();
    const { status, body } = await harness.invoke(org.apiKey, 'people_get_contact', { contactId }, { 'Idempotency-Key': key });
    expect(status).toBe(200);
    expect(body.result.contact.id).toBe(contactId);
    expect(earlyResultsDelivered()).toBe(before + 1);
    // The start asked to be eager and was granted: the worker here took the first task without matching.
    expect(eagerStartCounts()).toEqual({ requested: startsBefore.requested + 1, declined: startsBefore.declined });
    expect(await workflowResult(key)).toEqual(body.result);
  });

  it('a read answers early over MCP', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const before = earlyResultsDelivered();
      const result = await mcpCall(mcp, 'people_get_contact', { contactId });
      expect(result.contact.email).toBe('ada@early.test');
      expect(earlyResultsDelivered()).toBe(before + 1);
    } finally {
      await mcp.close();
    }
  });

  it('an unmetered write answers early with its stored result, and a replay of its key returns the same without writing again', async () => {
    const key = `early-${randomUUID()}`;
    const before = earlyResultsDelivered();
    const first = await harness.invoke(org.apiKey, 'people_update_contact', { contactId, phone: '+44 7700 900123' }, { 'Idempotency-Key': key });
    expect(first.body.ok).toBe(true);
    expect(earlyResultsDelivered()).toBe(before + 1);
    const stored = await harness.pool.query('SELECT result FROM tool_call_results WHERE workflow_id = $1', [toolCallWorkflowId(org.orgId, key)]);
    expect(stored.rows[0].result).toEqual(first.body.result);
    expect(await workflowResult(key)).toEqual(first.body.result);
    // The replay runs nothing, so it asks the workflow at once rather than waiting out the grace period for an
    // early result that cannot come (a resent chat conversation replays every call it holds).
    const expiriesBefore = earlyResultGraceExpiries();
    const replay = await harness.invoke(org.apiKey, 'people_update_contact', { contactId, phone: '+44 7700 900123' }, { 'Idempotency-Key': key });
    expect(replay.body.result).toEqual(first.body.result);
    expect(earlyResultsDelivered()).toBe(before + 1);
    expect(earlyResultGraceExpiries()).toBe(expiriesBefore);
    const audits = await harness.pool.query('SELECT count(*)::int AS n FROM audit_events WHERE workflow_id = $1', [toolCallWorkflowId(org.orgId, key)]);
    expect(audits.rows[0].n).toBe(1);
  });

  it('a metered call waits for its usage record: the usage is there when the answer arrives', async () => {
    const key = `early-${randomUUID()}`;
    const before = earlyResultsDelivered();
    const { body } = await harness.invoke(org.apiKey, 'people_create_contact', { firstName: 'Metered', lastName: 'Call' }, { 'Idempotency-Key': key });
    expect(body.ok).toBe(true);
    expect(earlyResultsDelivered()).toBe(before);
    const usage = await harness.pool.query('SELECT units FROM usage_events WHERE idempotency_key = $1', [toolCallWorkflowId(org.orgId, key)]);
    expect(usage.rows).toEqual([{ units: 1 }]);
  });

  it('a failing call still answers with its stable error, from the workflow', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const before = earlyResultsDelivered();
      const error = await mcpRefusal(mcp, 'people_get_contact', { contactId: randomUUID() });
      expect(error.code).toBe('not_found');
      expect(earlyResultsDelivered()).toBe(before);
    } finally {
      await mcp.close();
    }
  });

  it('32 reads in parallel each get their own right answer', async () => {
    const others = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      harness.call(org.apiKey, 'people_create_contact', { firstName: `Parallel${i}`, lastName: 'Reader' })));
    const ids = others.map((created) => created.contact.id as string);
    const before = earlyResultsDelivered();
    const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => harness.call(org.apiKey, 'people_get_contact', { contactId: ids[i % ids.length] })));
    answers.forEach((answer, i) => expect(answer.contact.id).toBe(ids[i % ids.length]));
    expect(earlyResultsDelivered()).toBe(before + 32);
  });
});
