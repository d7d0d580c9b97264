import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, type Migration } from '../../db/migrate';
import { prepareDatabase } from '../../modules';
import { createPool, type Pool } from '../../db/pool';
import { TEST_DATABASE_URL } from './env';

export interface TestDatabase {
  pool: Pool;
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database per suite, dropped afterwards; migrated with every module's migrations, or with
 * `options.migrations` only (an empty list leaves it bare, e.g. to build an older schema by hand).
 */
export async function createTestDatabase(options: { migrations?: readonly Migration[] } = {}): Promise<TestDatabase> {
  const name = `steward_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), { max: 10 });
  if (options.migrations) {
    if (options.migrations.length > 0) await migrate(pool, options.migrations);
  } else {
    await prepareDatabase(pool);
  }
  return {
    pool,
    url: url.toString(),
    async drop() {
      await pool.end();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
