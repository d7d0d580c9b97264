import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { recordHeadcount } from '../attendance/api';
import { canSeeRestricted } from '../people/api';
import { hasScope, type Principal } from '../../core/principal';
import type { Scope } from '../../core/scopes';
import { streamRow } from './streams';

/** A session is counted as watching while its last heartbeat is this recent. */
export const HEARTBEAT_WINDOW_SECONDS = 60;
/** The watch page sends a heartbeat this often; a session is open until one interval after its last. */
export const HEARTBEAT_INTERVAL_SECONDS = 30;

export interface ViewerStats {
  raw: { sessions: number; uniqueViewers: number; loggedInViewers: number; anonymousViewers: number; peakConcurrent: number; averageWatchSeconds: number; viewersPastOneMinute: number; watchingNow: number };
  method: Record<string, string>;
}

export const METHOD: Record<string, string> = {
  sessions: 'Every viewer session started on the watch page; a refresh or a second device is another session.',
  uniqueViewers: 'Logged-in viewers once per day each; anonymous viewers by a daily salted hash of a random token their browser keeps (no IP is stored; hashes of different days cannot be linked).',
  peakConcurrent: `The most sessions open at once, a session being open from its start until one heartbeat interval (${HEARTBEAT_INTERVAL_SECONDS} seconds) after its last heartbeat.`,
  averageWatchSeconds: 'The mean of each session\'s start to last heartbeat.',
  watchingNow: `Sessions with a heartbeat in the last ${HEARTBEAT_WINDOW_SECONDS} seconds.`,
  viewersPastOneMinute: 'Unique viewers (as above) with at least one session watched for 60 seconds or more.',
};

/** Raw figures and how each was counted, never blended: a church chooses which to report. */
export async function viewerStats(db: Queryable, orgId: string, streamId: string, now = new Date()): Promise<ViewerStats> {
  await streamRow(db, orgId, streamId);
  const totals = await queryOne<{ sessions: number; unique_viewers: number; logged_in: number; anonymous: number; avg_seconds: number | null; past_minute: number; watching: number }>(db,
    `SELECT count(*)::int AS sessions,
            count(DISTINCT (viewer_key, day))::int AS unique_viewers,
            count(DISTINCT (viewer_key, day)) FILTER (WHERE contact_id IS NOT NULL)::int AS logged_in,
            count(DISTINCT (viewer_key, day)) FILTER (WHERE contact_id IS NULL)::int AS anonymous,
            avg(extract(epoch FROM last_seen_at - started_at))::float AS avg_seconds,
            count(DISTINCT (viewer_key, day)) FILTER (WHERE last_seen_at - started_at >= interval '60 seconds')::int AS past_minute,
            count(*) FILTER (WHERE last_seen_at > $3::timestamptz - interval '${HEARTBEAT_WINDOW_SECONDS} seconds')::int AS watching
       FROM live_viewer_sessions WHERE org_id = $1 AND stream_id = $2`, [orgId, streamId, now]);
  // Peak: sweep the sessions' starts (+1) and ends (-1) in time order.
  const peak = await queryOne<{ peak: number | null }>(db,
    `SELECT max(running)::int AS peak FROM (
       SELECT sum(delta) OVER (ORDER BY at, delta DESC ROWS UNBOUNDED PRECEDING) AS running FROM (
         SELECT started_at AS at, 1 AS delta FROM live_viewer_sessions WHERE org_id = $1 AND stream_id = $2
         UNION ALL SELECT last_seen_at + interval '${HEARTBEAT_INTERVAL_SECONDS} seconds', -1 FROM live_viewer_sessions WHERE org_id = $1 AND stream_id = $2) events) sweep`, [orgId, streamId]);
  return {
    raw: {
      sessions: totals?.sessions ?? 0, uniqueViewers: totals?.unique_viewers ?? 0, loggedInViewers: totals?.logged_in ?? 0, anonymousViewers: totals?.anonymous ?? 0,
      peakConcurrent: peak?.peak ?? 0, averageWatchSeconds: Math.round(totals?.avg_seconds ?? 0), viewersPastOneMinute: totals?.past_minute ?? 0, watchingNow: totals?.watching ?? 0,
    },
    method: METHOD,
  };
}

export type AttendanceMethod = 'unique_viewers' | 'sessions' | 'viewers_past_one_minute' | 'peak_concurrent';

export interface AttendanceRecord {
  id: string; streamId: string; instanceId: string; method: AttendanceMethod; baseCount: number; householdMultiplier: number; count: number;
  headcountId: string | null; area: string; note: string; recordedAt: string;
}

/**
 * Online attendance: the figure the church chose (method), times an optional household multiplier,
 * written to the attendance module as the service's "Online" head count with a note saying exactly
 * what was counted; kept here too with its parts. Recording again replaces both.
 */
