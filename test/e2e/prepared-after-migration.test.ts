import { Harness, type TestOrg } from '../helpers/harness';
import { mcpCall } from '../helpers/mcp-calls';

/**
 * The contact read is a statement each pooled connection prepares once. A migration that changes
 * the type of a column it returns makes Postgres refuse it on every connection that prepared it;
 * each such connection is closed when it meets the refusal (db/pool.ts, isStalePlan), and the
 * call's activity runs again on a fresh one, so callers see their answer, not an error. Without
 * the closing, the pool lends its newest idle connection first, so a retry meets the same stale
 * one again and a read fails with internal_error once its retries run out (three runs of three,
 * 2026-11-29). That the connection is closed is also pinned without retries in
 * test/unit/stale-prepared-plan.test.ts.
 */
describe('reads after a migration changes a column the prepared contact read returns', () => {
  let harness: Harness;
  let org: TestOrg;
  let contactId: string;

  beforeAll(async () => {
    // Its own stack and database: the column's type changes under this suite's workers only.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Migrating Church' });
    contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@migrating.test', addressCity: 'Bath' })).contact.id;
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('answers every read over MCP, before and after the change, with the same contact', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const readAll = (count: number) => Promise.all(Array.from({ length: count }, () => mcpCall(mcp, 'people_get_contact', { contactId })));
      // In parallel, so several pooled connections prepare the read.
      const before = await readAll(6);
      expect(before.map((result) => result.contact.addressCity)).toEqual(Array(6).fill('Bath'));

      await harness.pool.query('ALTER TABLE contacts ALTER COLUMN address_city TYPE varchar(100)');

      // Parallel and one at a time, more reads than the connections that prepared the statement.
      const after = [...(await readAll(6)), ...(await readAll(6))];
      for (let i = 0; i < 4; i += 1) after.push(await mcpCall(mcp, 'people_get_contact', { contactId }));
      for (const result of after) expect(result.contact).toEqual(before[0].contact);
    } finally {
      await mcp.close();
    }
  }, 120_000);
});
