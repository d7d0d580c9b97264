import { randomUUID } from 'node:crypto';
import { withTransaction } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import { TagCategory } from '../../modules/people/models';
import { createOrganisation } from '../../modules/platform/orgs';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/**
 * A model call that breaks a constraint throws PostgreSQL's own error (SQLSTATE, constraint,
 * table), as raw SQL does, so failures are classified the same whichever idiom a service uses.
 */
describe('errors from model calls', () => {
  let db: TestDatabase;
  let orgId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    orgId = (await withTransaction(db.pool, (c) => createOrganisation(c, { name: 'Errors Church' }))).id;
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('a unique violation keeps its SQLSTATE and constraint', async () => {
    await withTransaction(db.pool, (c) => withModels(c, (transaction) => TagCategory.create({ id: randomUUID(), orgId, name: 'Care' }, { transaction })));
    const error = await withTransaction(db.pool, (c) => withModels(c, (transaction) => TagCategory.create({ id: randomUUID(), orgId, name: 'care' }, { transaction })))
      .then(() => undefined, (e: unknown) => e as { code?: string; constraint?: string });
    expect(error?.code).toBe('23505');
    expect(error?.constraint).toBe('tag_categories_name_key');
  });

  it('a foreign-key violation keeps its SQLSTATE', async () => {
    const error = await withTransaction(db.pool, (c) => withModels(c, (transaction) => TagCategory.create({ id: randomUUID(), orgId: randomUUID(), name: 'Orphan' }, { transaction })))
      .then(() => undefined, (e: unknown) => e as { code?: string });
    expect(error?.code).toBe('23503');
  });
});
