import { StewardError } from '../../core/errors';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { ALLOWANCE_REFUSALS, assertAllowance, lockFeature } from '../../kernel/billing';
import { episodeForInstance } from '../mediahub/api';
import { listInstances } from '../schedule/api';
import { STREAM_FEATURE, provisionOutside, scheduleStream, streamRow } from './streams';

/**
 * Streams made ahead of a schedule's services, for organisations that turn it on: each scheduled
 * service instance in the next `createAheadDays` days gets one stream (its title and times), unless it
 * has or had one (a stream the church cancelled is not made again). Each is counted against the
 * `streams` allowance (hours a month) before it is made: the hours used this month, plus the planned
 * hours of streams waiting to go live, plus this one's, must fit.
 */

export interface LiveSettings { autoCreateStreams: boolean; createAheadDays: number; updatedAt: string | null }

const DEFAULTS = { autoCreateStreams: false, createAheadDays: 7 } as const;

export async function getLiveSettings(db: Queryable, orgId: string): Promise<LiveSettings> {
  const row = await queryOne<{ auto_create_streams: boolean; create_ahead_days: number; updated_at: Date }>(db,
    'SELECT auto_create_streams, create_ahead_days, updated_at FROM live_settings WHERE org_id = $1', [orgId]);
  return row ? { autoCreateStreams: row.auto_create_streams, createAheadDays: row.create_ahead_days, updatedAt: row.updated_at.toISOString() } : { ...DEFAULTS, updatedAt: null };
}

export async function updateLiveSettings(db: Queryable, orgId: string, input: { autoCreateStreams?: boolean; createAheadDays?: number }): Promise<LiveSettings> {
  if (input.autoCreateStreams === undefined && input.createAheadDays === undefined) {
    throw new StewardError('validation_failed', 'Nothing to change: give autoCreateStreams or createAheadDays', { issues: [{ path: 'autoCreateStreams', message: 'give at least one setting' }] });
  }
  await db.query(`INSERT INTO live_settings (org_id, auto_create_streams, create_ahead_days) VALUES ($1, coalesce($2::boolean, $4::boolean), coalesce($3::int, $5::int))
    ON CONFLICT (org_id) DO UPDATE SET auto_create_streams = coalesce($2::boolean, live_settings.auto_create_streams),
      create_ahead_days = coalesce($3::int, live_settings.create_ahead_days), updated_at = now()`,
  [orgId, input.autoCreateStreams ?? null, input.createAheadDays ?? null, DEFAULTS.autoCreateStreams, DEFAULTS.createAheadDays]);
  return getLiveSettings(db, orgId);
}

const HOUR_MS = 3_600_000;
const plannedHours = (start: Date, end: Date) => Math.max(1, Math.ceil((end.getTime() - start.getTime()) / HOUR_MS));

/** Planned hours of this organisation's streams that have not gone live yet (their hours are not used yet, but are promised). */
async function waitingHours(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ hours: number }>(db, `SELECT coalesce(sum(greatest(1, ceil(extract(epoch FROM scheduled_end - scheduled_start) / 3600))), 0)::int AS hours
    FROM live_streams WHERE org_id = $1 AND status IN ('created', 'ready') AND scheduled_start >= date_trunc('month', now())`, [orgId]);
  return row!.hours;
}

type Outcome = 'created' | 'exists' | 'over_allowance';

/**
 * A service's stream and the draft episode media hub made for the same service are linked when both
 * exist, whichever job ran first: a stream made before its episode is linked on a later run. Only
 * unlinked streams not yet finished are looked at, so a link someone set by hand is kept.
 */
async function linkEpisode(db: Queryable, orgId: string, streamId: string, instanceId: string): Promise<boolean> {
  const episodeId = await episodeForInstance(db, orgId, instanceId);
  if (!episodeId) return false;
  const linked = await db.query("UPDATE live_streams SET episode_id = $3, updated_at = now() WHERE org_id = $1 AND id = $2 AND episode_id IS NULL AND status NOT IN ('complete', 'cancelled')",
    [orgId, streamId, episodeId]);
  return (linked.rowCount ?? 0) > 0;
}

