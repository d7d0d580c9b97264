import pg from 'pg';
import { literal, Sequelize, Transaction, type Options } from 'sequelize';
type Literal = ReturnType<typeof literal>;
import type { Queryable } from './pool';

/**
 * The process's one Sequelize instance. It defines the models and writes their SQL, but it never
 * opens a connection of its own: every model call runs on a `pg` connection we already hold,
 * handed to it as `{ transaction }` (see `bindConnection`). So a tool call's models and its raw
 * SQL always share one connection, one transaction and one snapshot, and one `pg.Pool` per
 * database stays the only pool (tests and the admin CLI open several databases in one process,
 * while model classes are process-wide).
 *
 * The `pg` type parsers (db/pool.ts) apply to model reads too, because the connections are
 * ours: DATE (DATEONLY) stays a 'YYYY-MM-DD' string, int8 (BIGINT) is a number, timestamptz a Date.
 *
 * Keep caller values out of `fn()` / `where(fn(...), ...)`: Sequelize 6 writes a `$` inside a
 * function argument as `$$`, so `lower(name) = lower('a $1')` silently matches nothing
 * (test/unit/data-layer-lint.test.ts pins this). Lookups that need a SQL function stay SQL.
 */
export const sequelize = new Sequelize({
  dialect: 'postgres',
  dialectModule: pg,
  logging: false,
  // Without a version Sequelize would ask the server on its first connection, and it has none.
  databaseVersion: '13.0.0',
  define: { underscored: true, freezeTableName: true },
} as Options);

/** Thrown when a model call forgets `{ transaction }`: it would otherwise run outside the caller's snapshot, locks and tenant setting. */
export class MissingTransactionError extends Error {
  constructor() {
    super('A model call ran without { transaction }: pass the transaction of the connection it belongs to (ctx.transaction, transactionOf(db) or withModels)');
    this.name = 'MissingTransactionError';
  }
}

sequelize.connectionManager.getConnection = async () => {
  throw new MissingTransactionError();
};
sequelize.connectionManager.releaseConnection = () => undefined;
sequelize.connectionManager.close = async () => undefined;

const bindings = new WeakMap<object, Transaction>();

/**
 * Makes `client` usable by models: returns a Sequelize transaction object whose connection is
 * `client`. It issues no statement: whether the client is inside BEGIN … COMMIT is the caller's
 * business (withTransaction opens one; a bare client runs each statement on its own).
 */
export function bindConnection(client: pg.PoolClient | pg.Client): Transaction {
  const transaction = new Transaction(sequelize, {});
  // Sequelize runs a query with a transaction on `transaction.connection`, and asks for nothing else of it.
  (transaction as unknown as { connection: object }).connection = client;
  bindings.set(client, transaction);
  return transaction;
}

/** Marks a binding as over, so a model call that outlives its connection's transaction is refused instead of running on a reused connection. */
export function unbindConnection(client: pg.PoolClient | pg.Client, outcome: 'commit' | 'rollback'): void {
  const transaction = bindings.get(client);
  if (!transaction) return;
  (transaction as unknown as { finished: string }).finished = outcome;
  bindings.delete(client);
}

/** The Sequelize transaction bound to `db`, if `db` is a connection inside withTransaction / withTenantTransaction. */
export function transactionOf(db: Queryable): Transaction | undefined {
  return bindings.get(db);
}

/**
 * Runs model work on `db`, whatever it is: inside its transaction when `db` is a transaction's
 * connection; otherwise on one connection taken from the pool (or on the bare client), each
 * statement committing on its own as a raw `pool.query` would.
 */
export async function withModels<T>(db: Queryable, givenWork: (transaction: Transaction) => Promise<T>): Promise<T> {
  const work = (transaction: Transaction) => givenWork(transaction).catch((error: unknown) => {
    throw databaseErrorOf(error);
  });
  const bound = transactionOf(db);
  if (bound) return work(bound);
  if (db instanceof pg.Pool) {
    const client = await db.connect();
    const transaction = bindConnection(client);
    try {
      return await work(transaction);
    } finally {
      unbindConnection(client, 'commit');
      client.release();
    }
  }
  if (db instanceof pg.Client) {
    const transaction = bindConnection(db);
    try {
      return await work(transaction);
    } finally {
      unbindConnection(db, 'commit');
    }
  }
  throw new Error('withModels needs a pg pool or client');
}

/**
 * Sequelize wraps a PostgreSQL error (keeping it as `original`), which hides its SQLSTATE
 * `code`, constraint and table from the code that classifies failures (a NOT NULL or CHECK
 * failure must fail a call at once, a unique violation may be retried). Model calls therefore
 * throw the PostgreSQL error itself, as raw SQL does.
 */
export function databaseErrorOf(error: unknown): unknown {
  const original = (error as { original?: unknown } | null)?.original;
  const code = (original as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? original : error;
}

/**
 * The model default of every column that has a database default: the SQL keyword DEFAULT, so the
 * database stays the one place defaults are written (`created_at`/`updated_at` get the transaction's
 * now(), as the raw SQL always did, not the application's clock) and Sequelize's not-null check passes.
 */
export function databaseDefault(): Literal {
  return literal('DEFAULT');
}

/**
 * A separate Sequelize instance that runs every query on `client`, for code that calls models
 * without `{ transaction }` and cannot be told otherwise: umzug's SequelizeStorage, run on the
 * connection that holds the migration lock.
 */
export function sequelizeOnConnection(client: pg.PoolClient | pg.Client): Sequelize {
  const instance = new Sequelize({
    dialect: 'postgres',
    dialectModule: pg,
    logging: false,
    databaseVersion: '13.0.0',
  } as Options);
  instance.connectionManager.getConnection = async () => client;
  instance.connectionManager.releaseConnection = () => undefined;
  instance.connectionManager.close = async () => undefined;
  return instance;
}
