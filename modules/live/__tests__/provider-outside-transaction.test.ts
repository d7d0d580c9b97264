import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import type { StreamingSandbox } from '../../../sandbox/streaming/server';
import { randomUUID } from 'node:crypto';
import { prepareSchedule, provisionOutside, streamRow } from '../streams';
import { call, eventually, refusal, streamingStack } from './stack';

/**
 * The streaming provider is never asked while a transaction that wrote to or locked a stream is
 * open: each request the sandbox receives looks, at that moment, for a lock a writing transaction
 * (insert, update, SELECT … FOR UPDATE) holds on live_streams. A slow provider then holds no row
 * and no connection; a provider that refuses leaves the stream as it was.
 */
describe('live: provider calls outside the database transaction', () => {
  let harness: Harness;
  let sandbox: StreamingSandbox;
  let close: () => Promise<void>;
  let org: TestOrg;
  let mcp: McpClient;
  const seen: Array<{ request: string; locks: string[] }> = [];

  /** Locks a writing transaction holds on live_streams in this database right now (a plain read's AccessShareLock is not one). */
  const writeLocks = async () => (await harness.pool.query<{ mode: string }>(`SELECT l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
    WHERE c.relname = 'live_streams' AND l.granted AND l.mode IN ('RowShareLock', 'RowExclusiveLock')
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows.map((row) => row.mode);

  beforeAll(async () => {
    ({ harness, sandbox, close } = await streamingStack());
    org = await harness.createOrg({ name: 'St Cuthbert', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  beforeEach(() => {
    seen.length = 0;
    // A slow provider: each request waits a little, and records the locks held while it waits.
    sandbox.intercept(async ({ method, resource }) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen.push({ request: `${method} ${resource}`, locks: await writeLocks() });
    });
  });

  afterEach(() => sandbox.intercept(null));

  afterAll(async () => {
    await mcp?.close();
    await close?.();
  });

  const boundStreamOf = (broadcastId: string) => sandbox.broadcasts().find((b) => b.id === broadcastId)!.contentDetails.boundStreamId!;

  it('schedules, updates, reads, starts and ends a stream with no stream row locked during a provider call', async () => {
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Evensong', startsAt: new Date(Date.now() + 5 * 60_000).toISOString(), durationMinutes: 60 });
    expect(stream).toMatchObject({ status: 'ready', provider: 'youtube' });
    sandbox.setIngest(boundStreamOf(stream.providerBroadcastId), true);
    const { stream: renamed } = await call(mcp, 'live_update_stream', { streamId: stream.id, title: 'Choral Evensong' });
    expect(renamed.title).toBe('Choral Evensong');
    expect(sandbox.broadcasts().find((b) => b.id === stream.providerBroadcastId)!.snippet.title).toBe('Choral Evensong');
    expect(await call(mcp, 'live_get_stream_status', { streamId: stream.id })).toMatchObject({ ingestActive: true, canGoLive: true });
    expect(await call(mcp, 'live_start_stream', { streamId: stream.id })).toMatchObject({ stream: { status: 'live' }, provider: { lifeCycleStatus: 'live' } });
    expect((await call(mcp, 'live_end_stream', { streamId: stream.id })).stream.status).toBe('complete');

    const requests = seen.map((entry) => entry.request);
    for (const expected of ['POST liveBroadcasts', 'POST liveStreams', 'POST liveBroadcasts/bind', 'PUT liveBroadcasts', 'GET liveBroadcasts', 'POST liveBroadcasts/transition']) {
      expect(requests).toContain(expected);
    }
    expect(requests.filter((r) => r === 'POST liveBroadcasts')).toHaveLength(1);
    expect(seen.filter((entry) => entry.locks.length > 0)).toEqual([]);
  });

  it('an attempt retried before its commit reuses the broadcast the first attempt made', async () => {
    const input = { title: 'Vigil', startsAt: new Date(Date.now() + 3_600_000).toISOString(), durationMinutes: 60 };
    const first = await prepareSchedule(harness.pool, org.orgId, input, 'test-call-retried');
    const again = await prepareSchedule(harness.pool, org.orgId, input, 'test-call-retried');
    expect(again).toEqual(first);
    expect(seen.filter((entry) => entry.request === 'POST liveBroadcasts')).toHaveLength(1);
    const other = await prepareSchedule(harness.pool, org.orgId, input, 'test-call-other');
    expect(other!.broadcastId).not.toBe(first!.broadcastId);
  });

  it('two provisionings of one stream at once keep one broadcast: the one not recorded is deleted at the provider', async () => {
    // A stream made while no provider was configured (created, no broadcast); the job and a call both provision it.
    const id = randomUUID();
    const startsAt = new Date(Date.now() + 7_200_000);
    await harness.pool.query(`INSERT INTO live_streams (id, org_id, title, scheduled_start, scheduled_end) VALUES ($1, $2, 'Race for the broadcast', $3, $4)`,
      [id, org.orgId, startsAt, new Date(startsAt.getTime() + 3_600_000)]);
    const row = await streamRow(harness.pool, org.orgId, id);
    const [first, second] = await Promise.all([provisionOutside(harness.pool, org.orgId, row), provisionOutside(harness.pool, org.orgId, row)]);
    expect(seen.filter((entry) => entry.request === 'POST liveBroadcasts')).toHaveLength(2);
    expect(first.provider_broadcast_id).toBeTruthy();
    expect(second.provider_broadcast_id).toBe(first.provider_broadcast_id);
    expect(first.status).toBe('ready');
    const left = sandbox.broadcasts().filter((b) => b.snippet.title === 'Race for the broadcast');
    expect(left.map((b) => b.id)).toEqual([first.provider_broadcast_id]);
    expect(left[0]!.contentDetails.boundStreamId).toBe(first.provider_stream_id);
    expect(seen.map((entry) => entry.request)).toEqual(expect.arrayContaining(['DELETE liveBroadcasts', 'DELETE liveStreams']));
    // No lock check here: the probe sees every transaction in the database, and the winner's short
    // recording transaction may well run while the loser is still asking the provider.
  });

  it('a provider refusing to complete the stream leaves it live here, with the same error', async () => {
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Compline', startsAt: new Date(Date.now() + 60_000).toISOString(), durationMinutes: 30 });
    sandbox.setIngest(boundStreamOf(stream.providerBroadcastId), true);
    await call(mcp, 'live_start_stream', { streamId: stream.id });
    sandbox.intercept(async ({ resource }) => {
      seen.push({ request: resource, locks: await writeLocks() });
      if (resource === 'liveBroadcasts/transition') return { status: 500, reason: 'backendError', message: 'The provider is having a moment' };
    });
    const refused = await refusal(mcp, 'live_end_stream', { streamId: stream.id });
    expect(refused).toMatchObject({ code: 'conflict', details: { reason: 'provider_refused', providerReason: 'backendError' } });
    const row = await harness.pool.query('SELECT status, ended_at FROM live_streams WHERE id = $1', [stream.id]);
    expect(row.rows).toEqual([{ status: 'live', ended_at: null }]);
    expect(seen.filter((entry) => entry.locks.length > 0)).toEqual([]);
  });

  it('the timer completes a stream at the provider with no stream row locked', async () => {
    const now = Date.now();
    const { stream } = await call(mcp, 'live_schedule_stream', { title: 'Night prayer', startsAt: new Date(now - 60_000).toISOString(), endsAt: new Date(now + 3_000).toISOString(), graceMinutes: 0 });
    sandbox.setIngest(boundStreamOf(stream.providerBroadcastId), true);
    await call(mcp, 'live_start_stream', { streamId: stream.id });
    seen.length = 0;
    const done = await eventually(async () => (await call(mcp, 'live_list_streams', { status: 'complete' })).streams.find((s: { id: string }) => s.id === stream.id), (s) => Boolean(s));
    expect(done).toMatchObject({ endedReason: 'auto_complete' });
    expect(sandbox.broadcasts().find((b) => b.id === stream.providerBroadcastId)!.status.lifeCycleStatus).toBe('complete');
    expect(seen.map((entry) => entry.request)).toContain('POST liveBroadcasts/transition');
    expect(seen.filter((entry) => entry.locks.length > 0)).toEqual([]);
  });
});
