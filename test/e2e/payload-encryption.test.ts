import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { ALL_SCOPES } from '../../core/scopes';
import { Harness, type TestOrg } from '../helpers/harness';

/** What someone with access to Temporal, but not to Steward's key, can see and do. */
describe('Temporal holds only encrypted payloads', () => {
  let harness: Harness;
  let org: TestOrg;
  let outsider: Client;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
    // A client without the codec: the view of anyone who can reach Temporal.
    outsider = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }), namespace: 'default' });
  });

  afterAll(async () => {
    await outsider?.connection.close();
    await harness?.close();
  });

  it('keeps note content and names out of workflow history', async () => {
    const key = `enc-${randomUUID()}`;
    const contact = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Zebedee', lastName: 'Quill' });
    const { body } = await harness.invoke(org.apiKey, 'people_add_note', { contactId: contact.contact.id, content: 'Disclosed a safeguarding concern', confidentialityLevel: 'red' }, { 'Idempotency-Key': key });
    expect(body.ok).toBe(true);
    const history = await outsider.workflow.getHandle(`call-${org.orgId}-${key}`).fetchHistory();
    const raw = JSON.stringify(history);
    expect(raw).not.toContain('safeguarding concern');
    expect(raw).not.toContain(Buffer.from('safeguarding concern').toString('base64').slice(0, 16));
    expect(raw).not.toContain('Zebedee');
  });

  it('refuses a plan forged by someone without the key: the tool never runs', async () => {
    const forgedPrincipal = { orgId: org.orgId, userId: randomUUID(), role: 'owner', scopes: [...ALL_SCOPES], intent: null, credentialId: randomUUID(), credentialKind: 'api_key' };
    const plan = {
      tool: 'people_create_contact', module: 'people', args: { email: 'forged@example.org' }, principal: forgedPrincipal,
      policy: { effect: 'write', meter: { feature: 'contacts', units: 1 }, timeline: true }, argsHash: 'x',
    };
    const handle = await outsider.workflow.start('toolCallWorkflow', { taskQueue: harness.taskQueue, workflowId: `forged-${randomUUID()}`, args: [plan] });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const contacts = await harness.pool.query("SELECT count(*)::int AS n FROM contacts WHERE email = 'forged@example.org'");
    expect(contacts.rows[0].n).toBe(0);
    const history = await handle.fetchHistory();
    expect(history.events?.some((e) => e.workflowTaskFailedEventAttributes)).toBe(true);
    await handle.terminate('test cleanup');
  });
});
