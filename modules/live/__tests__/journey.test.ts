import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import type { StreamingSandbox } from '../../../sandbox/streaming/server';
import { call, eventually, publicPost, refusal, serviceSoon, streamingStack, viewerToken } from './stack';

/**
 * A Sunday stream end to end over MCP, against the YouTube Live-shaped sandbox: a stream scheduled
 * for a service instance, refused going live until the sandbox reports the ingest active, started,
 * a poll under 200 concurrent votes (one per viewer, none after closing), viewers counted, ended,
 * and the online attendance written to the attendance module with its method and multiplier.
 */
describe('live journey: a service streamed, polled, counted', () => {
  let harness: Harness;
  let sandbox: StreamingSandbox;
  let close: () => Promise<void>;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;

  beforeAll(async () => {
    ({ harness, sandbox, close } = await streamingStack());
    org = await harness.createOrg({ name: 'St Aidan', planCode: 'growth' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    await otherMcp?.close();
    await mcp?.close();
    await close?.();
  });

  it('schedules, goes live only with ingest, polls under concurrency, ends and records online attendance', async () => {
    const instance = await serviceSoon(mcp, 'Morning worship', 5);
    const { stream } = await call(mcp, 'live_schedule_stream', { instanceId: instance.id, graceMinutes: 20 });
    expect(stream).toMatchObject({ title: 'Morning worship', instanceId: instance.id, startsAt: instance.startsAt, endsAt: instance.endsAt, status: 'ready', provider: 'youtube', unscheduled: false });
    expect(Date.parse(stream.completesBy) - Date.parse(stream.endsAt)).toBe(20 * 60_000);
    // One stream per service.
    expect((await refusal(mcp, 'live_schedule_stream', { instanceId: instance.id })).details.reason).toBe('instance_has_stream');
    const [broadcast] = sandbox.broadcasts().filter((b) => b.id === stream.providerBroadcastId);
    expect(broadcast!.status.lifeCycleStatus).toBe('ready');

    // The encoder is not sending: the provider says so, and going live is refused.
    const before = await call(mcp, 'live_get_stream_status', { streamId: stream.id });
    expect(before).toMatchObject({ ingestActive: false, canGoLive: false, provider: { lifeCycleStatus: 'ready', streamStatus: 'ready' } });
    const refused = await refusal(mcp, 'live_start_stream', { streamId: stream.id });
    expect(refused).toMatchObject({ code: 'conflict', details: { reason: 'ingest_inactive' } });
    expect((await call(mcp, 'live_get_stream_status', { streamId: stream.id })).stream.status).toBe('ready');

    // The encoder starts: the provider reports the ingest active, and it goes live (within the early-start allowance: no approval).
    sandbox.setIngest(broadcast!.contentDetails.boundStreamId!, true);
    expect(await call(mcp, 'live_get_stream_status', { streamId: stream.id })).toMatchObject({ ingestActive: true, canGoLive: true, chatOpen: true });
    const started = await call(mcp, 'live_start_stream', { streamId: stream.id });
    expect(started).toMatchObject({ stream: { status: 'live' }, provider: { lifeCycleStatus: 'live' } });
    expect((await refusal(mcp, 'live_start_stream', { streamId: stream.id })).details.reason).toBe('already_live');

    // A poll, and 200 viewers voting at once, each twice: one vote each counts.
    const { poll } = await call(mcp, 'live_create_poll', { streamId: stream.id, question: 'Which carol next?', options: ['O Holy Night', 'Silent Night', 'Hark the Herald'] });
    expect(poll).toMatchObject({ status: 'open', anonymous: true, options: [{ id: 'o1' }, { id: 'o2' }, { id: 'o3' }] });
    const base = `${harness.url}/live/api/${org.orgId}/${stream.id}`;
    const votes = await Promise.all(Array.from({ length: 200 }, (_, i) => [
      publicPost(base, `/polls/${poll.id}/vote`, { viewerToken: viewerToken(i), optionId: `o${(i % 3) + 1}` }),
      publicPost(base, `/polls/${poll.id}/vote`, { viewerToken: viewerToken(i), optionId: 'o1' }),
    ]).flat());
    expect(votes.every((v) => v.status === 200)).toBe(true);
    expect(votes.filter((v) => v.body.counted).length).toBe(200);
    const results = (await call(mcp, 'live_get_poll_results', { pollId: poll.id })).polls[0];
    expect(results.totalVotes).toBe(200);
    expect(results.results.reduce((sum: number, r: { votes: number }) => sum + r.votes, 0)).toBe(200);
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n, count(DISTINCT viewer_key)::int AS viewers FROM live_poll_votes WHERE poll_id = $1', [poll.id]);
    expect(rows[0]).toEqual({ n: 200, viewers: 200 });
    // Not an option; not this stream's poll; another organisation's stream.
    expect((await publicPost(base, `/polls/${poll.id}/vote`, { viewerToken: viewerToken('x1'), optionId: 'o9' })).status).toBe(400);
    expect((await publicPost(`${harness.url}/live/api/${other.orgId}/${stream.id}`, `/polls/${poll.id}/vote`, { viewerToken: viewerToken('x1'), optionId: 'o1' })).status).toBe(404);

    // Closed: votes arriving with the close either counted before it or are refused; after it none counts.
    const racing = Array.from({ length: 40 }, (_, i) => publicPost(base, `/polls/${poll.id}/vote`, { viewerToken: viewerToken(1000 + i), optionId: 'o2' }));
    const closed = await call(mcp, 'live_close_poll', { pollId: poll.id });
    const raced = await Promise.all(racing);
    expect(raced.every((r) => r.status === 200 || (r.status === 409 && r.body.error.reason === 'poll_closed'))).toBe(true);
    const late = await publicPost(base, `/polls/${poll.id}/vote`, { viewerToken: viewerToken('late'), optionId: 'o2' });
    expect(late).toMatchObject({ status: 409, body: { error: { reason: 'poll_closed' } } });
    const final = (await call(mcp, 'live_get_poll_results', { pollId: poll.id })).polls[0];
    expect(final.poll.status).toBe('closed');
    expect(final.totalVotes).toBeGreaterThanOrEqual(closed.totalVotes);
    expect(final.totalVotes).toBe(200 + raced.filter((r) => r.status === 200 && r.body.counted).length);
    expect((await refusal(mcp, 'live_close_poll', { pollId: poll.id })).details.reason).toBe('poll_closed');

    // Viewers watch: three sessions from two browsers, one of them past a minute.
    const a = await publicPost(base, '/session', { viewerToken: viewerToken('a') });
    const a2 = await publicPost(base, '/session', { viewerToken: viewerToken('a') });
    const b = await publicPost(base, '/session', { viewerToken: viewerToken('b') });
    expect([a.status, a2.status, b.status]).toEqual([200, 200, 200]);
    expect((await publicPost(base, '/heartbeat', { viewerToken: viewerToken('a'), sessionId: a.body.sessionId })).status).toBe(200);
    // A heartbeat for someone else's session is not found.
    expect((await publicPost(base, '/heartbeat', { viewerToken: viewerToken('b'), sessionId: a.body.sessionId })).status).toBe(404);
    await harness.pool.query("UPDATE live_viewer_sessions SET started_at = started_at - interval '5 minutes' WHERE id = $1", [a.body.sessionId]);
    const stats = await call(mcp, 'live_get_viewer_stats', { streamId: stream.id });
    expect(stats.raw).toMatchObject({ sessions: 3, uniqueViewers: 2, anonymousViewers: 2, loggedInViewers: 0, viewersPastOneMinute: 1, peakConcurrent: 3 });
    expect(stats.method.uniqueViewers).toMatch(/daily salted hash/);
    // No token, no address stored: only the salted key.
    const keys = await harness.pool.query('SELECT viewer_key FROM live_viewer_sessions WHERE stream_id = $1', [stream.id]);
    for (const row of keys.rows) {
      expect(row.viewer_key).toMatch(/^a:[A-Za-z0-9_-]{43}$/);
      expect(row.viewer_key).not.toContain('viewer-token');
      expect(row.viewer_key).not.toContain('127.0.0.1');
    }

    // Ended: complete at the provider and here; the hours counted once against the allowance.
    const { stream: ended } = await call(mcp, 'live_end_stream', { streamId: stream.id });
    expect(ended).toMatchObject({ status: 'complete', endedReason: 'host', streamHours: 1 });
    expect(sandbox.broadcasts().find((b) => b.id === stream.providerBroadcastId)!.status.lifeCycleStatus).toBe('complete');
    expect((await refusal(mcp, 'live_end_stream', { streamId: stream.id })).details.reason).toBe('stream_complete');
    const usage = await harness.pool.query("SELECT units FROM usage_events WHERE org_id = $1 AND feature = 'streams'", [org.orgId]);
    expect(usage.rows).toEqual([{ units: 1 }]);

    // Online attendance: unique viewers × 1.5 households, in the attendance module with what was counted.
    const { attendance } = await call(mcp, 'live_record_online_attendance', { streamId: stream.id, method: 'unique_viewers', householdMultiplier: 1.5 });
    expect(attendance).toMatchObject({ instanceId: instance.id, method: 'unique_viewers', baseCount: 2, householdMultiplier: 1.5, count: 3, area: 'Online' });
    expect(attendance.note).toContain('2 unique viewers × household multiplier 1.50 = 3');
    const headcounts = await harness.pool.query('SELECT area, count, note FROM attendance_headcounts WHERE org_id = $1 AND instance_id = $2', [org.orgId, instance.id]);
    expect(headcounts.rows).toEqual([{ area: 'Online', count: 3, note: attendance.note }]);
    // Recording again replaces it.
    const again = (await call(mcp, 'live_record_online_attendance', { streamId: stream.id, method: 'sessions' })).attendance;
    expect(again).toMatchObject({ baseCount: 3, count: 3, householdMultiplier: 1 });
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM attendance_headcounts WHERE org_id = $1', [org.orgId])).rows[0].n).toBe(1);

    // Another organisation sees none of it.
    for (const [tool, args] of [['live_get_stream_status', { streamId: stream.id }], ['live_end_stream', { streamId: stream.id }], ['live_get_poll_results', { pollId: poll.id }],
      ['live_close_poll', { pollId: poll.id }], ['live_get_viewer_stats', { streamId: stream.id }], ['live_record_online_attendance', { streamId: stream.id }]] as const) {
      expect((await refusal(otherMcp, tool, args)).code).toBe('not_found');
    }
    expect((await call(otherMcp, 'live_list_streams', {})).streams).toEqual([]);
  });

  it('a stream nobody ends completes by itself at its end plus grace, at the provider too', async () => {
    const now = Date.now();
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Midweek prayer', startsAt: new Date(now - 60_000).toISOString(), endsAt: new Date(now + 4_000).toISOString(), graceMinutes: 0 });
    const broadcast = sandbox.broadcasts().find((b) => b.id === stream.providerBroadcastId)!;
    sandbox.setIngest(broadcast.contentDetails.boundStreamId!, true);
    expect((await call(mcp, 'live_start_stream', { streamId: stream.id })).stream.status).toBe('live');
    const done = await eventually(async () => (await call(mcp, 'live_get_stream_status', { streamId: stream.id })).stream, (s) => s.status === 'complete');
    expect(done).toMatchObject({ endedReason: 'auto_complete', streamHours: 1 });
    expect(Date.parse(done.endedAt)).toBeGreaterThanOrEqual(Date.parse(done.completesBy));
    expect(broadcast.status.lifeCycleStatus).toBe('complete');
    // The timer's completion is in the trail, the system as actor, with the status it left.
    const trail = (await call(mcp, 'audit_list_events', { targetId: stream.id, actorKind: 'system' })).events;
    expect(trail).toEqual([expect.objectContaining({ action: 'live.stream.complete', tool: 'job:live.auto_complete', outcome: 'success' })]);
    // A stream never started completes too, without hours.
    const { stream: idle } = await call(mcp, 'live_schedule_stream', { title: 'Never started', startsAt: new Date(Date.now() - 60_000).toISOString(), endsAt: new Date(Date.now() + 2_000).toISOString(), graceMinutes: 0 });
    const idleDone = await eventually(async () => (await call(mcp, 'live_list_streams', { status: 'complete' })).streams.find((s: { id: string }) => s.id === idle.id), (s) => Boolean(s));
    expect(idleDone).toMatchObject({ endedReason: 'auto_complete', streamHours: 0, startedAt: null });
  });

  it('going live early or unscheduled waits for a person; approved, it goes live', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000);
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Christmas Eve carols', startsAt: inAnHour.toISOString(), durationMinutes: 60 });
    const gated = await refusal(mcp, 'live_start_stream', { streamId: stream.id, actionSummary: 'Go live an hour early for a sound check' });
    expect(gated.code).toBe('approval_required');
    expect((await call(mcp, 'live_get_stream_status', { streamId: stream.id })).stream.status).toBe('ready');
    sandbox.setIngest(sandbox.broadcasts().find((b) => b.id === stream.providerBroadcastId)!.contentDetails.boundStreamId!, true);
    const approved = await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    expect(approved.execution.result).toMatchObject({ stream: { status: 'live' } });
    await call(mcp, 'live_end_stream', { streamId: stream.id });

    const unscheduled = await refusal(mcp, 'live_start_stream', { title: 'Prayer vigil', durationMinutes: 30 });
    expect(unscheduled.code).toBe('approval_required');
    expect((await call(mcp, 'live_list_streams', {})).streams.some((s: { title: string }) => s.title === 'Prayer vigil')).toBe(false);
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const count = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM live_streams WHERE org_id = $1', [org.orgId])).rows[0].n;
    const before = await count();
    expect((await refusal(mcp, 'live_schedule_stream', { title: 'No time' })).code).toBe('validation_failed');
    expect((await refusal(mcp, 'live_schedule_stream', { startsAt: new Date().toISOString() })).code).toBe('validation_failed');
    expect((await refusal(mcp, 'live_schedule_stream', { title: 'Backwards', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() - 1000).toISOString() })).code).toBe('validation_failed');
    expect((await refusal(mcp, 'live_schedule_stream', { instanceId: '00000000-0000-4000-8000-000000000001' })).code).toBe('not_found');
    expect((await refusal(mcp, 'live_create_poll', { streamId: '00000000-0000-4000-8000-000000000000', question: 'Q', options: ['a', 'b'] })).code).toBe('not_found');
    expect(await count()).toBe(before);
  });

  it('rate-limits the public API per address, answering 429 and storing nothing', async () => {
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Rate limited', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 60 });
    const base = `${harness.url}/live/api/${org.orgId}/${stream.id}`;
    const saved = process.env.LIVE_PUBLIC_RATE_LIMIT;
    process.env.LIVE_PUBLIC_RATE_LIMIT = '1';
    try {
      const limited = await publicPost(base, '/chat', { viewerToken: viewerToken('flood'), name: 'Flood', body: 'spam' });
      expect(limited).toMatchObject({ status: 429, body: { ok: false } });
    } finally {
      if (saved === undefined) delete process.env.LIVE_PUBLIC_RATE_LIMIT;
      else process.env.LIVE_PUBLIC_RATE_LIMIT = saved;
    }
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM live_chat WHERE stream_id = $1', [stream.id])).rows[0].n).toBe(0);
  });
});
