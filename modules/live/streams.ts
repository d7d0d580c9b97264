import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { assertAllowance, recordUsage } from '../../kernel/billing';
import { notFound } from '../kit';
import { episodeExists, episodeForInstance } from '../mediahub/api';
import { memberWatchPath } from '../people/api';
import { getInstance } from '../schedule/api';
import { requireProvider, streamingProviderFromEnv, type ProviderStatus } from './provider';

export type StreamStatus = 'created' | 'ready' | 'testing' | 'live' | 'complete' | 'cancelled';

export interface StreamRow {
  id: string; title: string; description: string | null; instance_id: string | null; scheduled_start: Date; scheduled_end: Date;
  grace_minutes: number; early_start_minutes: number; chat_before_minutes: number; chat_after_minutes: number; unscheduled: boolean;
  status: StreamStatus; provider: string; provider_broadcast_id: string | null; provider_stream_id: string | null; episode_id: string | null;
  started_at: Date | null; ended_at: Date | null; ended_reason: string | null; hours_recorded: number; auto_created: boolean; created_at: Date;
}

export interface StreamView {
  id: string; title: string; description: string | null; instanceId: string | null; startsAt: string; endsAt: string; graceMinutes: number;
  earlyStartMinutes: number; chatBeforeMinutes: number; chatAfterMinutes: number; unscheduled: boolean; status: StreamStatus; provider: string;
  providerBroadcastId: string | null; episodeId: string | null; startedAt: string | null; endedAt: string | null; endedReason: string | null;
  /** The end plus the grace period: the stream is completed then if nobody ended it. */
  completesBy: string; streamHours: number; watchPath: string; memberWatchPath: string; autoCreated: boolean; createdAt: string;
}

/** The real cost of a stream is its hours live; the metered feature `streams` counts hours. */
export const STREAM_FEATURE = 'streams' as const;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

export const watchPath = (orgId: string, streamId: string) => `/live/watch/${orgId}/${streamId}`;

export function streamView(orgId: string, row: StreamRow): StreamView {
  return {
    id: row.id, title: row.title, description: row.description, instanceId: row.instance_id, startsAt: row.scheduled_start.toISOString(), endsAt: row.scheduled_end.toISOString(),
    graceMinutes: row.grace_minutes, earlyStartMinutes: row.early_start_minutes, chatBeforeMinutes: row.chat_before_minutes, chatAfterMinutes: row.chat_after_minutes,
    unscheduled: row.unscheduled, status: row.status, provider: row.provider, providerBroadcastId: row.provider_broadcast_id, episodeId: row.episode_id,
    startedAt: row.started_at?.toISOString() ?? null, endedAt: row.ended_at?.toISOString() ?? null, endedReason: row.ended_reason,
    completesBy: deadlineOf(row).toISOString(), streamHours: row.hours_recorded, watchPath: watchPath(orgId, row.id), memberWatchPath: memberWatchPath(orgId, row.id), autoCreated: row.auto_created, createdAt: row.created_at.toISOString(),
  };
}

export const deadlineOf = (row: Pick<StreamRow, 'scheduled_end' | 'grace_minutes'>) => new Date(row.scheduled_end.getTime() + row.grace_minutes * MINUTE_MS);

