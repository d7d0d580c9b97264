import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../db/migrate';
import { createPool } from '../../db/pool';
import { allMigrations, prepareDatabase } from '../../modules';

/**
 * Copies a database an older Steward kept in PGlite (`.data/pglite`) into the PostgreSQL
 * server that is the embedded default now. Both hold the same schema, so rows travel
 * table by table as JSON and are rebuilt with `json_populate_recordset`, which keeps every
 * column's type (uuid, jsonb, arrays, timestamps) exact. The old folder is left as it was.
 */
export interface ImportReport {
  tables: Array<{ table: string; rows: number }>;
  rows: number;
}

/** The narrow part of PGlite used here (it is loaded only when an import runs). */
interface LegacyDb {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  close(): Promise<void>;
}

const BATCH = 500;

export async function importPglite(legacyDir: string, databaseUrl: string): Promise<ImportReport> {
  if (!fs.existsSync(legacyDir)) throw new Error(`No PGlite database at ${legacyDir}`);
  // A development dependency: a production install (npm ci --omit=dev, the container image) has no PGlite.
  const { PGlite } = await import('@electric-sql/pglite').catch(() => {
    throw new Error('Importing a PGlite database needs @electric-sql/pglite, a development dependency: run `npm ci` (with development dependencies) where the old .data/pglite folder is.');
  });
  const legacy = (await PGlite.create(legacyDir)) as unknown as LegacyDb;
  const pool = createPool(databaseUrl, { max: 2 });
  try {
    // The target gets the old database's schema first, so the rows fit it exactly; later
    // migrations then run over the imported rows as they would have over the old database.
    const ran = await assertLegacyMigrationsKnown(legacy);
    await migrate(pool, allMigrations().filter((m) => ran.has(m.name)));
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await assertTargetEmpty(client);
      // Rows arrive table by table, so foreign keys are checked by the final counts instead of row by row.
      await client.query('SET LOCAL session_replication_role = replica');
      const tables: ImportReport['tables'] = [];
      for (const table of await legacyTables(legacy)) tables.push({ table, rows: await copyTable(legacy, client, table) });
      await resetSequences(client);
      await client.query('COMMIT');
      await prepareDatabase(pool);
      return { tables, rows: tables.reduce((sum, t) => sum + t.rows, 0) };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  } finally {
    await legacy.close();
    await pool.end();
  }
}

/** Migrations the old database ran must all be ones this version knows, or its tables could differ. */
async function assertLegacyMigrationsKnown(legacy: LegacyDb): Promise<Set<string>> {
  const known = new Set(allMigrations().map((m) => m.name));
  const { rows } = await legacy.query<{ name: string }>('SELECT name FROM steward_migrations ORDER BY name');
  const unknown = rows.map((r) => r.name).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`The old database ran migrations this version does not know (${unknown.join(', ')}); import it with the version that made it.`);
  return new Set(rows.map((r) => r.name));
}

async function assertTargetEmpty(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM organisations');
  if (rows[0].n > 0) throw new Error('The embedded PostgreSQL database already holds organisations; importing would mix two databases. Import into an empty one.');
}

async function legacyTables(legacy: LegacyDb): Promise<string[]> {
  const { rows } = await legacy.query<{ table_name: string }>(`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'steward_migrations' ORDER BY table_name`);
  return rows.map((r) => r.table_name);
}

/** Copies one table in batches; seeded rows the migrations already made (plans) are kept as they are. */
async function copyTable(legacy: LegacyDb, client: pg.PoolClient, table: string): Promise<number> {
  const quoted = `"${table.replace(/"/g, '""')}"`;
  let copied = 0;
  for (let offset = 0; ; offset += BATCH) {
    const { rows } = await legacy.query<{ j: string }>(`SELECT row_to_json(t)::text AS j FROM ${quoted} t ORDER BY ctid LIMIT ${BATCH} OFFSET ${offset}`);
    if (rows.length === 0) break;
    const json = `[${rows.map((r) => r.j).join(',')}]`;
    const result = await client.query(`INSERT INTO ${quoted} SELECT * FROM json_populate_recordset(NULL::${quoted}, $1::json) ON CONFLICT DO NOTHING`, [json]);
    copied += result.rowCount ?? 0;
    if (rows.length < BATCH) break;
  }
  return copied;
}

/** bigserial columns continue after the highest imported id. */
async function resetSequences(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_default LIKE 'nextval(%'`);
  for (const { table_name: table, column_name: column } of rows) {
    await client.query(`SELECT setval(pg_get_serial_sequence($1, $2), GREATEST((SELECT max("${column.replace(/"/g, '""')}") FROM "${table.replace(/"/g, '""')}"), 1))`, [table, column]);
  }
}

export function legacyDirOf(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}
