import type { Pool, PoolClient } from '../db/pool';
import { errorFields, log } from '../core/log';
import { isCallWatched, offerCallProgress, type CallProgress } from './call-progress';

/**
 * Progress across processes. A host may run the API and the worker apart, so the caller waiting on
 * a call and the activity reporting its progress need not share the in-process listener map
 * (temporal/call-progress.ts). Tool calls run as local activities, which cannot heartbeat, so
 * Temporal itself cannot carry the reports; Postgres, which both sides already reach, can:
 * the worker sends each report no caller in its own process hears as a NOTIFY on one channel, and
 * an API with a caller waiting LISTENs on it and hands each report to its own listeners, keyed by
 * the call's workflow id (which names the organisation, so no caller hears another's call; a
 * proposal's decision goes under the proposal's workflow id, which only the API that opened the
 * proposal for its caller listens on: temporal/proposal-progress.ts).
 * Delivery is best effort, as progress is: a lost report only means one notification fewer, and
 * the call's answer never depends on it. Reports carry counts and the tool's own short line,
 * never personal data.
 */
export const CALL_PROGRESS_CHANNEL = 'steward_call_progress';

/** NOTIFY payloads are limited to 8000 bytes; a progress line is a short sentence. */
const MAX_MESSAGE_CHARS = 200;

interface Relayed extends CallProgress {
  workflowId: string;
}

/** The report as it travels: its call's id and the figures, nothing else. */
function payloadOf(workflowId: string, progress: CallProgress): string {
  const message = progress.message === undefined ? undefined : progress.message.slice(0, MAX_MESSAGE_CHARS);
  return JSON.stringify({ workflowId, done: progress.done, total: progress.total, message });
}

/** A received payload, or undefined when it is not one this relay sent. */
export function relayedOf(payload: string | undefined): Relayed | undefined {
  if (!payload) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const v = value as Record<string, unknown> | null;
  if (!v || typeof v.workflowId !== 'string' || typeof v.done !== 'number' || !Number.isFinite(v.done)) return undefined;
  return {
    workflowId: v.workflowId,
    done: v.done,
    ...(typeof v.total === 'number' && Number.isFinite(v.total) ? { total: v.total } : {}),
    ...(typeof v.message === 'string' ? { message: v.message.slice(0, MAX_MESSAGE_CHARS) } : {}),
  };
}

/**
 * The worker's side: sends one call's reports to callers in other processes, one after another
 * (so they leave in the order made), and only those no caller in this process hears already
 * (an API sharing the worker's process has them at once). Never waits and never throws: a tool's
 * loop must not slow down or fail because a report could not go. The worker cannot know whether
 * an API elsewhere waits, so it sends regardless: at most about four a second per long call (the
 * reporter thins them, and only the newest report waits while one is sent); a NOTIFY nobody listens to costs Postgres little.
 */
export function relayCallProgress(pool: Pool, workflowId: string): (progress: CallProgress) => void {
  // While one report is on its way only the newest waiting one is kept: a busy pool never piles up stale reports.
  let sending = false;
  let waiting: string | undefined;
  const sendNext = async (): Promise<void> => {
    sending = true;
    while (waiting !== undefined) {
      const payload = waiting;
      waiting = undefined;
      await pool.query('SELECT pg_notify($1, $2)', [CALL_PROGRESS_CHANNEL, payload])
        .catch((error: unknown) => log('warn', 'call progress not relayed', { ...errorFields(error), workflowId }));
    }
    sending = false;
  };
  return (progress) => {
    if (isCallWatched(workflowId)) return;
    waiting = payloadOf(workflowId, progress);
    if (!sending) void sendNext();
  };
}

/**
 * One report whose order matters more than its rate (a proposal's decision, heard by the caller
 * waiting on it): handed to a caller in this process, or else sent and waited for, so what the
 * worker does next cannot overtake it. Never throws: the report is best effort, as every one is.
 */
export async function announceCallProgress(pool: Pool, workflowId: string, progress: CallProgress): Promise<void> {
  offerCallProgress(workflowId, progress);
  if (isCallWatched(workflowId)) return;
  await pool.query('SELECT pg_notify($1, $2)', [CALL_PROGRESS_CHANNEL, payloadOf(workflowId, progress)])
    .catch((error: unknown) => log('warn', 'call progress not relayed', { ...errorFields(error), workflowId }));
}

/**
 * The API's side: LISTENs while at least one caller in this process waits with a progress
 * listener, on one connection of its own taken from the pool and closed when the last one stops,
 * so an API with nobody waiting holds no connection for it (and shuts down as before).
 */
export class CallProgressFeed {
  private watchers = 0;
  private connection: Promise<PoolClient | undefined> | undefined;
  private readonly dropped = new WeakSet<PoolClient>();

  constructor(private readonly pool: Pool) {}

  /**
   * Resolves once reports sent from now on reach this process, then until the returned function is
   * called; if Postgres cannot be reached for it, at once (the call then answers without them).
   */
  async watch(): Promise<() => void> {
    this.watchers += 1;
    this.connection ??= this.open();
    await this.connection;
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.watchers -= 1;
      if (this.watchers === 0) this.close();
    };
  }

  private async open(): Promise<PoolClient | undefined> {
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      const listening = client;
      listening.on('notification', (message) => {
        const relayed = message.channel === CALL_PROGRESS_CHANNEL ? relayedOf(message.payload) : undefined;
        if (!relayed) return;
        const { workflowId, ...progress } = relayed;
        offerCallProgress(workflowId, progress);
      });
      // A lost connection ends this feed; the next caller to wait opens another.
      listening.on('error', () => this.drop(listening));
      await listening.query(`LISTEN ${CALL_PROGRESS_CHANNEL}`);
      return listening;
    } catch (error) {
      log('warn', 'call progress feed unavailable', errorFields(error));
      if (client) this.drop(client);
      return undefined;
    }
  }

  /** Destroys a connection once (never returned to the pool: a pooled connection must not go on listening). */
  private drop(client: PoolClient): void {
    if (this.dropped.has(client)) return;
    this.dropped.add(client);
    this.connection = undefined;
    client.release(true);
  }

  private close(): void {
    const closing = this.connection;
    this.connection = undefined;
    void closing?.then((client) => {
      if (client && !this.dropped.has(client)) {
        this.dropped.add(client);
        client.release(true);
      }
    }, () => undefined);
  }
}
