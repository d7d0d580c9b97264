import { randomUUID } from 'node:crypto';
import { isProposalActionWorkflowId } from '../../core/approvals';
import { StewardError } from '../../core/errors';
import { errorFields, log } from '../../core/log';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { assertAllowance, recordUsage } from '../../kernel/billing';
import { notFound } from '../kit';
import { episodeExists, episodeForInstance } from '../mediahub/api';
import { memberWatchPath } from '../people/api';
import { getInstance } from '../schedule/api';
import { requireProvider, streamingProviderFromEnv, type ProviderStatus, type StreamingProvider } from './provider';

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

/** A broadcast made at the provider for a stream, before its row records it. */
export interface MadeBroadcast { broadcastId: string; streamId: string; provider: string }

/**
 * Broadcasts made for calls that have not committed yet, by the call's workflow id: an attempt
 * retried after a failure before its commit uses the broadcast the first attempt made instead of
 * making a second (the provider takes no idempotency key). Held in memory, since a call's attempts
 * run in the same worker; entries go after an hour.
 */
const madeForCall = new Map<string, { made: MadeBroadcast; at: number }>();
const MADE_TTL_MS = HOUR_MS;

async function createBroadcast(provider: StreamingProvider, input: { title: string; start: Date; end: Date }, key: string | undefined): Promise<MadeBroadcast> {
  const now = Date.now();
  for (const [k, entry] of madeForCall) if (now - entry.at > MADE_TTL_MS) madeForCall.delete(k);
  const kept = key ? madeForCall.get(key) : undefined;
  if (kept) return kept.made;
  const made = await provider.createBroadcast({ title: input.title, startsAt: input.start.toISOString(), endsAt: input.end.toISOString() });
  const result = { ...made, provider: provider.name };
  if (key) madeForCall.set(key, { made: result, at: now });
  return result;
}

const recordBroadcast = (db: Queryable, orgId: string, streamId: string, made: MadeBroadcast) => queryOne<StreamRow>(db,
  `UPDATE live_streams SET provider_broadcast_id = $3, provider_stream_id = $4, provider = $5, status = CASE WHEN status = 'created' THEN 'ready' ELSE status END,
    updated_at = now() WHERE org_id = $1 AND id = $2 AND provider_broadcast_id IS NULL RETURNING *`, [orgId, streamId, made.broadcastId, made.streamId, made.provider]);

/**
 * Creates the provider's broadcast and binds its ingest stream (created → ready) for a stream that
 * has none, when a provider is configured. Called outside any transaction: the provider is asked
 * with no row locked, and the result is recorded in a short transaction of its own, only on a row
 * still without one (the row is the claim, so a stream provisioned meanwhile keeps its broadcast).
 */
export async function provisionOutside(pool: Pool, orgId: string, row: StreamRow, key?: string): Promise<StreamRow> {
  if (row.provider_broadcast_id || row.status !== 'created') return row;
  const provider = streamingProviderFromEnv();
  if (!provider) return row;
  const made = await createBroadcast(provider, { title: row.title, start: row.scheduled_start, end: row.scheduled_end }, key);
  const recorded = await withTenantTransaction(pool, orgId, (db) => recordBroadcast(db, orgId, row.id, made));
  if (key) madeForCall.delete(key);
  if (recorded) return recorded;
  const current = await streamRow(pool, orgId, row.id);
  // Another process provisioned the stream meanwhile and its broadcast was recorded: ours would sit unused at the provider.
  if (current.provider_broadcast_id !== made.broadcastId) await deleteUnused(provider, made);
  return current;
}