export async function streamRow(db: Queryable, orgId: string, streamId: string, options: { forUpdate?: boolean } = {}): Promise<StreamRow> {
  const row = await queryOne<StreamRow>(db, `SELECT * FROM live_streams WHERE org_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, streamId]);
  if (!row) throw notFound('Stream', streamId, 'live_list_streams lists the streams.');
  return row;
}

export async function listStreams(db: Queryable, orgId: string, filter: { status?: StreamStatus; from?: string; to?: string; limit: number }): Promise<StreamView[]> {
  const rows = await queryRows<StreamRow>(db, `SELECT * FROM live_streams WHERE org_id = $1 AND ($2::text IS NULL OR status = $2)
    AND ($3::timestamptz IS NULL OR scheduled_start >= $3) AND ($4::timestamptz IS NULL OR scheduled_start <= $4) ORDER BY scheduled_start DESC, id LIMIT $5`,
  [orgId, filter.status ?? null, filter.from ?? null, filter.to ?? null, filter.limit]);
  return rows.map((row) => streamView(orgId, row));
}

export interface ScheduleInput {
  title?: string; description?: string | null; instanceId?: string; startsAt?: string; endsAt?: string; durationMinutes?: number;
  graceMinutes?: number; earlyStartMinutes?: number; chatBeforeMinutes?: number; chatAfterMinutes?: number; episodeId?: string | null;
}

/** Times from a schedule instance (its title, start and end) or from the date given; exactly one of the two. */
async function timesFor(db: Queryable, orgId: string, input: ScheduleInput): Promise<{ title: string; start: Date; end: Date; instanceId: string | null }> {
  if (input.instanceId && input.startsAt) {
    throw new StewardError('validation_failed', 'Give instanceId or startsAt, not both', { issues: [{ path: 'startsAt', message: 'the instance gives the time' }] });
  }
  if (input.instanceId) {
    const instance = await getInstance(db, orgId, input.instanceId);
    if (instance.status === 'cancelled') throw new StewardError('conflict', `${instance.title} on ${instance.localDate} is cancelled`, { details: { reason: 'instance_cancelled' }, hint: 'Stream a service that takes place.' });
    const start = new Date(instance.startsAt);
    const end = input.durationMinutes ? new Date(start.getTime() + input.durationMinutes * MINUTE_MS) : new Date(instance.endsAt);
    return { title: input.title ?? instance.title, start, end, instanceId: instance.id };
  }
  if (!input.startsAt) {
    throw new StewardError('validation_failed', 'Give a schedule instance (instanceId) or a start (startsAt)', {
      issues: [{ path: 'instanceId', message: 'schedule_list_upcoming_instances lists the services' }],
    });
  }
  if (!input.title) throw new StewardError('validation_failed', 'A stream on a date needs a title', { issues: [{ path: 'title', message: 'required without instanceId' }] });
  const start = new Date(input.startsAt);
  const end = input.endsAt ? new Date(input.endsAt) : new Date(start.getTime() + (input.durationMinutes ?? 90) * MINUTE_MS);
  return { title: input.title, start, end, instanceId: null };
}

function checkTimes(start: Date, end: Date): void {
  if (end.getTime() <= start.getTime()) throw new StewardError('validation_failed', 'The stream must end after it starts', { issues: [{ path: 'endsAt', message: 'after startsAt' }] });
  if (end.getTime() - start.getTime() > 12 * HOUR_MS) throw new StewardError('validation_failed', 'A stream lasts at most 12 hours', { issues: [{ path: 'endsAt', message: 'at most 12 hours after the start' }] });
}

/** Creates the provider's broadcast and binds its ingest stream (created → ready), when a provider is configured. */
async function provision(db: Queryable, orgId: string, row: StreamRow): Promise<StreamRow> {
  if (row.provider_broadcast_id) return row;
  const provider = streamingProviderFromEnv();
  if (!provider) return row;
  const made = await provider.createBroadcast({ title: row.title, startsAt: row.scheduled_start.toISOString(), endsAt: row.scheduled_end.toISOString() });
  return (await queryOne<StreamRow>(db, `UPDATE live_streams SET provider_broadcast_id = $3, provider_stream_id = $4, provider = $5, status = CASE WHEN status = 'created' THEN 'ready' ELSE status END,
    updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, row.id, made.broadcastId, made.streamId, provider.name]))!;
}

/**
 * The media hub episode a stream becomes: one named must be this organisation's (checked through
 * mediahub's api); none named, a service's stream takes the episode made for the same service, if any.
 */
async function checkedEpisode(db: Queryable, orgId: string, episodeId: string): Promise<string> {
  if (!(await episodeExists(db, orgId, episodeId))) throw notFound('Episode', episodeId, 'mediahub_search finds sermon episodes by title, speaker or date.');
  return episodeId;
}

async function episodeFor(db: Queryable, orgId: string, named: string | null | undefined, instanceId: string | null): Promise<string | null> {
  if (named) return checkedEpisode(db, orgId, named);
  if (named === undefined && instanceId) return episodeForInstance(db, orgId, instanceId);
  return null;
}

