import { randomUUID } from 'node:crypto';
import type { Model, ModelStatic } from 'sequelize';
import { migrate } from '../../db/migrate';
import { queryRows, withTenantTransaction, withTransaction, type Pool } from '../../db/pool';
import { allMigrations, MODULES } from '../../modules';
import { addFamilyRelationship, listFamily } from '../../modules/people/family';
import { addGroupMember, createGroup, listGroupMembers } from '../../modules/people/crm-groups';
import { createContact } from '../../modules/people/contacts';
import { createDefinition, listDefinitions } from '../../modules/people/custom-fields';
import { addNote, listNotes } from '../../modules/people/notes';
import { createSegmentFromTemplate, listSegments, refreshSegment } from '../../modules/people/segments';
import { addContactTags, createTagCategory, listTags } from '../../modules/people/tags';
import { createApiKey, principalForApiKey } from '../../kernel/api-keys';
import { createOrganisation } from '../../modules/platform/orgs';
import { createMember } from '../../modules/platform/users';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/** The last migration of the chain as it stood before models and row-level security (commit 31b02e0). */
const LAST_OLD_MIGRATION = '2026.11.22T02.00.00.outbox-lease';

/** Every table's columns. */
async function columnsOf(pool: Pool): Promise<Record<string, string[]>> {
  const rows = await queryRows<{ table_name: string; column_name: string }>(pool,
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position");
  const out: Record<string, string[]> = {};
  for (const row of rows) (out[row.table_name] ??= []).push(row.column_name);
  return out;
}

/**
 * Every row of every table, as JSON text, so before and after compare exactly; given the columns
 * tables had before, columns added since are left out (an old row keeps every old value).
 */
async function everything(pool: Pool, columnsBefore?: Record<string, string[]>): Promise<Record<string, string[]>> {
  const tables = await queryRows<{ table_name: string }>(pool,
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'steward_migrations' ORDER BY table_name");
  const columnsNow = columnsBefore ? await columnsOf(pool) : {};
  const out: Record<string, string[]> = {};
  for (const { table_name: table } of tables) {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`unexpected table name ${table}`);
    const old = columnsBefore?.[table];
    const added = old ? (columnsNow[table] ?? []).filter((column) => !old.includes(column)) : [];
    out[table] = (await queryRows<{ row: string }>(pool, `SELECT (to_jsonb(t) - $1::text[])::text AS row FROM "${table}" t ORDER BY 1`, [added])).map((r) => r.row);
  }
  return out;
}

/**
 * A database made by the old migration chain and its old runner upgrades in place: the new
 * migrations and the umzug SequelizeStorage take over its migration log, no row changes, and
 * everything reads back through services and models under row-level security.
 */
describe('upgrading a database created before the data layer change', () => {
  let db: TestDatabase;
  let orgId: string;
  let apiKey: string;
  let before: Record<string, string[]>;
  let columnsBefore: Record<string, string[]>;

  beforeAll(async () => {
    db = await createTestDatabase({ migrations: [] });
    // The runner of that time: its own log table, each migration in a transaction, then its name logged.
    await db.pool.query('CREATE TABLE IF NOT EXISTS steward_migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())');
    for (const migration of allMigrations().filter((m) => m.name <= LAST_OLD_MIGRATION)) {
      await withTransaction(db.pool, (client) => client.query(migration.up));
      await db.pool.query('INSERT INTO steward_migrations (name) VALUES ($1)', [migration.name]);
    }

    // Data written by today's services, as the owner, before any policy exists.
    await withTransaction(db.pool, async (client) => {
      const org = await createOrganisation(client, { name: 'Old Church', country: 'GB' });
      orgId = org.id;
      const owner = await createMember(client, { orgId, email: 'owner@old.example', role: 'owner', displayName: 'Olive Owner' });
      apiKey = (await createApiKey(client, { orgId, userId: owner.userId, name: 'old key', scopes: ['people:read'] })).apiKey;
      const ann = await createContact(client, org, { firstName: 'Ann', lastName: 'Able', email: 'ann@old.example', membershipStatus: 'member', dateOfBirth: '02/03/1980' });
      const ben = await createContact(client, org, { firstName: 'Ben', lastName: 'Able', membershipStatus: 'member' });
      await createTagCategory(client, orgId, 'Ministries');
      await addContactTags(client, orgId, ann.id, ['Choir', 'Welcome team']);
      await addNote(client, org, owner.userId, { contactId: ann.id, content: 'Visited after surgery', privacy: 'team', confidentialityLevel: 'green', followUpDate: '01/02/2031' });
      await addFamilyRelationship(client, orgId, { contactId: ann.id, relatedContactId: ben.id, relationship: 'husband', sameHousehold: true });
      const group = await createGroup(client, orgId, { name: 'Tuesday group' });
      await addGroupMember(client, orgId, { groupId: group.id }, { contactId: ben.id }, 'leader');
      await createDefinition(client, orgId, { key: 'shirt_size', label: 'Shirt size', type: 'select', options: ['S', 'M', 'L'] });
      const segment = await createSegmentFromTemplate(client, orgId, { templateId: 'members' });
      await refreshSegment(client, orgId, segment.id);
      await client.query(`INSERT INTO usage_events (org_id, feature, units, idempotency_key, tool) VALUES ($1, 'contacts', 2, 'call-old-1', 'people_create_contact')`, [orgId]);
      await client.query(`INSERT INTO tool_call_results (workflow_id, org_id, tool, result) VALUES ('call-old-1', $1, 'people_create_contact', '{"ok":true}')`, [orgId]);
      await client.query(`INSERT INTO audit_events (org_id, tool, workflow_id) VALUES ($1, 'people_create_contact', 'call-old-1')`, [orgId]);
      await client.query(`INSERT INTO proposals (id, org_id, tool, args, args_hash, summary, expires_at) VALUES ($1, $2, 'people_add_tags', '{}', 'h', 'Tag Ann', now() + interval '1 day')`, [randomUUID(), orgId]);
    });
    before = await everything(db.pool);
    columnsBefore = await columnsOf(db.pool);

    const applied = await migrate(db.pool, allMigrations());
    expect(applied).toEqual(allMigrations().filter((m) => m.name > LAST_OLD_MIGRATION).map((m) => m.name));
  });
  afterAll(async () => db.drop());

  it('keeps every row of every table', async () => {
    const after = await everything(db.pool, columnsBefore);
    // Every old table keeps its rows (columns added since aside); tables later modules add start empty.
    expect(Object.fromEntries(Object.keys(before).map((table) => [table, after[table]]))).toEqual(before);
    const added = Object.keys(after).filter((table) => !(table in before));
    // Except what is derived from old rows (the audit chain links the old audit events, one head per organisation
    // that has any) and reference data a migration seeds (billing's plan prices).
    const derivedOrSeeded = new Set(['audit_chain_heads', 'billing_plan_prices']);
    expect(added.filter((table) => after[table]!.length > 0 && !derivedOrSeeded.has(table))).toEqual([]);
    expect(after.audit_chain_heads).toHaveLength(new Set(before.audit_events!.map((row) => JSON.parse(row).org_id)).size);
    expect(Object.values(before).reduce((n, rows) => n + rows.length, 0)).toBeGreaterThan(50);
  });

  it('keeps the migration log: old names stay, new ones are added, nothing runs twice', async () => {
    const log = await queryRows<{ name: string; run_at: Date }>(db.pool, 'SELECT name, run_at FROM steward_migrations ORDER BY name');
    expect(log.map((r) => r.name)).toEqual(allMigrations().map((m) => m.name));
    expect(log.every((r) => r.run_at instanceof Date)).toBe(true);
    expect(await migrate(db.pool, allMigrations())).toEqual([]);
  });

  it('reads everything back through services and models, as a tool would under row-level security', async () => {
    const read = await withTenantTransaction(db.pool, orgId, async (client, transaction) => {
      const contacts = await queryRows<{ id: string; first_name: string }>(client, 'SELECT id, first_name FROM contacts ORDER BY first_name');
      const ann = contacts[0].id;
      const models: ModelStatic<Model>[] = MODULES.flatMap((m) => [...(m.models ?? [])]);
      const counts: Record<string, number> = {};
      for (const model of models) {
        const table = model.getTableName() as string;
        // The OAuth secrets tables are closed to tool transactions altogether (see the row-level-security migration).
        const [{ readable }] = await queryRows<{ readable: boolean }>(client, "SELECT has_table_privilege(current_user, $1, 'SELECT') AS readable", [table]);
        if (readable) counts[table] = await model.count({ transaction });
      }
      return {
        contacts: contacts.map((c) => c.first_name),
        tags: (await listTags(client, orgId)).map((t) => t.name).sort(),
        notes: (await listNotes(client, orgId, ann, false, 10)).map((n) => n.content),
        family: (await listFamily(client, orgId, ann)).map((f: { relationship: string }) => f.relationship),
        members: (await listGroupMembers(client, orgId, { groupName: 'Tuesday group' })).members.length,
        fields: (await listDefinitions(client, orgId)).map((d) => d.key),
        segments: (await listSegments(client, orgId)).map((s) => [s.name, s.memberCount]),
        counts,
      };
    }, { readOnly: true });
    expect(read).toMatchObject({
      contacts: ['Ann', 'Ben'], tags: ['Choir', 'Welcome team'], notes: ['Visited after surgery'], family: ['husband'],
      members: 1, fields: ['shirt_size'], segments: [['Members', 2]],
    });
    // Each model sees, under the policies, exactly the rows the owner sees for this organisation.
    const owned = await everything(db.pool);
    for (const [table, count] of Object.entries(read.counts)) {
      const rows = owned[table].map((r) => JSON.parse(r) as { org_id?: string; id?: string });
      const expected = table === 'organisations' ? rows.filter((r) => r.id === orgId).length : rows.filter((r) => !('org_id' in r) || r.org_id === orgId).length;
      expect([table, count]).toEqual([table, expected]);
    }
    // Every model's table was read, but for the OAuth secrets and the platform-admin role, which no tool transaction may see.
    const unread = MODULES.flatMap((m) => [...(m.models ?? [])]).map((model) => model.getTableName() as string).filter((table) => !(table in read.counts));
    expect(unread.sort()).toEqual(['oauth_authorization_requests', 'oauth_clients', 'oauth_codes', 'oauth_refresh_tokens', 'oauth_sessions', 'oauth_signing_keys', 'platform_admins']);
    expect(await principalForApiKey(db.pool, apiKey)).toMatchObject({ orgId });
  });
});