/** Deletes a broadcast that lost the race to be recorded; a failure is logged (ids only) and the stream is answered as it stands. */
async function deleteUnused(provider: StreamingProvider, made: MadeBroadcast): Promise<void> {
  try {
    await provider.deleteBroadcast(made.broadcastId, made.streamId);
  } catch (error) {
    log('warn', 'unused streaming broadcast not deleted', { ...errorFields(error), where: `broadcast ${made.broadcastId}` });
  }
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

/** What scheduling checks before anything is written: the times and the episode; refused here with the same errors as the write. */
async function scheduleBasis(db: Queryable, orgId: string, input: ScheduleInput): Promise<{ times: Awaited<ReturnType<typeof timesFor>>; episodeId: string | null }> {
  const times = await timesFor(db, orgId, input);
  checkTimes(times.start, times.end);
  if (times.instanceId) {
    const existing = await queryOne<{ id: string }>(db, "SELECT id FROM live_streams WHERE org_id = $1 AND instance_id = $2 AND status <> 'cancelled'", [orgId, times.instanceId]);
    if (existing) throw new StewardError('conflict', 'That service already has a stream', { details: { reason: 'instance_has_stream', streamId: existing.id }, hint: 'live_update_stream changes it.' });
  }
  return { times, episodeId: await episodeFor(db, orgId, input.episodeId, times.instanceId) };
}

/**
 * live_schedule_stream's step before its transaction: the checks a write would refuse (so a refused
 * call makes nothing at the provider), then the provider's broadcast, made once per call.
 */
export async function prepareSchedule(db: Queryable, orgId: string, input: ScheduleInput, workflowId?: string): Promise<MadeBroadcast | null> {
  const { times } = await scheduleBasis(db, orgId, input);
  const provider = streamingProviderFromEnv();
  return provider ? createBroadcast(provider, { title: times.title, start: times.start, end: times.end }, workflowId) : null;
}

/**
 * Writes a stream, bound to the provider's broadcast `made` before the transaction when there is one
 * (ready); without one it stays created until provisioned (provisionOutside). Calls no provider.
 */
export async function scheduleStream(db: Queryable, orgId: string, input: ScheduleInput, options: { unscheduled?: boolean; made?: MadeBroadcast | null } = {}): Promise<StreamView> {
  const { times, episodeId } = await scheduleBasis(db, orgId, input);
  const made = options.made ?? null;
  const row = await queryOne<StreamRow>(db, `INSERT INTO live_streams (id, org_id, title, description, instance_id, scheduled_start, scheduled_end, grace_minutes, early_start_minutes,
      chat_before_minutes, chat_after_minutes, unscheduled, episode_id, provider_broadcast_id, provider_stream_id, provider, status)
    VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8, 30), coalesce($9, 15), coalesce($10, 15), coalesce($11, 15), $12, $13, $14, $15, coalesce($16, 'youtube'), $17) RETURNING *`,
  [randomUUID(), orgId, times.title, input.description ?? null, times.instanceId, times.start, times.end, input.graceMinutes ?? null, input.earlyStartMinutes ?? null,
    input.chatBeforeMinutes ?? null, input.chatAfterMinutes ?? null, options.unscheduled ?? false, episodeId,
    made?.broadcastId ?? null, made?.streamId ?? null, made?.provider ?? null, made ? 'ready' : 'created']);
  return streamView(orgId, row!);
}

export interface UpdateInput extends Omit<ScheduleInput, 'instanceId' | 'durationMinutes'> { cancel?: boolean }

/** What an update would write, checked as the write checks it: refused here with the same errors. */
function updateBasis(row: StreamRow, input: UpdateInput): { start: Date; end: Date } {
  if (row.status === 'complete' || row.status === 'cancelled') {
    throw new StewardError('conflict', `The stream is ${row.status}`, { details: { reason: `stream_${row.status}` }, hint: 'Schedule a new stream (live_schedule_stream).' });
  }
  if (input.cancel) {
    if (row.status === 'live' || row.status === 'testing') throw new StewardError('conflict', 'The stream is live: end it instead', { details: { reason: 'stream_live' }, hint: 'live_end_stream ends it.' });
    return { start: row.scheduled_start, end: row.scheduled_end };
  }
  const start = input.startsAt ? new Date(input.startsAt) : row.scheduled_start;
  const end = input.endsAt ? new Date(input.endsAt) : input.startsAt ? new Date(start.getTime() + (row.scheduled_end.getTime() - row.scheduled_start.getTime())) : row.scheduled_end;
  checkTimes(start, end);
  if (input.startsAt && row.status === 'live') throw new StewardError('conflict', 'A live stream\'s start cannot move', { details: { reason: 'stream_live' }, issues: [{ path: 'startsAt', message: 'already started' }] });
  return { start, end };
}

/**
 * live_update_stream's step before its transaction: the update checked as the write checks it, then
 * the provider's broadcast given the new title and times. Setting them is the same however often it
 * is repeated, so a retried call changes nothing more.
 */
export async function prepareUpdate(db: Queryable, orgId: string, streamId: string, input: UpdateInput): Promise<void> {
  const row = await streamRow(db, orgId, streamId);
  const { start, end } = updateBasis(row, input);
  if (input.cancel || !(input.title || input.startsAt || input.endsAt)) return;
  if (input.episodeId) await checkedEpisode(db, orgId, input.episodeId);
  const provider = streamingProviderFromEnv();
  if (provider && row.provider_broadcast_id) {
    await provider.updateBroadcast(row.provider_broadcast_id, { title: input.title ?? row.title, startsAt: start.toISOString(), endsAt: end.toISOString() });
  }
}

/** The update here, under the row's lock; the provider's broadcast was updated before (prepareUpdate). */
export async function updateStream(db: Queryable, orgId: string, streamId: string, input: UpdateInput): Promise<StreamView> {
  const row = await streamRow(db, orgId, streamId, { forUpdate: true });
  const { start, end } = updateBasis(row, input);
  if (input.cancel) {
    const cancelled = await queryOne<StreamRow>(db, "UPDATE live_streams SET status = 'cancelled', ended_reason = 'cancelled', updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *", [orgId, streamId]);
    return streamView(orgId, cancelled!);
  }
  const updated = (await queryOne<StreamRow>(db, `UPDATE live_streams SET title = coalesce($3, title), description = CASE WHEN $4::boolean THEN $5 ELSE description END,
      scheduled_start = $6, scheduled_end = $7, grace_minutes = coalesce($8, grace_minutes), early_start_minutes = coalesce($9, early_start_minutes),
      chat_before_minutes = coalesce($10, chat_before_minutes), chat_after_minutes = coalesce($11, chat_after_minutes),
      episode_id = CASE WHEN $12::boolean THEN $13::uuid ELSE episode_id END, updated_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`,
  [orgId, streamId, input.title ?? null, input.description !== undefined, input.description ?? null, start, end, input.graceMinutes ?? null, input.earlyStartMinutes ?? null,
    input.chatBeforeMinutes ?? null, input.chatAfterMinutes ?? null, input.episodeId !== undefined, input.episodeId ? await checkedEpisode(db, orgId, input.episodeId) : null]))!;
  return streamView(orgId, updated);
}

export interface StatusView { stream: StreamView; provider: ProviderStatus | null; ingestActive: boolean; chatOpen: boolean; canGoLive: boolean; reasons: string[] }

const chatOpenFor = (row: StreamRow, now: Date) => row.status !== 'cancelled'
  && now.getTime() >= row.scheduled_start.getTime() - row.chat_before_minutes * MINUTE_MS
  && now.getTime() <= (row.ended_at ?? row.scheduled_end).getTime() + row.chat_after_minutes * MINUTE_MS;

/** The provider's view of a stream's broadcast, or null without a provider or a broadcast. Asked outside any transaction. */
export async function providerStatusOf(row: Pick<StreamRow, 'provider_broadcast_id' | 'provider_stream_id'>): Promise<ProviderStatus | null> {
  const provider = streamingProviderFromEnv();
  return provider && row.provider_broadcast_id ? provider.status(row.provider_broadcast_id, row.provider_stream_id) : null;
}

/** live_get_stream_status's step before its snapshot: the provider's status of the stream's broadcast. */
export async function prepareStatus(db: Queryable, orgId: string, streamId: string): Promise<{ provider: ProviderStatus | null }> {
  return { provider: await providerStatusOf(await streamRow(db, orgId, streamId)) };
}

/** A stream's status: its row read here, the provider's status asked before the transaction (`provider`). */
export async function streamStatus(db: Queryable, orgId: string, streamId: string, provider: ProviderStatus | null, now = new Date()): Promise<StatusView> {
  const row = await streamRow(db, orgId, streamId);
  const status = row.provider_broadcast_id ? provider : null;
  const ingestActive = status?.streamStatus === 'active';
  const reasons: string[] = [];
  if (!status) reasons.push(streamingProviderFromEnv() ? 'the stream has no broadcast at the provider yet: live_start_stream makes it' : 'no streaming provider is configured');
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

function checkStartable(row: StreamRow): void {
  if (row.status === 'live') throw new StewardError('conflict', 'The stream is live already', { details: { reason: 'already_live' } });
  if (!['created', 'ready', 'testing'].includes(row.status)) throw new StewardError('conflict', `The stream is ${row.status}`, { details: { reason: `stream_${row.status}` }, hint: 'Schedule a new stream (live_schedule_stream).' });
  if (Date.now() > deadlineOf(row).getTime()) throw new StewardError('conflict', 'The stream\'s end and grace period have passed', { details: { reason: 'stream_past_end' }, hint: 'live_update_stream moves its end, or schedule a new one.' });
}

const plannedHoursFrom = (start: Date, end: Date) => Math.max(1, Math.ceil((end.getTime() - Math.min(Date.now(), start.getTime())) / HOUR_MS));

function checkIngest(status: ProviderStatus): void {
  if (status.streamStatus !== 'active') {
    throw new StewardError('conflict', `The provider reports the ingest ${status.streamStatus ?? 'unknown'}, so the stream cannot go live`, {
      details: { reason: 'ingest_inactive', streamStatus: status.streamStatus }, hint: 'Start the encoder (OBS, the vision mixer) sending to the stream, then live_get_stream_status until ingestActive, and start again.',
    });
  }
}

/** What live_start_stream's step before the transaction hands its run: the broadcast (made for an unscheduled stream) and the provider's status once live. */
export interface PreparedStart { made: MadeBroadcast | null; status: ProviderStatus }

/**
 * live_start_stream's provider work, before its transaction: the checks the write makes (so a
 * refused start moves nothing at the provider), the broadcast made if the stream has none (once per
 * call), the ingest checked, the allowance checked, then the broadcast moved live (skipped when it is
 * live already, so a retried call moves nothing twice). The write checks again under its locks; if it
 * then refuses, the stream's timer completes the broadcast at its end plus grace.
 */
export async function prepareStart(pool: Pool, orgId: string, input: { streamId?: string; title?: string; durationMinutes?: number }, workflowId?: string): Promise<PreparedStart | null> {
  // A call the gate will turn back moves nothing: the approved proposal's action does it.
  if (!(workflowId && isProposalActionWorkflowId(orgId, workflowId)) && await startNeedsApproval(pool, orgId, input)) return null;
  let made: MadeBroadcast | null = null;
  let row: Pick<StreamRow, 'provider_broadcast_id' | 'provider_stream_id' | 'scheduled_start' | 'scheduled_end'>;
  if (!input.streamId) {
    if (!input.title) throw new StewardError('validation_failed', 'Name the stream (streamId) or give a title for an unscheduled one', { issues: [{ path: 'streamId', message: 'live_list_streams lists them' }] });
    const start = new Date();
    const end = new Date(start.getTime() + (input.durationMinutes ?? 90) * MINUTE_MS);
    checkTimes(start, end);
    made = await createBroadcast(requireProvider(), { title: input.title, start, end }, workflowId);
    row = { provider_broadcast_id: made.broadcastId, provider_stream_id: made.streamId, scheduled_start: start, scheduled_end: end };
  } else {
    const current = await streamRow(pool, orgId, input.streamId);
    checkStartable(current);
    requireProvider();
    row = await provisionOutside(pool, orgId, current, workflowId);
  }
  const provider = requireProvider();
  const status = await provider.status(row.provider_broadcast_id!, row.provider_stream_id);
  checkIngest(status);
  await assertAllowance(pool, orgId, STREAM_FEATURE, plannedHoursFrom(row.scheduled_start, row.scheduled_end), { tool: 'live_start_stream', purpose: 'stream hours' });
  if (status.lifeCycleStatus !== 'live') {
    const moved = await provider.transition(row.provider_broadcast_id!, 'live');
    if (!moved.ok) throw new StewardError('conflict', `The provider refused to go live: ${moved.message}`, { details: { reason: 'provider_refused', providerReason: moved.reason } });
  }
  return { made, status: await provider.status(row.provider_broadcast_id!, row.provider_stream_id) };
}

/** The stream marked live here, under its lock and the allowance's, after the provider moved it live (prepareStart). */
export async function startStream(db: Queryable, orgId: string, input: { streamId?: string; title?: string; durationMinutes?: number }, prepared: PreparedStart | null): Promise<StatusView> {
  let streamId = input.streamId;
  if (!streamId) {
    if (!input.title) throw new StewardError('validation_failed', 'Name the stream (streamId) or give a title for an unscheduled one', { issues: [{ path: 'streamId', message: 'live_list_streams lists them' }] });
    requireProvider();
    if (!prepared?.made) throw providerNotAsked();
    streamId = (await scheduleStream(db, orgId, { title: input.title, startsAt: new Date().toISOString(), durationMinutes: input.durationMinutes ?? 90, earlyStartMinutes: 0 }, { unscheduled: true, made: prepared.made })).id;
  }
  const row = await streamRow(db, orgId, streamId, { forUpdate: true });
  checkStartable(row);
  requireProvider();
  if (!prepared || !row.provider_broadcast_id) throw providerNotAsked();
  checkIngest(prepared.status);
  await assertAllowance(db, orgId, STREAM_FEATURE, plannedHoursFrom(row.scheduled_start, row.scheduled_end), { tool: 'live_start_stream', purpose: 'stream hours' });
  await db.query("UPDATE live_streams SET status = 'live', started_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, row.id]);
  return streamStatus(db, orgId, row.id, prepared.status);
}

/** The stream changed between the step before the transaction and the write (e.g. provisioned or gated meanwhile): the call is tried afresh. */
const providerNotAsked = () => new StewardError('conflict', 'The stream changed while it was being started', { details: { reason: 'stream_changed' }, hint: 'Call live_start_stream again.' });

/**
 * Completes a stream at the provider (a live or testing broadcast goes complete), outside any
 * transaction. Repeating it changes nothing: a complete broadcast is left as it is.
 */
export async function completeAtProvider(row: Pick<StreamRow, 'provider_broadcast_id' | 'provider_stream_id'>): Promise<void> {
  const provider = streamingProviderFromEnv();
  if (!provider || !row.provider_broadcast_id) return;
  const status = await provider.status(row.provider_broadcast_id, row.provider_stream_id);
  if (status.lifeCycleStatus === 'live' || status.lifeCycleStatus === 'testing') {
    const moved = await provider.transition(row.provider_broadcast_id, 'complete');
    if (!moved.ok && moved.reason !== 'redundantTransition') throw new StewardError('conflict', `The provider refused to complete the stream: ${moved.message}`, { details: { reason: 'provider_refused', providerReason: moved.reason } });
  }
}

/**
 * Completes a stream here, with the hours it was live recorded once against the `streams`
 * allowance (keyed by the stream); the provider was completed before the transaction
 * (completeAtProvider). A stream that never went live completes with no hours.
 */
async function complete(db: Queryable, orgId: string, row: StreamRow, reason: 'host' | 'auto_complete'): Promise<StreamRow> {
  const endedAt = new Date();
  const hours = row.started_at ? Math.max(1, Math.ceil((endedAt.getTime() - row.started_at.getTime()) / HOUR_MS)) : 0;
  const done = await queryOne<StreamRow>(db, `UPDATE live_streams SET status = 'complete', ended_at = $3, ended_reason = $4, hours_recorded = $5, updated_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, row.id, endedAt, reason, hours]);
  if (hours > 0) await recordUsage(db, { orgId, feature: STREAM_FEATURE, units: hours, idempotencyKey: `live-stream-${row.id}`, tool: reason === 'host' ? 'live_end_stream' : 'live.auto_complete' });
  return done!;
}

function checkEndable(row: StreamRow): void {
  if (row.status !== 'live' && row.status !== 'testing') {
    throw new StewardError('conflict', `The stream is ${row.status}, not live`, { details: { reason: `stream_${row.status}` }, hint: row.status === 'complete' ? 'It has ended already.' : 'live_update_stream with cancel cancels a stream that has not started.' });
  }
}

/** live_end_stream's step before its transaction: the end checked as the write checks it, then the broadcast completed at the provider. */
export async function prepareEnd(db: Queryable, orgId: string, streamId: string): Promise<void> {
  const row = await streamRow(db, orgId, streamId);
  checkEndable(row);
  await completeAtProvider(row);
}

export async function endStream(db: Queryable, orgId: string, streamId: string): Promise<StreamView> {
  const row = await streamRow(db, orgId, streamId, { forUpdate: true });
  checkEndable(row);
  return streamView(orgId, await complete(db, orgId, row, 'host'));
}

/**
 * The stream's timer: at its end plus grace a stream not yet complete is completed (live or not),
 * so no stream stays live. Answers when to look again if its end moved later.
 */
export async function autoComplete(pool: Pool, orgId: string, streamId: string, now = new Date()): Promise<{ outcome: 'completed' | 'finished' | 'not_due'; dueAt: string }> {
  const dueOf = (row: StreamRow | null | undefined) => {
    if (!row || row.status === 'complete' || row.status === 'cancelled') return { outcome: 'finished' as const, dueAt: now.toISOString() };
    const due = deadlineOf(row);
    return now.getTime() < due.getTime() ? { outcome: 'not_due' as const, dueAt: due.toISOString() } : { outcome: 'due' as const, dueAt: due.toISOString() };
  };
  const seen = await withTenantTransaction(pool, orgId, (db) => queryOne<StreamRow>(db, 'SELECT * FROM live_streams WHERE org_id = $1 AND id = $2', [orgId, streamId]), { readOnly: true });
  const first = dueOf(seen);
  if (first.outcome !== 'due') return first;
  // The provider first, with no row locked; completing there again (a retried activity) changes nothing.
  await completeAtProvider(seen!);
  return withTenantTransaction(pool, orgId, async (db) => {
    const row = await queryOne<StreamRow>(db, 'SELECT * FROM live_streams WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, streamId]);
    const again = dueOf(row);
    if (again.outcome !== 'due') return again;
    await complete(db, orgId, row!, 'auto_complete');
    await recordJobChange(db, {
      orgId, channel: 'job:live.auto_complete', module: 'live', noun: 'stream', verb: 'complete', target: { type: 'stream', id: streamId },
      fields: { status: 'complete', endedBy: 'auto_complete' }, previous: { status: row!.status },
    });
    return { outcome: 'completed' as const, dueAt: again.dueAt };
  });
}

/** When the stream's timer should look next (its end plus grace), or null when it has finished. */
export async function streamDeadline(db: Queryable, orgId: string, streamId: string): Promise<string | null> {
  const row = await queryOne<StreamRow>(db, 'SELECT * FROM live_streams WHERE org_id = $1 AND id = $2', [orgId, streamId]);
  if (!row || row.status === 'complete' || row.status === 'cancelled') return null;
  return deadlineOf(row).toISOString();
}
