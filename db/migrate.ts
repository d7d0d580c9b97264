import { SequelizeStorage, Umzug } from 'umzug';
import type { Pool, Queryable } from './pool';
import { sequelizeOnConnection } from './sequelize';

// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_ID = 727_001;

/** One schema change: SQL applied in a transaction, and the SQL that undoes it. Modules own theirs. */
export interface Migration {
  name: string;
  up: string;
  down: string;
}

/**
 * Applies pending migrations (every module's, in name order: see allMigrations in modules/index.ts). API and worker may start together, so an
 * advisory lock makes the second one wait and then find nothing to do.
 */
export async function migrate(pool: Pool, migrations: readonly Migration[]): Promise<string[]> {
  const lockClient = await pool.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    // The log keeps the layout databases made before umzug's SequelizeStorage already have (name, run_at):
    // the storage only reads and writes `name`, and would create a name-only table if none existed.
    await lockClient.query('CREATE TABLE IF NOT EXISTS steward_migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())');
    const umzug = new Umzug({
      migrations: migrations.map((m) => ({
        name: m.name,
        up: () => inTransaction(lockClient, m.up),
        down: () => inTransaction(lockClient, m.down),
      })),
      storage: new SequelizeStorage({ sequelize: sequelizeOnConnection(lockClient), tableName: 'steward_migrations', columnName: 'name', columnType: 'TEXT', timestamps: false }),
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