export async function recordOnlineAttendance(db: Queryable, orgId: string, userId: string, input: { streamId: string; method: AttendanceMethod; householdMultiplier?: number; instanceId?: string }): Promise<AttendanceRecord> {
  const stream = await streamRow(db, orgId, input.streamId, { forUpdate: true });
  const instanceId = input.instanceId ?? stream.instance_id;
  if (!instanceId) {
    throw new StewardError('validation_failed', 'This stream is not linked to a service instance; name the service to count it against', {
      issues: [{ path: 'instanceId', message: 'schedule_list_upcoming_instances lists the services' }],
    });
  }
  if (stream.status !== 'complete' && stream.status !== 'live') throw new StewardError('conflict', `The stream is ${stream.status}: there is nothing to count yet`, { details: { reason: `stream_${stream.status}` } });
  const stats = await viewerStats(db, orgId, input.streamId);
  const base = { unique_viewers: stats.raw.uniqueViewers, sessions: stats.raw.sessions, viewers_past_one_minute: stats.raw.viewersPastOneMinute, peak_concurrent: stats.raw.peakConcurrent }[input.method];
  const pct = Math.round((input.householdMultiplier ?? 1) * 100);
  const count = Math.round((base * pct) / 100);
  const methodWords = { unique_viewers: 'unique viewers', sessions: 'viewer sessions', viewers_past_one_minute: 'unique viewers who watched at least a minute', peak_concurrent: 'peak concurrent viewers' }[input.method];
  const note = `Online (live stream "${stream.title}"): ${base} ${methodWords}${pct !== 100 ? ` × household multiplier ${(pct / 100).toFixed(2)}` : ''} = ${count}`.slice(0, 1000);
  const { headcount } = await recordHeadcount(db, orgId, userId, { instanceId, count, area: 'Online', note });
  const row = await queryOne<{ id: string; recorded_at: Date }>(db, `INSERT INTO live_attendance_records (id, org_id, stream_id, instance_id, method, base_count, household_multiplier_pct, count, headcount_id, recorded_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
    ON CONFLICT (org_id, stream_id) DO UPDATE SET instance_id = EXCLUDED.instance_id, method = EXCLUDED.method, base_count = EXCLUDED.base_count,
      household_multiplier_pct = EXCLUDED.household_multiplier_pct, count = EXCLUDED.count, headcount_id = EXCLUDED.headcount_id, recorded_by_user_id = EXCLUDED.recorded_by_user_id, recorded_at = now()
    RETURNING id, recorded_at`, [randomUUID(), orgId, input.streamId, instanceId, input.method, base, pct, count, headcount.id, userId]);
  return {
    id: row!.id, streamId: input.streamId, instanceId, method: input.method, baseCount: base, householdMultiplier: pct / 100, count, headcountId: headcount.id,
    area: headcount.area, note, recordedAt: row!.recorded_at.toISOString(),
  };
}

// ---------------------------------------------------------------- the hosts' prayer queue

/**
 * Prayer requests are pastoral data: the live scopes alone (all the broadcast intent holds) never
 * reach them. Their tool and route take the live scope as every live tool does, and the community
 * scope as well, checked here before anything is read.
 */
export function requirePastoralScope(principal: Principal, scope: Scope, what: string): void {
  if (hasScope(principal, scope)) return;
  throw new StewardError('insufficient_scope', `${what} shows pastoral data and needs the scope ${scope} as well, which this credential does not hold`, {
    details: { requiredScope: scope }, hint: 'A credential for the pastoral intent (or an API key with community scopes) reads the prayer queue.',
  });
}

export interface PrayerRequestView { id: string; streamId: string; name: string | null; contact: string | null; body: string; privacy: string; confidentialityLevel: string; status: string; createdAt: string }

/**
 * Prayer requests viewers sent to the hosts, newest first. Pastoral data under the people module's
 * rule for every pastoral record: a private or amber/red one is listed only for a caller holding
 * people:safeguarding; others see how many were withheld, never what they say.
 */
export async function listPrayerRequests(db: Queryable, orgId: string, principal: Principal, filter: { streamId?: string; status?: string; limit: number }): Promise<{ requests: PrayerRequestView[]; withheld: number }> {
  if (filter.streamId) await streamRow(db, orgId, filter.streamId);
  const restricted = canSeeRestricted(principal);
  const visible = restricted ? 'true' : "(privacy <> 'private' AND confidentiality_level = 'green')";
  const rows = await queryRows<{ id: string; stream_id: string; name: string | null; contact_detail: string | null; body: string; privacy: string; confidentiality_level: string; status: string; created_at: Date }>(db,
    `SELECT id, stream_id, name, contact_detail, body, privacy, confidentiality_level, status, created_at FROM live_prayer_requests
      WHERE org_id = $1 AND ($2::uuid IS NULL OR stream_id = $2) AND ($3::text IS NULL OR status = $3) AND ${visible} ORDER BY created_at DESC, id LIMIT $4`,
  [orgId, filter.streamId ?? null, filter.status ?? null, filter.limit]);
  const hidden = restricted ? { n: 0 } : await queryOne<{ n: number }>(db,
    `SELECT count(*)::int AS n FROM live_prayer_requests WHERE org_id = $1 AND ($2::uuid IS NULL OR stream_id = $2) AND ($3::text IS NULL OR status = $3) AND NOT (privacy <> 'private' AND confidentiality_level = 'green')`,
    [orgId, filter.streamId ?? null, filter.status ?? null]);
  return {
    requests: rows.map((r) => ({ id: r.id, streamId: r.stream_id, name: r.name, contact: r.contact_detail, body: r.body, privacy: r.privacy, confidentialityLevel: r.confidentiality_level, status: r.status, createdAt: r.created_at.toISOString() })),
    withheld: hidden?.n ?? 0,
  };
}

export async function setPrayerStatus(db: Queryable, orgId: string, principal: Principal, id: string, status: 'new' | 'prayed' | 'followed_up'): Promise<PrayerRequestView> {
  const restricted = canSeeRestricted(principal);
  const row = await queryOne<{ id: string }>(db, `UPDATE live_prayer_requests SET status = $3 WHERE org_id = $1 AND id = $2 ${restricted ? '' : "AND privacy <> 'private' AND confidentiality_level = 'green'"} RETURNING id`, [orgId, id, status]);
  if (!row) throw new StewardError('not_found', `Prayer request ${id} was not found`, { hint: 'live_list_prayer_requests lists the queue.' });
  return (await listPrayerRequests(db, orgId, principal, { limit: 500 })).requests.find((r) => r.id === id)!;
}