export async function scheduleStream(db: Queryable, orgId: string, input: ScheduleInput, options: { unscheduled?: boolean } = {}): Promise<StreamView> {
  const times = await timesFor(db, orgId, input);
  checkTimes(times.start, times.end);
  if (times.instanceId) {
    const existing = await queryOne<{ id: string }>(db, "SELECT id FROM live_streams WHERE org_id = $1 AND instance_id = $2 AND status <> 'cancelled'", [orgId, times.instanceId]);
    if (existing) throw new StewardError('conflict', 'That service already has a stream', { details: { reason: 'instance_has_stream', streamId: existing.id }, hint: 'live_update_stream changes it.' });
  }
  const row = await queryOne<StreamRow>(db, `INSERT INTO live_streams (id, org_id, title, description, instance_id, scheduled_start, scheduled_end, grace_minutes, early_start_minutes,
      chat_before_minutes, chat_after_minutes, unscheduled, episode_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8, 30), coalesce($9, 15), coalesce($10, 15), coalesce($11, 15), $12, $13) RETURNING *`,
  [randomUUID(), orgId, times.title, input.description ?? null, times.instanceId, times.start, times.end, input.graceMinutes ?? null, input.earlyStartMinutes ?? null,
    input.chatBeforeMinutes ?? null, input.chatAfterMinutes ?? null, options.unscheduled ?? false, await episodeFor(db, orgId, input.episodeId, times.instanceId)]);
  return streamView(orgId, await provision(db, orgId, row!));
}

export interface UpdateInput extends Omit<ScheduleInput, 'instanceId' | 'durationMinutes'> { cancel?: boolean }

export async function updateStream(db: Queryable, orgId: string, streamId: string, input: UpdateInput): Promise<StreamView> {
  const row = await streamRow(db, orgId, streamId, { forUpdate: true });
  if (row.status === 'complete' || row.status === 'cancelled') {
    throw new StewardError('conflict', `The stream is ${row.status}`, { details: { reason: `stream_${row.status}` }, hint: 'Schedule a new stream (live_schedule_stream).' });
  }
  if (input.cancel) {
    if (row.status === 'live' || row.status === 'testing') throw new StewardError('conflict', 'The stream is live: end it instead', { details: { reason: 'stream_live' }, hint: 'live_end_stream ends it.' });
    const cancelled = await queryOne<StreamRow>(db, "UPDATE live_streams SET status = 'cancelled', ended_reason = 'cancelled', updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *", [orgId, streamId]);
    return streamView(orgId, cancelled!);
  }
  const start = input.startsAt ? new Date(input.startsAt) : row.scheduled_start;
  const end = input.endsAt ? new Date(input.endsAt) : input.startsAt ? new Date(start.getTime() + (row.scheduled_end.getTime() - row.scheduled_start.getTime())) : row.scheduled_end;
  checkTimes(start, end);
  if (input.startsAt && row.status === 'live') throw new StewardError('conflict', 'A live stream\'s start cannot move', { details: { reason: 'stream_live' }, issues: [{ path: 'startsAt', message: 'already started' }] });
  const updated = (await queryOne<StreamRow>(db, `UPDATE live_streams SET title = coalesce($3, title), description = CASE WHEN $4::boolean THEN $5 ELSE description END,
      scheduled_start = $6, scheduled_end = $7, grace_minutes = coalesce($8, grace_minutes), early_start_minutes = coalesce($9, early_start_minutes),
      chat_before_minutes = coalesce($10, chat_before_minutes), chat_after_minutes = coalesce($11, chat_after_minutes),
      episode_id = CASE WHEN $12::boolean THEN $13::uuid ELSE episode_id END, updated_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`,
  [orgId, streamId, input.title ?? null, input.description !== undefined, input.description ?? null, start, end, input.graceMinutes ?? null, input.earlyStartMinutes ?? null,
    input.chatBeforeMinutes ?? null, input.chatAfterMinutes ?? null, input.episodeId !== undefined, input.episodeId ? await checkedEpisode(db, orgId, input.episodeId) : null]))!;
  const provider = streamingProviderFromEnv();
  if (provider && updated.provider_broadcast_id && (input.title || input.startsAt || input.endsAt)) {
    await provider.updateBroadcast(updated.provider_broadcast_id, { title: updated.title, startsAt: updated.scheduled_start.toISOString(), endsAt: updated.scheduled_end.toISOString() });
  }
  return streamView(orgId, updated);
}

