import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, type Migration } from '../../db/migrate';
import { prepareDatabase } from '../../modules';
import { createPool, type Pool } from '../../db/pool';
import { TEMPLATE_DATABASE_ENV, TEST_DATABASE_URL } from './env';

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

function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The run's template database (test/helpers/global-setup.ts): every module's migrations and the plan
 * allowances, made once; each suite's database is a copy of it. Connections to it are refused once it
 * is made (CREATE DATABASE … TEMPLATE fails while anyone is connected to the template).
 */
export async function createTemplateDatabase(): Promise<string> {
  const name = `steward_test_template_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const pool = createPool(databaseUrl(name), { max: 1 });
  try {
    await prepareDatabase(pool);
  } catch (error) {
    await pool.end();
    await dropDatabase(name);
    throw error;
  }
  await pool.end();
  await admin((client) => client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`));
  return name;
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** A new database: a copy of the run's template when there is one (and `bare` is not asked for), else empty. */
async function newDatabase(options: { bare?: boolean } = {}): Promise<{ name: string; url: string }> {
  const name = `steward_test_${randomBytes(6).toString('hex')}`;
  const template = options.bare ? undefined : process.env[TEMPLATE_DATABASE_ENV];
  await admin((client) => client.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`));
  return { name, url: databaseUrl(name) };
}

/** A copy of the run's template database, brought up to date with the registry (for a shared test stack, test/helpers/shared-stack.ts). */
export async function copyTemplateDatabase(): Promise<{ name: string; url: string }> {
  const { name, url } = await newDatabase();
  const pool = createPool(url, { max: 1 });
  try {
    await prepareDatabase(pool);
  } finally {
    await pool.end();
  }
  return { name, url };
}

/**
 * A fresh database per suite, dropped afterwards. By default a copy of the run's template database
 * (every module's migrations, made once by the global setup), then migrated, which applies only what
 * the template lacks: the migrations of a module a suite registers itself (test/kit/kitdemo). Without a
 * template (a bench run outside jest) every migration runs here. With `options.migrations`, a bare
 * database migrated with those only (an empty list leaves it bare, e.g. to build an older schema by hand).
 */
export async function createTestDatabase(options: { migrations?: readonly Migration[] } = {}): Promise<TestDatabase> {
  const { name, url } = await newDatabase({ bare: Boolean(options.migrations) });
  const pool = createPool(url, { max: 10 });
  if (options.migrations) {
    if (options.migrations.length > 0) await migrate(pool, options.migrations);
  } else {
    await prepareDatabase(pool);
  }
  return {
    pool,
    url,
    async drop() {
      await pool.end();
      await dropDatabase(name);
    },
  };
}
