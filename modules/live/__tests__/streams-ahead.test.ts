import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { syncAllSchedules } from '../../../activities/schedules';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { call, refusal, serviceSoon, streamingStack } from './stack';

/**
 * Streams made ahead of the schedule's services by the scheduled workflow: only for organisations
 * that turned it on, one per service however often it runs (a cancelled one is not made again),
 * each with its timer, and none past the stream hours allowance.
 */
describe('live: streams made ahead of services', () => {
  let harness: Harness;
  let close: () => Promise<void>;
  let org: TestOrg;
  let small: TestOrg;
  let off: TestOrg;
  let mcp: McpClient;
  let smallMcp: McpClient;
  let offMcp: McpClient;
  let runs = 0;

  const runAhead = async (orgId?: string): Promise<Record<string, number>> => harness.temporal.workflow.execute('liveStreamsAheadWorkflow', {
    taskQueue: harness.taskQueue, workflowId: `test-live-ahead-${Date.now()}-${(runs += 1)}`, args: [orgId ? { orgId } : {}],
  });

  beforeAll(async () => {
    ({ harness, close } = await streamingStack());
    org = await harness.createOrg({ name: 'St Cuthbert', planCode: 'growth' });
    small = await harness.createOrg({ name: 'Little Bethel', planCode: 'starter' });
    off = await harness.createOrg({ name: 'Quiet Chapel', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey);
    smallMcp = await harness.mcpClient(small.apiKey);
    offMcp = await harness.mcpClient(off.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await smallMcp?.close();
    await offMcp?.close();
    await close?.();
  });

  it('is off by default, and validates its settings', async () => {
    expect((await call(mcp, 'live_get_settings', {})).settings).toEqual({ autoCreateStreams: false, createAheadDays: 7, updatedAt: null });
    expect((await refusal(mcp, 'live_update_settings', {})).code).toBe('validation_failed');
    expect((await refusal(mcp, 'live_update_settings', { createAheadDays: 29 })).code).toBe('validation_failed');
    expect((await call(mcp, 'live_get_settings', {})).settings.updatedAt).toBeNull();
  });

  it('makes one stream per service ahead, with its timer, and never again (not even once cancelled)', async () => {
    const instance = await serviceSoon(mcp, 'Sung Eucharist', 120);
    await serviceSoon(offMcp, 'Evensong', 120);
    const { settings } = await call(mcp, 'live_update_settings', { autoCreateStreams: true, createAheadDays: 3 });
    expect(settings).toMatchObject({ autoCreateStreams: true, createAheadDays: 3 });

    const first = await runAhead();
    expect(first).toMatchObject({ created: 1, overAllowance: 0, timersStarted: 1 });
    const { streams } = await call(mcp, 'live_list_streams', {});
    expect(streams).toEqual([expect.objectContaining({ instanceId: instance.id, title: 'Sung Eucharist', startsAt: instance.startsAt, endsAt: instance.endsAt, status: 'ready', autoCreated: true })]);
    expect((await call(offMcp, 'live_list_streams', {})).streams).toEqual([]);
    const made = (await call(mcp, 'audit_list_events', { targetId: streams[0].id, actorKind: 'system' })).events;
    expect(made).toEqual([expect.objectContaining({ action: 'live.stream.create', tool: 'job:live.streams_ahead', target: { type: 'stream', id: streams[0].id } })]);
    const timer = await harness.temporal.workflow.getHandle(`live-stream-${streams[0].id}`).describe();
    expect(timer.status.name).toBe('RUNNING');
    expect(timer.type).toBe('liveStreamWorkflow');

    // Runs at once create nothing twice.
    const again = await Promise.all([runAhead(org.orgId), runAhead(org.orgId)]);
    expect(again.map((r) => r.created)).toEqual([0, 0]);
    expect(again.map((r) => r.timersStarted)).toEqual([0, 0]);
    expect((await call(mcp, 'live_list_streams', {})).streams).toHaveLength(1);
    // A service that already has a stream from a person is left alone too.
    expect((await refusal(mcp, 'live_schedule_stream', { instanceId: instance.id })).details.reason).toBe('instance_has_stream');

    await call(mcp, 'live_update_stream', { streamId: streams[0].id, cancel: true });
    expect(await runAhead(org.orgId)).toMatchObject({ created: 0, exists: 1 });
    expect((await call(mcp, 'live_list_streams', {})).streams.map((s: any) => s.status)).toEqual(['cancelled']);
  });

  it('counts each stream against the stream hours allowance before making it', async () => {
    // The starter plan allows 4 stream hours a month: one 3-hour service fits, the next does not.
    const first = await serviceSoon(smallMcp, 'Vigil', 60, 180);
    await serviceSoon(smallMcp, 'Second vigil', 90, 180);
    await call(smallMcp, 'live_update_settings', { autoCreateStreams: true });
    expect(await runAhead(small.orgId)).toMatchObject({ created: 1, overAllowance: 1 });
    const { streams } = await call(smallMcp, 'live_list_streams', {});
    expect(streams.map((s: any) => s.instanceId)).toEqual([first.id]);
    expect(await runAhead(small.orgId)).toMatchObject({ created: 0, exists: 1, overAllowance: 1 });
  });

  it('turning it off stops it', async () => {
    await serviceSoon(mcp, 'Compline', 200);
    await call(mcp, 'live_update_settings', { autoCreateStreams: false });
    expect(await runAhead(org.orgId)).toMatchObject({ organisations: 0, created: 0 });
  });

  it('runs hourly from a Temporal Schedule that starts the workflow', async () => {
    await syncAllSchedules(harness.temporal, harness.pool, harness.taskQueue);
    const schedule = harness.temporal.schedule.getHandle(`live-streams-ahead-${harness.taskQueue}`);
    try {
      const described = await schedule.describe();
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'liveStreamsAheadWorkflow', taskQueue: harness.taskQueue });
      expect(described.spec.intervals?.[0]?.every).toBe(3_600_000);
    } finally {
      // Schedules outlive the test database: remove every one this sync made.
      for await (const listed of harness.temporal.schedule.list()) {
        if (listed.scheduleId.includes(harness.taskQueue)) await harness.temporal.schedule.getHandle(listed.scheduleId).delete().catch(() => undefined);
      }
    }
  });
});