export interface StatusView { stream: StreamView; provider: ProviderStatus | null; ingestActive: boolean; chatOpen: boolean; canGoLive: boolean; reasons: string[] }

const chatOpenFor = (row: StreamRow, now: Date) => row.status !== 'cancelled'
  && now.getTime() >= row.scheduled_start.getTime() - row.chat_before_minutes * MINUTE_MS
  && now.getTime() <= (row.ended_at ?? row.scheduled_end).getTime() + row.chat_after_minutes * MINUTE_MS;

export async function streamStatus(db: Queryable, orgId: string, streamId: string, now = new Date()): Promise<StatusView> {
  let row = await streamRow(db, orgId, streamId);
  if (row.status === 'created') row = await provision(db, orgId, row);
  const provider = streamingProviderFromEnv();
  const status = provider && row.provider_broadcast_id ? await provider.status(row.provider_broadcast_id, row.provider_stream_id) : null;
  const ingestActive = status?.streamStatus === 'active';
  const reasons: string[] = [];
  if (!status) reasons.push('no streaming provider is configured');
  else if (!ingestActive) reasons.push(`the provider reports the ingest ${status.streamStatus ?? 'unknown'}: start the encoder`);
  if (!['ready', 'testing'].includes(row.status)) reasons.push(`the stream is ${row.status}`);
  return { stream: streamView(orgId, row), provider: status, ingestActive, chatOpen: chatOpenFor(row, now), canGoLive: reasons.length === 0, reasons };
}

/** Early: before the scheduled start less the early-start allowance. Unscheduled: started without a stream scheduled for it. */
export async function startNeedsApproval(db: Queryable, orgId: string, args: { streamId?: unknown }, now = new Date()): Promise<boolean> {
  if (typeof args.streamId !== 'string') return true;
  const row = await queryOne<StreamRow>(db, 'SELECT * FROM live_streams WHERE org_id = $1 AND id = $2', [orgId, args.streamId]);
  if (!row) return false;
  return row.unscheduled || now.getTime() < row.scheduled_start.getTime() - row.early_start_minutes * MINUTE_MS;
}

