import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import type { StreamingSandbox } from '../../../sandbox/streaming/server';
import { call, eventually, publicPost, refusal, streamingStack, viewerToken } from './stack';

/**
 * The edges of a stream's public page that the journey does not reach: the chat window (closed
 * before it opens and after the stream ends plus its after-window), a poll scheduled to open and
 * close by itself, the average watch time from sessions of known lengths, the dashboard routes
 * through live_invoke_api_read / _write, and live's figures in platform_overview.
 */
describe('live: chat windows, scheduled polls, watch time, dashboard routes and overview', () => {
  let harness: Harness;
  let sandbox: StreamingSandbox;
  let close: () => Promise<void>;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    ({ harness, sandbox, close } = await streamingStack());
    org = await harness.createOrg({ name: 'St Hilda', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await close?.();
  });

  const base = (streamId: string) => `${harness.url}/live/api/${org.orgId}/${streamId}`;
  const chatCount = async (streamId: string) => (await harness.pool.query('SELECT count(*)::int AS n FROM live_chat WHERE stream_id = $1', [streamId])).rows[0].n;
  const goLive = async (stream: { id: string; providerBroadcastId: string }) => {
    sandbox.setIngest(sandbox.broadcasts().find((b) => b.id === stream.providerBroadcastId)!.contentDetails.boundStreamId!, true);
    return call(mcp, 'live_start_stream', { streamId: stream.id });
  };

  it('refuses a viewer\'s chat message before the chat window opens, takes it once open, and refuses it after the stream ends', async () => {
    // Chat opens 15 minutes before a start 15 minutes and a few seconds away: closed now, open in a few seconds.
    const { stream } = await call(mcp, 'live_schedule_stream', {
      title: 'Window service', startsAt: new Date(Date.now() + 15 * 60_000 + 4_000).toISOString(), durationMinutes: 60, chatBeforeMinutes: 15, chatAfterMinutes: 0,
    });
    const early = await publicPost(base(stream.id), '/chat', { viewerToken: viewerToken('early'), name: 'Early', body: 'Too soon' });
    expect(early).toMatchObject({ status: 409, body: { error: { reason: 'chat_closed' } } });
    expect(await chatCount(stream.id)).toBe(0);
    const chatOpen = async () => (await (await fetch(`${base(stream.id)}/state`)).json()).state.chatOpen;
    expect(await chatOpen()).toBe(false);

    // The window opens: the same message is taken.
    const opened = await eventually(() => publicPost(base(stream.id), '/chat', { viewerToken: viewerToken('early'), name: 'Early', body: 'Now we are open' }), (r) => r.status !== 409);
    expect(opened.status).toBe(200);
    expect(await chatCount(stream.id)).toBe(1);
    expect(await chatOpen()).toBe(true);

    // Live, then ended with no after-window: closed again, nothing stored.
    expect((await goLive(stream)).stream.status).toBe('live');
    expect((await publicPost(base(stream.id), '/chat', { viewerToken: viewerToken('during'), name: 'During', body: 'Amen' })).status).toBe(200);
    await call(mcp, 'live_end_stream', { streamId: stream.id });
    const late = await publicPost(base(stream.id), '/chat', { viewerToken: viewerToken('late'), name: 'Late', body: 'Missed it' });
    expect(late).toMatchObject({ status: 409, body: { error: { reason: 'chat_closed' } } });
    expect(await chatCount(stream.id)).toBe(2);
    expect(await chatOpen()).toBe(false);

    // A stream with an after-window keeps its chat open past its end.
    const { stream: lingering } = await call(mcp, 'live_schedule_stream', {
      title: 'Lingering service', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 60, chatAfterMinutes: 30,
    });
    await goLive(lingering);
    await call(mcp, 'live_end_stream', { streamId: lingering.id });
    expect((await publicPost(base(lingering.id), '/chat', { viewerToken: viewerToken('late'), name: 'Late', body: 'Thank you' })).status).toBe(200);
    expect(await chatCount(lingering.id)).toBe(1);
  });

  it('a poll scheduled ahead takes no vote before it opens and none after it closes', async () => {
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Poll service', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 60 });
    const opensAt = new Date(Date.now() + 3_000);
    const closesAt = new Date(opensAt.getTime() + 3_000);
    const { poll } = await call(mcp, 'live_create_poll', { streamId: stream.id, question: 'Which hymn?', options: ['Abide with me', 'Be thou my vision'], opensAt: opensAt.toISOString(), closesAt: closesAt.toISOString() });
    expect(poll).toMatchObject({ status: 'scheduled', opensAt: opensAt.toISOString(), closesAt: closesAt.toISOString() });
    const votesOf = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM live_poll_votes WHERE poll_id = $1', [poll.id])).rows[0].n;

    const tooSoon = await publicPost(base(stream.id), `/polls/${poll.id}/vote`, { viewerToken: viewerToken('soon'), optionId: 'o1' });
    expect(tooSoon).toMatchObject({ status: 409, body: { error: { reason: 'poll_scheduled' } } });
    expect(await votesOf()).toBe(0);

    // Opened: the same viewer's vote counts (retried until the poll opens; a refused vote stores nothing).
    const counted = await eventually(() => publicPost(base(stream.id), `/polls/${poll.id}/vote`, { viewerToken: viewerToken('soon'), optionId: 'o2' }), (r) => r.status === 200);
    expect(counted.body.counted).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(opensAt.getTime());

    // Closed by its time, without anyone closing it.
    const closedPoll = await eventually(async () => (await call(mcp, 'live_get_poll_results', { pollId: poll.id })).polls[0], (p: any) => p.poll.status === 'closed');
    expect(closedPoll.poll.closedAt).toBe(closesAt.toISOString());
    const tooLate = await publicPost(base(stream.id), `/polls/${poll.id}/vote`, { viewerToken: viewerToken('late'), optionId: 'o1' });
    expect(tooLate).toMatchObject({ status: 409, body: { error: { reason: 'poll_closed' } } });
    expect(await votesOf()).toBe(1);
    const results = (await call(mcp, 'live_get_poll_results', { pollId: poll.id })).polls[0];
    expect(results.totalVotes).toBe(1);
    expect(results.results.map((r: { optionId: string; votes: number }) => [r.optionId, r.votes])).toEqual([['o1', 0], ['o2', 1]]);
  });

  it('average watch time is the mean of the sessions\' start to last heartbeat; the viewers-by-minute route charts them', async () => {
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Counted service', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 60 });
    const sessions: string[] = [];
    for (const who of ['ann', 'bob', 'cat']) {
      const started = await publicPost(base(stream.id), '/session', { viewerToken: viewerToken(who) });
      expect(started.status).toBe(200);
      sessions.push(started.body.sessionId);
    }
    // Known lengths from a whole minute T0: 40 s, 95 s and 301 s. Mean 145.33 s, reported as 145.
    const t0 = new Date(Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000);
    const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
    for (const [i, [from, to]] of [[0, 40], [10, 105], [20, 321]].entries()) {
      await harness.pool.query('UPDATE live_viewer_sessions SET started_at = $2, last_seen_at = $3 WHERE id = $1', [sessions[i], at(from!), at(to!)]);
    }
    const stats = await call(mcp, 'live_get_viewer_stats', { streamId: stream.id });
    expect(stats.raw).toMatchObject({ sessions: 3, uniqueViewers: 3, averageWatchSeconds: 145, viewersPastOneMinute: 2, peakConcurrent: 3, watchingNow: 0 });
    expect(stats.method.averageWatchSeconds).toMatch(/mean of each session/);

    // The dashboard chart: sessions open in each minute from T0 to the last heartbeat's minute.
    const chart = await call(mcp, 'live_invoke_api_read', { path: `/api/live/streams/${stream.id}/viewers-by-minute` });
    expect(chart.result.minutes).toEqual([3, 2, 1, 1, 1, 1].map((sessions, m) => ({ at: at(m * 60).toISOString(), sessions })));
    // Another organisation's credential does not find the stream.
    const other = await harness.createOrg({ name: 'Not St Hilda' });
    const otherMcp = await harness.mcpClient(other.apiKey);
    expect((await refusal(otherMcp, 'live_invoke_api_read', { path: `/api/live/streams/${stream.id}/viewers-by-minute` })).code).toBe('not_found');
    await otherMcp.close();
  });

  it('the prayer-status route marks a request prayed for, only with the pastoral scope; curated routes point at their tools', async () => {
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Prayer service', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 60 });
    expect((await publicPost(base(stream.id), '/prayer', { viewerToken: viewerToken('pray'), name: 'Ruth', body: 'For my exams' })).status).toBe(200);
    const [request] = (await call(mcp, 'live_list_prayer_requests', { streamId: stream.id })).requests;
    expect(request).toMatchObject({ body: 'For my exams', status: 'new' });
    const path = `/api/live/prayer-requests/${request.id}`;

    // live:write alone (the broadcast intent's) may not touch pastoral data; nothing changes.
    const liveOnly = await harness.createKey(org.orgId, ['live:read', 'live:write']);
    const liveMcp = await harness.mcpClient(liveOnly.apiKey);
    expect((await refusal(liveMcp, 'live_invoke_api_write', { method: 'PATCH', path, body: { status: 'prayed' }, actionSummary: 'Mark prayed' })).code).toBe('insufficient_scope');
    await liveMcp.close();
    expect((await call(mcp, 'live_list_prayer_requests', { streamId: stream.id })).requests[0].status).toBe('new');

    // A bad status is refused and changes nothing.
    expect((await refusal(mcp, 'live_invoke_api_write', { method: 'PATCH', path, body: { status: 'done' }, actionSummary: 'Bad' })).code).toBe('validation_failed');
    const marked = await call(mcp, 'live_invoke_api_write', { method: 'PATCH', path, body: { status: 'prayed' }, actionSummary: 'Mark Ruth\'s request prayed for' });
    expect(marked.result).toEqual({ request: { id: request.id, status: 'prayed' } });
    expect((await call(mcp, 'live_list_prayer_requests', { streamId: stream.id })).requests[0].status).toBe('prayed');

    // Going live is a curated tool, not a route.
    const curated = await harness.invoke(org.apiKey, 'live_invoke_api_write', { method: 'POST', path: `/api/live/streams/${stream.id}/start`, body: {}, actionSummary: 'Go live' });
    expect(curated.body.error?.details?.tool).toBe('live_start_stream');
    expect((await call(mcp, 'live_get_stream_status', { streamId: stream.id })).stream.status).not.toBe('live');
  });

  it('platform_overview shows streams live now and streams in the next week', async () => {
    const fresh = await harness.createOrg({ name: 'St Oswald', planCode: 'growth' });
    const freshMcp = await harness.mcpClient(fresh.apiKey);
    try {
      expect((await call(freshMcp, 'platform_overview', {})).live).toEqual({ liveNow: 0, upcomingWeek: 0 });
      await call(freshMcp, 'live_schedule_stream', { title: 'Tomorrow', startsAt: new Date(Date.now() + 86_400_000).toISOString(), durationMinutes: 60 });
      await call(freshMcp, 'live_schedule_stream', { title: 'In three days', startsAt: new Date(Date.now() + 3 * 86_400_000).toISOString(), durationMinutes: 60 });
      await call(freshMcp, 'live_schedule_stream', { title: 'Next month', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), durationMinutes: 60 });
      const { stream: now } = await call(freshMcp, 'live_schedule_stream', { title: 'Now', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 60 });
      sandbox.setIngest(sandbox.broadcasts().find((b) => b.id === now.providerBroadcastId)!.contentDetails.boundStreamId!, true);
      await call(freshMcp, 'live_start_stream', { streamId: now.id });
      expect((await call(freshMcp, 'platform_overview', {})).live).toEqual({ liveNow: 1, upcomingWeek: 2 });
      // Without live:read the figure is withheld.
      const noLive = await harness.createKey(fresh.orgId, ['platform:read', 'people:read']);
      const noLiveMcp = await harness.mcpClient(noLive.apiKey);
      expect((await call(noLiveMcp, 'platform_overview', {})).live).toBeNull();
      await noLiveMcp.close();
      await call(freshMcp, 'live_end_stream', { streamId: now.id });
    } finally {
      await freshMcp.close();
    }
  });
});
