import { createPool, namedStatement, queryNamed, withTransaction, type Pool } from '../../db/pool';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/**
 * A named statement prepared on a pooled connection is refused by Postgres, on that connection, once
 * a migration changes the type of a column it returns. The connection that met the refusal must not
 * go back to the pool, or every later call lent it would fail the same way.
 */
describe('a prepared statement whose result changed shape', () => {
  let db: TestDatabase;
  let pool: Pool;
  const READ_NOTE = namedStatement('test-stale-plan-read-note', 'SELECT id, note FROM stale_plan_notes WHERE id = $1');

  beforeAll(async () => {
    db = await createTestDatabase({ migrations: [] });
    await db.pool.query(`CREATE TABLE stale_plan_notes (id int PRIMARY KEY, note text NOT NULL)`);
    await db.pool.query(`INSERT INTO stale_plan_notes VALUES (1, '42')`);
    // One connection, so every transaction below would be lent the same one if it were kept.
    pool = createPool(db.url, { max: 1 });
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  const readNote = () => withTransaction(pool, async (client) => (await queryNamed<{ note: unknown }>(client, READ_NOTE, [1]))[0]?.note);
  const backendPid = () => withTransaction(pool, async (client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);

  it('fails the one call that meets it, and the next transaction runs on a fresh connection that reads the new type', async () => {
    expect(await readNote()).toBe('42');
    const pidBefore = await backendPid();
    await db.pool.query('ALTER TABLE stale_plan_notes ALTER COLUMN note TYPE int USING note::int');

    // The routine is how isStalePlan knows it in any server language.
    await expect(readNote()).rejects.toMatchObject({ code: '0A000', routine: 'RevalidateCachedQuery', message: expect.stringContaining('cached plan must not change result type') });
    expect(await backendPid()).not.toBe(pidBefore);
    expect(await readNote()).toBe(42);
  });

  it('closes the connection even when the work catches the refusal and goes on', async () => {
    expect(await readNote()).toBe(42);
    const pidBefore = await backendPid();
    await db.pool.query('ALTER TABLE stale_plan_notes ALTER COLUMN note TYPE bigint');
    const outcome = await withTransaction(pool, async (client) => {
      try {
        await queryNamed(client, READ_NOTE, [1]);
        return 'read';
      } catch {
        return 'swallowed';
      }
    });
    expect(outcome).toBe('swallowed');
    expect(await backendPid()).not.toBe(pidBefore);
    expect(await readNote()).toBe(42);
  });

  it('keeps the connection after any other failure', async () => {
    const pidBefore = await backendPid();
    await expect(withTransaction(pool, async (client) => client.query('SELECT no_such_column FROM stale_plan_notes'))).rejects.toMatchObject({ code: '42703' });
    expect(await backendPid()).toBe(pidBefore);
  });
});
