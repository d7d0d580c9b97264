import { Umzug, type UmzugStorage } from 'umzug';
import type { Pool, Queryable } from './pool';
import { MIGRATIONS } from './migrations';

// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_ID = 727_001;

class PostgresStorage implements UmzugStorage {
  constructor(private readonly pool: Queryable) {}

  async logMigration({ name }: { name: string }): Promise<void> {
    await this.pool.query('INSERT INTO steward_migrations (name) VALUES ($1)', [name]);
  }

  async unlogMigration({ name }: { name: string }): Promise<void> {
    await this.pool.query('DELETE FROM steward_migrations WHERE name = $1', [name]);
  }

  async executed(): Promise<string[]> {
    await this.pool.query('CREATE TABLE IF NOT EXISTS steward_migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await this.pool.query<{ name: string }>('SELECT name FROM steward_migrations ORDER BY name');
    return rows.map((row) => row.name);
  }
}

/**
 * Applies pending migrations. API and worker may start together, so an
 * advisory lock makes the second one wait and then find nothing to do.
 */
export async function migrate(pool: Pool): Promise<string[]> {
  const lockClient = await pool.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const umzug = new Umzug({
      migrations: MIGRATIONS.map((m) => ({
        name: m.name,
        up: () => inTransaction(lockClient, m.up),
        down: () => inTransaction(lockClient, m.down),
      })),
      storage: new PostgresStorage(lockClient),
      logger: undefined,
    });
    const applied = await umzug.up();
    return applied.map((m) => m.name);
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    lockClient.release();
  }
}

async function inTransaction(client: Queryable, sql: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
