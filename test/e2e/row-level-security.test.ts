import { randomUUID } from 'node:crypto';
import { createPool, queryRows, withTenantTransaction, withTenantTransactionReading, withTransaction, type Pool } from '../../db/pool';
import { ORG_SETTINGS_READ, orgSettingsOf } from '../../modules/platform/orgs';
import { MissingTransactionError } from '../../db/sequelize';
import { Contact, Note } from '../../modules/people/models';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/**
 * Tenancy enforced by Postgres: tool transactions run as steward_app with steward.org_id set, and
 * the policies show and accept that organisation's rows only, whatever the SQL forgets.
 */
describe('row-level security', () => {
  let db: TestDatabase;
  let single: Pool;
  const orgA = randomUUID();
  const orgB = randomUUID();
  const contactA = randomUUID();
  const contactB = randomUUID();

  beforeAll(async () => {
    db = await createTestDatabase();
    // One connection: every transaction below reuses the same session, as a busy pool would.
    single = createPool(db.url, { max: 1 });
    await withTransaction(db.pool, async (client) => {
      for (const [org, contact, name] of [[orgA, contactA, 'Alice'], [orgB, contactB, 'Bob']] as const) {
        await client.query("INSERT INTO organisations (id, name, plan_code) VALUES ($1, $2, 'starter')", [org, `Church ${name}`]);
        await client.query('INSERT INTO contacts (id, org_id, first_name) VALUES ($1, $2, $3)', [contact, org, name]);
        await client.query('INSERT INTO notes (id, org_id, contact_id, content) VALUES ($1, $2, $3, $4)', [randomUUID(), org, contact, `About ${name}`]);
      }
    });
  });
  afterAll(async () => {
    await single.end();
    await db.drop();
  });

  it('a query that forgets its org_id filter still sees only its own organisation', async () => {
    const seen = await withTenantTransaction(single, orgA, async (client, transaction) => ({
      raw: (await client.query<{ first_name: string }>('SELECT first_name FROM contacts ORDER BY first_name')).rows.map((r) => r.first_name),
      joined: await queryRows(client, 'SELECT n.content FROM notes n JOIN contacts c ON c.id = n.contact_id'),
      // The people module's published view checks the caller's policy, not its owner's (security_invoker).
      directory: (await client.query<{ first_name: string }>('SELECT first_name FROM people_directory')).rows.map((r) => r.first_name),
      models: (await Contact.findAll({ transaction })).map((c) => c.firstName),
      notes: await Note.count({ transaction }),
      role: (await client.query<{ current_user: string }>('SELECT current_user')).rows[0].current_user,
    }), { readOnly: true });
    expect(seen).toEqual({ raw: ['Alice'], joined: [{ content: 'About Alice' }], directory: ['Alice'], models: ['Alice'], notes: 1, role: 'steward_app' });
  });

  it("cannot write another organisation's rows or write rows into it", async () => {
    const changed = await withTenantTransaction(single, orgA, async (client) => {
      const updated = await client.query("UPDATE contacts SET first_name = 'Mallory'");
      const deleted = await client.query('DELETE FROM notes WHERE contact_id = $1', [contactB]);
      return { updated: updated.rowCount, deleted: deleted.rowCount };
    });
    expect(changed).toEqual({ updated: 1, deleted: 0 });
    const bob = await queryRows(db.pool, 'SELECT first_name FROM contacts WHERE id = $1', [contactB]);
    expect(bob).toEqual([{ first_name: 'Bob' }]);
    await expect(withTenantTransaction(single, orgA, (client) => client.query(
      'INSERT INTO contacts (id, org_id, first_name) VALUES ($1, $2, $3)', [randomUUID(), orgB, 'Planted'],
    ))).rejects.toMatchObject({ code: '42501' });
    await expect(withTenantTransaction(single, orgA, (_client, transaction) => Contact.create(
      { id: randomUUID(), orgId: orgB, firstName: 'Planted' }, { transaction },
    ))).rejects.toThrow(/row-level security/);
  });

  it('a transaction without the setting sees no rows, also on a connection an earlier tenant transaction used', async () => {
    // The earlier tests left steward.org_id defined on this session (as '' outside their transactions).
    const counts = await withTransaction(single, async (client) => {
      await client.query('SET LOCAL ROLE steward_app');
      const { rows } = await client.query<{ contacts: number; notes: number; orgs: number }>(`SELECT
        (SELECT count(*) FROM contacts)::int AS contacts, (SELECT count(*) FROM notes)::int AS notes, (SELECT count(*) FROM organisations)::int AS orgs`);
      return rows[0];
    });
    expect(counts).toEqual({ contacts: 0, notes: 0, orgs: 0 });
  });

  it('the application role cannot turn row-level security off or get round it', async () => {
    const asApp = (sql: string) => withTenantTransaction(single, orgA, (client) => client.query(sql));
    await expect(asApp('ALTER TABLE contacts DISABLE ROW LEVEL SECURITY')).rejects.toMatchObject({ code: '42501' });
    await expect(asApp('DROP POLICY tenant_isolation ON contacts')).rejects.toMatchObject({ code: '42501' });
    await expect(asApp('ALTER ROLE steward_app BYPASSRLS')).rejects.toMatchObject({ code: '42501' });
    // With row_security off, Postgres refuses a query a policy would filter instead of showing every row.
    await expect(withTenantTransaction(single, orgA, async (client) => {
      await client.query('SET LOCAL row_security = off');
      return client.query('SELECT * FROM contacts');
    })).rejects.toMatchObject({ code: '42501' });
    await expect(asApp('SELECT * FROM steward_migrations')).rejects.toMatchObject({ code: '42501' });
    await expect(asApp('SELECT * FROM oauth_sessions')).rejects.toMatchObject({ code: '42501' });
  });

  it("reads its organisation's settings in the statement that makes it that organisation's, then runs as the application role", async () => {
    const seen = await withTenantTransactionReading<Parameters<typeof orgSettingsOf>[0], unknown>(single, orgA, ORG_SETTINGS_READ, async (client, _transaction, row) => ({
      org: orgSettingsOf(row).name,
      role: (await client.query<{ current_user: string }>('SELECT current_user')).rows[0].current_user,
      otherOrgsContacts: (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts WHERE org_id <> $1', [orgA])).rows[0].n,
    }), { readOnly: true });
    expect(seen).toEqual({ org: 'Church Alice', role: 'steward_app', otherOrgsContacts: 0 });
    // An organisation that is not there reads as null, and the call's transaction answers not_found.
    const missing = await withTenantTransactionReading(single, randomUUID(), ORG_SETTINGS_READ, async (_client, _transaction, row) => row, { readOnly: true });
    expect(missing).toBeNull();
    expect(() => orgSettingsOf(null)).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('prepares the tenant statements once per connection, and each transaction still sees only its own organisation', async () => {
    const contactsSeen = (org: string) => withTenantTransaction(single, org, async (client) => (await client.query<{ org_id: string }>('SELECT DISTINCT org_id FROM contacts')).rows.map((row) => row.org_id), { readOnly: true });
    const settingsSeen = (org: string) => withTenantTransactionReading<Parameters<typeof orgSettingsOf>[0], string>(single, org, ORG_SETTINGS_READ, async (_client, _transaction, row) => orgSettingsOf(row).name, { readOnly: true });
    for (let round = 0; round < 3; round += 1) {
      expect(await contactsSeen(orgA)).toEqual([orgA]);
      expect(await contactsSeen(orgB)).toEqual([orgB]);
      expect(await settingsSeen(orgB)).toBe('Church Bob');
      expect(await settingsSeen(orgA)).toBe('Church Alice');
    }
    const prepared = (await queryRows<{ name: string }>(single, 'SELECT name FROM pg_prepared_statements ORDER BY name')).map((row) => row.name);
    expect(prepared).toContain('steward:enter-tenant');
    expect(prepared.filter((name) => /^steward:enter-tenant-reading-[0-9a-f]{16}$/.test(name))).toHaveLength(1);
  });

  it('the owner role used outside tool calls is not filtered', async () => {
    const rows = await queryRows(db.pool, 'SELECT count(*)::int AS n FROM contacts');
    expect(rows).toEqual([{ n: 2 }]);
  });

  it('a model call that forgets { transaction } is refused at once instead of running outside the snapshot', async () => {
    await expect(withTenantTransaction(single, orgA, () => Contact.findAll())).rejects.toBeInstanceOf(MissingTransactionError);
    await expect(withTenantTransaction(single, orgA, () => Note.update({ content: 'x' }, { where: { orgId: orgA } }))).rejects.toBeInstanceOf(MissingTransactionError);
  });

  it('a transaction object is refused once its transaction has ended', async () => {
    const stale = await withTenantTransaction(single, orgA, async (_client, transaction) => transaction);
    await expect(Contact.findAll({ transaction: stale })).rejects.toThrow(/commit has been called on this transaction/);
  });
});
