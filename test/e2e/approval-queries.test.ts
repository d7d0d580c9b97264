import { randomUUID } from 'node:crypto';
import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { withTransaction, type Queryable } from '../../db/pool';
import { createAutomation, generateOutreachForAutomation } from '../../modules/people/automations';
import { closeOutreach, createOutreachItem, listOutreach, loadDeliveryContact } from '../../modules/people/outreach';
import { planAgentActions } from '../../modules/platform/agents';
import { createOrganisation, getOrgSettings } from '../../modules/platform/orgs';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/**
 * Tenant scoping on the approval paths: every statement the agents, automations
 * and outreach services run against contacts or the outbox names the
 * organisation, and a contact of another organisation is never delivered to.
 */
describe('organisation scoping of approval-path queries', () => {
  let db: TestDatabase;
  let orgId: string;
  let otherOrgId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    orgId = (await withTransaction(db.pool, (c) => createOrganisation(c, { name: 'Scoped Church' }))).id;
    otherOrgId = (await withTransaction(db.pool, (c) => createOrganisation(c, { name: 'Other Church' }))).id;
  });

  afterAll(async () => {
    await db?.drop();
  });

  /** Runs work on a connection that records every statement it is given. */
  async function recording<T>(work: (q: Queryable) => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const statements: string[] = [];
    const result = await withTransaction(db.pool, (client) => work({
      query<R extends QueryResultRow>(text: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>> {
        // A named statement (db/pool.ts namedStatement) comes as a config object with its text inside.
        statements.push((typeof text === 'string' ? text : text.text).replace(/\s+/g, ' '));
        return typeof text === 'string' ? client.query<R>(text, values) : client.query<R>(text);
      },
    }));
    return { result, statements };
  }

  const touching = (statements: string[], table: string) => statements.filter((s) => new RegExp(`\\b(FROM|JOIN|UPDATE|INTO)\\s+${table}\\b`, 'i').test(s));

  async function dueContact(org: string, email: string): Promise<string> {
    const id = randomUUID();
    await db.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, created_at) VALUES ($1, $2, 'Due', 'Person', $3, now() - interval '400 days')`,
      [id, org, email]);
    return id;
  }

  it('the pastoral agent and automations read contacts only within the organisation', async () => {
    const contactId = await dueContact(orgId, 'due@example.org');
    const org = await getOrgSettings(db.pool, orgId);
    const agent = await recording((q) => planAgentActions(q, org, 'pastoral_care'));
    expect(agent.result.map((a) => a.args.contactId)).toContain(contactId);
    const automation = await withTransaction(db.pool, (c) => createAutomation(c, orgId, null, { name: 'Welfare', type: 'welfare_check' }));
    const run = await recording((q) => generateOutreachForAutomation(q, org, automation, { sourceRun: randomUUID(), createdByUserId: null }));
    expect(run.result.items.map((i) => i.contactId)).toContain(contactId);

    const statements = [...agent.statements, ...run.statements];
    expect(touching(statements, 'contacts').length).toBeGreaterThan(0);
    for (const statement of touching(statements, 'contacts')) expect(statement).toMatch(/org_id/);
  });

  it('closing an outreach item checks the outbox within the organisation', async () => {
    const contactId = await dueContact(orgId, 'close@example.org');
    const item = await withTransaction(db.pool, (c) => createOutreachItem(c, orgId, {
      id: randomUUID(), contactId, channel: 'email', subject: 'Hello', body: 'Thinking of you', source: 'manual',
    }));
    const closed = await recording((q) => closeOutreach(q, orgId, item.id, 'cancelled', randomUUID(), null));
    expect(closed.result.status).toBe('cancelled');
    expect(touching(closed.statements, 'outbox_messages').length).toBeGreaterThan(0);
    for (const statement of touching(closed.statements, 'outbox_messages')) expect(statement).toMatch(/org_id/);
  });

  it('never loads or lists another organisation\'s contact for delivery', async () => {
    const foreign = await dueContact(otherOrgId, 'foreign@example.org');
    expect(await loadDeliveryContact(db.pool, orgId, foreign)).toBeUndefined();
    // An outreach row pointing across organisations (which no service writes) still shows nothing of the other organisation's contact.
    const id = randomUUID();
    await db.pool.query(`INSERT INTO outreach_items (id, org_id, contact_id, channel, subject, body) VALUES ($1, $2, $3, 'email', 'Hi', 'Body')`, [id, orgId, foreign]);
    expect((await listOutreach(db.pool, orgId, { status: 'all', limit: 100 })).map((i) => i.id)).not.toContain(id);
  });
});