/** One instance's stream, in the caller's transaction; serialised per organisation so two runs cannot both take the last hours. */
async function streamForInstance(db: Queryable, orgId: string, instance: { id: string; startsAt: string; endsAt: string }): Promise<{ outcome: Outcome; streamId?: string; linked?: boolean }> {
  await lockFeature(db, orgId, STREAM_FEATURE);
  const had = await queryOne<{ id: string; episode_id: string | null }>(db, "SELECT id, episode_id FROM live_streams WHERE org_id = $1 AND instance_id = $2 ORDER BY (status <> 'cancelled') DESC LIMIT 1", [orgId, instance.id]);
  if (had) return { outcome: 'exists', streamId: had.id, linked: !had.episode_id && await linkEpisode(db, orgId, had.id, instance.id) };
  const hours = plannedHours(new Date(instance.startsAt), new Date(instance.endsAt));
  try {
    await assertAllowance(db, orgId, STREAM_FEATURE, (await waitingHours(db, orgId)) + hours, { purpose: 'stream made ahead of a service' });
  } catch (error) {
    if (error instanceof StewardError && ALLOWANCE_REFUSALS.has(error.code)) return { outcome: 'over_allowance' };
    throw error;
  }
  const stream = await scheduleStream(db, orgId, { instanceId: instance.id });
  await db.query('UPDATE live_streams SET auto_created = true WHERE org_id = $1 AND id = $2', [orgId, stream.id]);
  await recordJobChange(db, {
    orgId, channel: 'job:live.streams_ahead', module: 'live', noun: 'stream', verb: 'create', target: { type: 'stream', id: stream.id },
    fields: { instanceId: instance.id, status: stream.status, autoCreated: true, plannedHours: hours, episodeId: stream.episodeId },
  });
  return { outcome: 'created', streamId: stream.id, linked: stream.episodeId !== null };
}

export interface AheadRun { counts: { organisations: number; created: number; exists: number; overAllowance: number; episodesLinked: number }; timers: Array<{ orgId: string; streamId: string }> }

/**
 * The job's work as of `now`: for every organisation with the setting on (or only `orgId`), a stream
 * for each scheduled instance ahead. `timers` names every stream the job made that has not started
 * yet, so the workflow (re)starts their timers: one already running is left as it is.
 */
export async function createStreamsAhead(pool: Pool, input: { now: Date; orgId?: string }): Promise<AheadRun> {
  const orgs = await queryRows<{ org_id: string; create_ahead_days: number }>(pool,
    'SELECT org_id, create_ahead_days FROM live_settings WHERE auto_create_streams AND ($1::uuid IS NULL OR org_id = $1) ORDER BY org_id', [input.orgId ?? null]);
  const run: AheadRun = { counts: { organisations: orgs.length, created: 0, exists: 0, overAllowance: 0, episodesLinked: 0 }, timers: [] };
  for (const org of orgs) {
    const to = new Date(input.now.getTime() + org.create_ahead_days * 86_400_000);
    const instances = await withTenantTransaction(pool, org.org_id, (db) => listInstances(db, org.org_id, { from: input.now.toISOString(), to: to.toISOString() }), { readOnly: true });
    for (const instance of instances) {
      const made = await withTenantTransaction(pool, org.org_id, (db) => streamForInstance(db, org.org_id, instance));
      if (made.linked) run.counts.episodesLinked += 1;
      if (made.outcome === 'created') run.counts.created += 1;
      else if (made.outcome === 'exists') run.counts.exists += 1;
      else run.counts.overAllowance += 1;
    }
    const waiting = await withTenantTransaction(pool, org.org_id, (db) => queryRows<{ id: string; status: string }>(db,
      "SELECT id, status FROM live_streams WHERE org_id = $1 AND auto_created AND status IN ('created', 'ready') ORDER BY scheduled_start LIMIT 500", [org.org_id]), { readOnly: true });
    // Each new stream's broadcast is made at the provider after its transaction committed, with nothing
    // locked; one a failed run left without a broadcast is provisioned on the next run.
    for (const stream of waiting.filter((row) => row.status === 'created')) {
      await provisionOutside(pool, org.org_id, await streamRow(pool, org.org_id, stream.id));
    }
    run.timers.push(...waiting.map((row) => ({ orgId: org.org_id, streamId: row.id })));
  }
  return run;
}