export async function startStream(db: Queryable, orgId: string, input: { streamId?: string; title?: string; durationMinutes?: number }): Promise<StatusView> {
  let streamId = input.streamId;
  if (!streamId) {
    if (!input.title) throw new StewardError('validation_failed', 'Name the stream (streamId) or give a title for an unscheduled one', { issues: [{ path: 'streamId', message: 'live_list_streams lists them' }] });
    streamId = (await scheduleStream(db, orgId, { title: input.title, startsAt: new Date().toISOString(), durationMinutes: input.durationMinutes ?? 90, earlyStartMinutes: 0 }, { unscheduled: true })).id;
  }
  let row = await streamRow(db, orgId, streamId, { forUpdate: true });
  if (row.status === 'live') throw new StewardError('conflict', 'The stream is live already', { details: { reason: 'already_live' } });
  if (!['created', 'ready', 'testing'].includes(row.status)) throw new StewardError('conflict', `The stream is ${row.status}`, { details: { reason: `stream_${row.status}` }, hint: 'Schedule a new stream (live_schedule_stream).' });
  if (Date.now() > deadlineOf(row).getTime()) throw new StewardError('conflict', 'The stream\'s end and grace period have passed', { details: { reason: 'stream_past_end' }, hint: 'live_update_stream moves its end, or schedule a new one.' });
  requireProvider();
  row = await provision(db, orgId, row);
  const provider = requireProvider();
  const status = await provider.status(row.provider_broadcast_id!, row.provider_stream_id);
  if (status.streamStatus !== 'active') {
    throw new StewardError('conflict', `The provider reports the ingest ${status.streamStatus ?? 'unknown'}, so the stream cannot go live`, {
      details: { reason: 'ingest_inactive', streamStatus: status.streamStatus }, hint: 'Start the encoder (OBS, the vision mixer) sending to the stream, then live_get_stream_status until ingestActive, and start again.',
    });
  }
  const hours = Math.max(1, Math.ceil((row.scheduled_end.getTime() - Math.min(Date.now(), row.scheduled_start.getTime())) / HOUR_MS));
  await assertAllowance(db, orgId, STREAM_FEATURE, hours, { tool: 'live_start_stream', purpose: 'stream hours' });
  if (status.lifeCycleStatus !== 'live') {
    const moved = await provider.transition(row.provider_broadcast_id!, 'live');
    if (!moved.ok) throw new StewardError('conflict', `The provider refused to go live: ${moved.message}`, { details: { reason: 'provider_refused', providerReason: moved.reason } });
  }
  await db.query("UPDATE live_streams SET status = 'live', started_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, row.id]);
  return streamStatus(db, orgId, row.id);
}

/**
 * Completes a stream: at the provider (a live or testing broadcast goes complete) and here, with the
 * hours it was live recorded once against the `streams` allowance (keyed by the stream). A stream
 * that never went live completes with no hours.
 */
async function complete(db: Queryable, orgId: string, row: StreamRow, reason: 'host' | 'auto_complete'): Promise<StreamRow> {
  const provider = streamingProviderFromEnv();
  if (provider && row.provider_broadcast_id) {
    const status = await provider.status(row.provider_broadcast_id, row.provider_stream_id);
    if (status.lifeCycleStatus === 'live' || status.lifeCycleStatus === 'testing') {
      const moved = await provider.transition(row.provider_broadcast_id, 'complete');
      if (!moved.ok && moved.reason !== 'redundantTransition') throw new StewardError('conflict', `The provider refused to complete the stream: ${moved.message}`, { details: { reason: 'provider_refused', providerReason: moved.reason } });
    }
  }
  const endedAt = new Date();
  const hours = row.started_at ? Math.max(1, Math.ceil((endedAt.getTime() - row.started_at.getTime()) / HOUR_MS)) : 0;
  const done = await queryOne<StreamRow>(db, `UPDATE live_streams SET status = 'complete', ended_at = $3, ended_reason = $4, hours_recorded = $5, updated_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, row.id, endedAt, reason, hours]);
  if (hours > 0) await recordUsage(db, { orgId, feature: STREAM_FEATURE, units: hours, idempotencyKey: `live-stream-${row.id}`, tool: reason === 'host' ? 'live_end_stream' : 'live.auto_complete' });
  return done!;
}

export async function endStream(db: Queryable, orgId: string, streamId: string): Promise<StreamView> {
  const row = await streamRow(db, orgId, streamId, { forUpdate: true });
  if (row.status !== 'live' && row.status !== 'testing') {
    throw new StewardError('conflict', `The stream is ${row.status}, not live`, { details: { reason: `stream_${row.status}` }, hint: row.status === 'complete' ? 'It has ended already.' : 'live_update_stream with cancel cancels a stream that has not started.' });
  }
  return streamView(orgId, await complete(db, orgId, row, 'host'));
}

/**
 * The stream's timer: at its end plus grace a stream not yet complete is completed (live or not),
 * so no stream stays live. Answers when to look again if its end moved later.
 */
export async function autoComplete(db: Queryable, orgId: string, streamId: string, now = new Date()): Promise<{ outcome: 'completed' | 'finished' | 'not_due'; dueAt: string }> {
  const row = await queryOne<StreamRow>(db, 'SELECT * FROM live_streams WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, streamId]);
  if (!row || row.status === 'complete' || row.status === 'cancelled') return { outcome: 'finished', dueAt: now.toISOString() };
  const due = deadlineOf(row);
  if (now.getTime() < due.getTime()) return { outcome: 'not_due', dueAt: due.toISOString() };
  await complete(db, orgId, row, 'auto_complete');
  await recordJobChange(db, {
    orgId, channel: 'job:live.auto_complete', module: 'live', noun: 'stream', verb: 'complete', target: { type: 'stream', id: streamId },
    fields: { status: 'complete', endedBy: 'auto_complete' }, previous: { status: row.status },
  });
  return { outcome: 'completed', dueAt: due.toISOString() };
}

/** When the stream's timer should look next (its end plus grace), or null when it has finished. */
export async function streamDeadline(db: Queryable, orgId: string, streamId: string): Promise<string | null> {
  const row = await queryOne<StreamRow>(db, 'SELECT * FROM live_streams WHERE org_id = $1 AND id = $2', [orgId, streamId]);
  if (!row || row.status === 'complete' || row.status === 'cancelled') return null;
  return deadlineOf(row).toISOString();
}
