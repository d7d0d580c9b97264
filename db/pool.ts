import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Transaction } from 'sequelize';
import { bindConnection, unbindConnection } from './sequelize';

// DATE columns stay 'YYYY-MM-DD' strings: converting them to JS Dates shifts them by the time zone.
pg.types.setTypeParser(1082, (value: string) => value);
// int8 counts fit comfortably in a JS number for our purposes.
pg.types.setTypeParser(20, (value: string) => Number(value));

/** Anything that can run a parameterised query: a pool or a client inside a transaction. */
export interface Queryable {
  /** A named statement comes as a config object (see namedStatement); everything else as text and values. */
  query<R extends pg.QueryResultRow = any>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
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
 * one consistent snapshot and makes Postgres refuse any write. `work` also gets the
 * Sequelize transaction bound to the same connection, so models and raw SQL share it.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, transaction: Transaction) => Promise<T>,
  options: { readOnly?: boolean } = {},
): Promise<T> {
  return inTransaction(pool, beginOf(options), undefined, work);
}

/** The role tool transactions run as: row-level security applies to it, and it cannot turn it off (see the row-level-security migrations). */
export const APP_ROLE = 'steward_app';

/**
 * A tool call's transaction: as withTransaction, and before `work` runs it becomes the application
 * role with `steward.org_id` set to the caller's organisation, both transaction-local, so
 * row-level security shows and accepts that organisation's rows only, even to a query that forgets its
 * `org_id` filter. Both settings end with the transaction, so the pooled connection goes back clean.
 */
export async function withTenantTransaction<T>(
  pool: pg.Pool,
  orgId: string,
  work: (client: pg.PoolClient, transaction: Transaction) => Promise<T>,
  options: { readOnly?: boolean } = {},
): Promise<T> {
  return inTransaction(pool, beginOf(options), { orgId }, work);
}

/**
 * As withTenantTransaction, and `firstRead` (one scalar subquery written in the code, made once by
 * tenantRead, in which `$2` is the organisation's id) is read by the statement that sets the tenant
 * and handed to `work`: a value every call needs (its organisation's settings) comes in the
 * transaction's snapshot without a round trip of its own.
 * The statement is planned and its rights checked before the role changes, so row-level security
 * does not narrow the subquery: it must name its rows itself (by `$2`).
 */
export async function withTenantTransactionReading<V, T>(
  pool: pg.Pool,
  orgId: string,
  firstRead: TenantRead,
  work: (client: pg.PoolClient, transaction: Transaction, value: V | null) => Promise<T>,
  options: { readOnly?: boolean } = {},
): Promise<T> {
  return inTransaction(pool, beginOf(options), { orgId, firstRead }, (client, transaction, value) => work(client, transaction, value as V | null));
}

function beginOf(options: { readOnly?: boolean }): string {
  return options.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN';
}

interface Tenant {
  orgId: string;
  firstRead?: TenantRead;
}

/**
 * A constant statement run on every request or call, prepared once per pooled connection under its
 * name: Postgres then skips parsing and planning it each time. The API key's lookup costs the
 * server about 140 µs of CPU unnamed and 35 named; the tenant statement that reads the
 * organisation's settings 50 µs less. Only for SQL written in the code, never built from input:
 * each name keeps its plan on every connection for the connection's life. Postgres plans again by
 * itself when a table it reads changes, and for each role under row-level security.
 */
export interface NamedStatement {
  name: string;
  text: string;
}

export function namedStatement(name: string, text: string): NamedStatement {
  return { name: `steward:${name}`, text };
}

/** Runs a named statement on a pool or a client (see namedStatement). */
export async function queryNamed<R extends pg.QueryResultRow>(db: Queryable, statement: NamedStatement, values: unknown[]): Promise<R[]> {
  try {
    return (await db.query<R>({ name: statement.name, text: statement.text, values })).rows;
  } catch (error) {
    // Marked here, where every named statement runs, so the connection is closed (see inTransaction)
    // even when the caller wraps or swallows the error.
    if (isStalePlan(error)) stalePlanClients.add(db);
    throw error;
  }
}

/** Connections that met a stale prepared statement (see isStalePlan); weak, so a closed one is forgotten. */
const stalePlanClients = new WeakSet<object>();

const ENTER_TENANT = `SELECT set_config('role', $1, true), set_config('steward.org_id', $2, true)`;
const TENANT_STATEMENT = namedStatement('enter-tenant', ENTER_TENANT);

/** The tenant statement with a first read, composed and named once (see withTenantTransactionReading). */
export interface TenantRead {
  readonly statement: NamedStatement;
}

/**
 * Named by a digest of its text, not by a counter: a connection refuses one name for two texts, and
 * two copies of this module (a test's module registry beside a shared stack's) must agree on names.
 */
export function tenantRead(firstRead: string): TenantRead {
  const digest = createHash('sha256').update(firstRead).digest('hex').slice(0, 16);
  return { statement: namedStatement(`enter-tenant-reading-${digest}`, `${ENTER_TENANT}, (${firstRead}) AS first_read`) };
}

/** Becomes the application role for `orgId` (one round trip; set_config(..., true) is SET LOCAL, and 'role' is the setting SET ROLE changes). */
async function enterTenant(client: pg.PoolClient, tenant: Tenant): Promise<unknown> {
  const rows = await queryNamed<{ first_read?: unknown }>(client, tenant.firstRead?.statement ?? TENANT_STATEMENT, [APP_ROLE, tenant.orgId]);
  return tenant.firstRead ? rows[0]?.first_read ?? null : undefined;
}

async function inTransaction<T>(
  pool: pg.Pool,
  begin: string,
  tenant: Tenant | undefined,
  work: (client: pg.PoolClient, transaction: Transaction, firstRead: unknown) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const firstRead = tenant ? await enterTenant(client, tenant) : undefined;
    const transaction = bindConnection(client);
    let result: T;
    try {
      result = await work(client, transaction, firstRead);
      await client.query('COMMIT');
      unbindConnection(client, 'commit');
    } finally {
      unbindConnection(client, 'rollback');
    }
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    // Given an error, the pool closes the connection instead of lending it again.
    client.release(stalePlanClients.has(client) ? new Error('a prepared statement of this connection went stale') : undefined);
  }
}

/**
 * Postgres refuses a statement this connection prepared once a migration changed the type of a
 * column it returns, or dropped one (adding a column does not: named statements list their
 * columns), and it goes on refusing it for the connection's life. queryNamed marks the connection
 * that met the refusal and inTransaction closes it rather than returning it to the pool, so only the
 * call that met it fails, and its activity's retry runs on another connection. (A statement run on
 * the pool itself already closes its connection on any error.)
 */
export function isStalePlan(error: unknown): boolean {
  const { code, routine, message } = (error ?? {}) as { code?: unknown; routine?: unknown; message?: unknown };
  if (code !== '0A000') return false;
  // The routine that raises it names it in any server language; the message only in English.
  return routine === 'RevalidateCachedQuery' || (typeof message === 'string' && message.includes('cached plan must not change result type'));
}

export async function queryRows<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  return (await db.query<R>(text, values)).rows;
}

export async function queryOne<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R | undefined> {
  return (await db.query<R>(text, values)).rows[0];
}
