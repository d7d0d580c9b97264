import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database';
import { getContact } from '../contacts';
import { contactSchema } from '../schemas';

/**
 * The contact read is prepared once per pooled connection. A later migration that adds a column
 * to contacts must not break a connection that prepared it before (Postgres refuses a cached plan
 * whose result changed shape, which a `SELECT c.*` would).
 */
describe('the prepared contact read', () => {
  let db: TestDatabase;
  let orgId: string;
  let contactId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    orgId = randomUUID();
    contactId = randomUUID();
    await db.pool.query(`INSERT INTO organisations (id, name, plan_code) SELECT $1, 'Prepared', code FROM plans ORDER BY code LIMIT 1`, [orgId]);
    await db.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email) VALUES ($1, $2, 'Ada', 'Lovelace', 'ada@example.org')`, [contactId, orgId]);
    const tagId = randomUUID();
    await db.pool.query(`INSERT INTO tags (id, org_id, name) VALUES ($1, $2, 'choir')`, [tagId, orgId]);
    await db.pool.query(`INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)`, [orgId, contactId, tagId]);
  });

  afterAll(async () => {
    await db.drop();
  });

  it('is read by a named statement, and still reads after a migration adds a column', async () => {
    const client = await db.pool.connect();
    try {
      const before = await getContact(client, orgId, contactId);
      expect(before).toMatchObject({ id: contactId, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org', tags: ['choir'] });
      // Every field a contact has is read (a column left out of the list would read as undefined).
      expect(Object.entries(before!).filter(([, value]) => value === undefined).map(([key]) => key)).toEqual([]);
      expect(Object.keys(before!).sort()).toEqual(Object.keys(contactSchema.shape).sort());
      const { rows } = await client.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name = 'steward:people-contact-by-id'`);
      expect(rows).toHaveLength(1);

      await client.query('ALTER TABLE contacts ADD COLUMN later_migration_note text');
      const after = await getContact(client, orgId, contactId);
      expect(after).toEqual(before);
    } finally {
      client.release();
    }
  });

  it('answers undefined for another organisation’s contact and for a deleted one', async () => {
    expect(await getContact(db.pool, randomUUID(), contactId)).toBeUndefined();
    await db.pool.query('UPDATE contacts SET deleted_at = now() WHERE id = $1', [contactId]);
    expect(await getContact(db.pool, orgId, contactId)).toBeUndefined();
  });
});
