import type { Pool } from '../../db/pool';
import { eventually } from './sandbox-stack';

/**
 * For tests of lock order: hold rows (or an advisory lock) in a transaction of the test's own, see
 * who waits behind it, and ask whether a row is held by anyone, without waiting for it.
 */

export interface HeldLock {
  /** The holding backend, for `waitersBehind`. */
  pid: number;
  /** Commits the holding transaction, letting whatever waits behind it go on. */
  release: () => Promise<void>;
}

/** Runs `sql` (a `FOR UPDATE`, an advisory lock…) in a new transaction and keeps it open until release(). */
export async function holdLock(pool: Pool, sql: string, params: unknown[]): Promise<HeldLock> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(sql, params);
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    return { pid, release: async () => { try { await client.query('COMMIT'); } finally { client.release(); } } };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
    throw error;
  }
}

/** Backends that wait for the holder directly. */
export async function waitersBehind(pool: Pool, pid: number): Promise<number> {
  return (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid])).rows[0]!.n;
}

/** Waits until `n` backends wait for the holder (30 s at most). */
export async function untilWaitingBehind(pool: Pool, held: HeldLock, n = 1): Promise<void> {
  await eventually(() => waitersBehind(pool, held.pid), (count) => count === n);
}

/** Whether `sql` (a `SELECT … FOR UPDATE NOWAIT` of one row) could take its lock now: false when someone holds it. */
export async function canLockNow(pool: Pool, sql: string, params: unknown[]): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(sql, params);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return false;
    throw error;
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

/** Whether the organisation's audit chain head is free: an audit event held in an open transaction holds it until commit. */
export const chainHeadIsFree = (pool: Pool, orgId: string) =>
  canLockNow(pool, 'SELECT org_id FROM audit_chain_heads WHERE org_id = $1 FOR UPDATE NOWAIT', [orgId]);

/**
 * Starts `write` and gives back its promise with a flag that says whether it has settled; a refusal
 * is kept for whoever awaits the promise (and is not reported as unhandled meanwhile).
 */
export function started<T>(write: () => Promise<T>): { running: Promise<T>; settled: () => boolean } {
  let done = false;
  const running = write();
  running.then(() => { done = true; }, () => { done = true; });
  return { running, settled: () => done };
}
