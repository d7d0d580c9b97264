import pg from 'pg';

// DATE columns stay 'YYYY-MM-DD' strings: converting them to JS Dates shifts them by the time zone.
pg.types.setTypeParser(1082, (value: string) => value);
// int8 counts fit comfortably in a JS number for our purposes.
pg.types.setTypeParser(20, (value: string) => Number(value));

/** Anything that can run a parameterised query: a pool or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export function createPool(databaseUrl: string, options: { max?: number } = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.max ?? 10, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Runs `work` inside one transaction; rolls back on any error. `readOnly` gives
 * one consistent snapshot and makes Postgres refuse any write.
 */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, options: { readOnly?: boolean } = {}): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(options.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export async function queryRows<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  return (await db.query<R>(text, values)).rows;
}

export async function queryOne<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R | undefined> {
  return (await db.query<R>(text, values)).rows[0];
}
