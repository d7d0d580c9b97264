import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { call, refusal, serviceSoon, streamingStack } from './stack';

/**
 * A stream names the media hub episode it becomes by the episode's id, checked through mediahub's
 * api (another organisation's or an unknown id is not found, nothing changes). The ahead jobs link a
 * service's stream and its draft episode whichever of them ran first.
 */
describe('live: the episode a stream becomes', () => {
  let harness: Harness;
  let close: () => Promise<void>;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  let runs = 0;
  let seriesId: string;

  const runLiveAhead = async (): Promise<Record<string, number>> => harness.temporal.workflow.execute('liveStreamsAheadWorkflow', {
    taskQueue: harness.taskQueue, workflowId: `test-live-episode-${Date.now()}-${(runs += 1)}`, args: [{ orgId: org.orgId }],
  });
  const draftEpisodes = () => harness.runJob('mediahub.draft_episodes', { orgId: org.orgId });
  const planFor = async (instanceId: string, serviceTypeId: string) => (await call(mcp, 'runsheet_create_plan', { serviceTypeId, instanceId })).plan;
  const episodeOfPlan = async (planId: string) => (await harness.pool.query('SELECT id FROM mediahub_episodes WHERE org_id = $1 AND plan_id = $2', [org.orgId, planId])).rows[0]?.id as string | undefined;
  const streamOf = async (instanceId: string) => (await call(mcp, 'live_list_streams', {})).streams.find((s: { instanceId: string }) => s.instanceId === instanceId);

  beforeAll(async () => {
    ({ harness, close } = await streamingStack());
    org = await harness.createOrg({ name: 'St Bede', planCode: 'growth' });
    other = await harness.createOrg({ name: 'Jarrow Chapel', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    seriesId = (await call(mcp, 'mediahub_create_series', { title: 'Sunday sermons' })).series.id;
    await call(mcp, 'live_update_settings', { autoCreateStreams: true, createAheadDays: 3 });
  });

  afterAll(async () => {
    await otherMcp?.close();
    await mcp?.close();
    await close?.();
  });

  it('links a stream made ahead to the episode drafted later for the same service, once', async () => {
    const { serviceType } = await call(mcp, 'runsheet_create_service_type', { name: 'Morning service' });
    const instance = await serviceSoon(mcp, 'Morning service', 120);
    const plan = await planFor(instance.id, serviceType.id);

    // The stream first: no episode yet, so none linked.
    expect(await runLiveAhead()).toMatchObject({ created: 1, episodesLinked: 0 });
    expect(await streamOf(instance.id)).toMatchObject({ episodeId: null });
    // Media hub drafts the episode; the next live run links them.
    expect(await draftEpisodes()).toMatchObject({ created: 1 });
    const episodeId = await episodeOfPlan(plan.id);
    expect(episodeId).toBeDefined();
    expect(await runLiveAhead()).toMatchObject({ created: 0, exists: 1, episodesLinked: 1 });
    expect(await streamOf(instance.id)).toMatchObject({ episodeId });
    expect(await runLiveAhead()).toMatchObject({ episodesLinked: 0 });
    // The dashboard's status shows it too.
    const stream = await streamOf(instance.id);
    expect((await call(mcp, 'live_get_stream_status', { streamId: stream.id })).stream.episodeId).toBe(episodeId);
  });

  it('a stream made after its service\'s draft episode is linked as it is made', async () => {
    const { serviceType } = await call(mcp, 'runsheet_create_service_type', { name: 'Evening service' });
    const instance = await serviceSoon(mcp, 'Evening service', 150);
    const plan = await planFor(instance.id, serviceType.id);
    expect(await draftEpisodes()).toMatchObject({ created: 1 });
    const episodeId = await episodeOfPlan(plan.id);
    expect(await runLiveAhead()).toMatchObject({ created: 1, episodesLinked: 1 });
    expect(await streamOf(instance.id)).toMatchObject({ episodeId, autoCreated: true });
  });

  it('a stream scheduled by hand for a service takes its episode; one named must be this organisation\'s episode', async () => {
    const { serviceType } = await call(mcp, 'runsheet_create_service_type', { name: 'Midweek service' });
    const instance = await serviceSoon(mcp, 'Midweek service', 160);
    const plan = await planFor(instance.id, serviceType.id);
    await draftEpisodes();
    const episodeId = await episodeOfPlan(plan.id);
    const { stream } = await call(mcp, 'live_schedule_stream', { instanceId: instance.id });
    expect(stream.episodeId).toBe(episodeId);

    const count = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM live_streams WHERE org_id = $1', [org.orgId])).rows[0].n;
    const before = await count();
    const startsAt = new Date(Date.now() + 86_400_000).toISOString();
    // Unknown, another organisation's, and not an id at all: refused, nothing made.
    expect(await refusal(mcp, 'live_schedule_stream', { title: 'Guest speaker', startsAt, episodeId: randomUUID() })).toMatchObject({ code: 'not_found', hint: expect.stringContaining('mediahub_search') });
    const { series: theirSeries } = await call(otherMcp, 'mediahub_create_series', { title: 'Their sermons' });
    const { episode: theirs } = await call(otherMcp, 'mediahub_create_episode', { seriesId: theirSeries.id, title: 'Not yours', date: startsAt.slice(0, 10) });
    expect((await refusal(mcp, 'live_schedule_stream', { title: 'Guest speaker', startsAt, episodeId: theirs.id })).code).toBe('not_found');
    expect((await refusal(mcp, 'live_schedule_stream', { title: 'Guest speaker', startsAt, episodeId: 'Sunday sermon' })).code).toBe('validation_failed');
    expect(await count()).toBe(before);

    // Named on a stream on a date; changed and unlinked with live_update_stream; a bad id there changes nothing.
    const { episode: guest } = await call(mcp, 'mediahub_create_episode', { seriesId, title: 'Guest speaker', date: startsAt.slice(0, 10) });
    const { stream: onDate } = await call(mcp, 'live_schedule_stream', { title: 'Guest speaker', startsAt, episodeId: guest.id });
    expect(onDate.episodeId).toBe(guest.id);
    expect((await refusal(mcp, 'live_update_stream', { streamId: onDate.id, episodeId: theirs.id })).code).toBe('not_found');
    expect((await call(mcp, 'live_get_stream_status', { streamId: onDate.id })).stream.episodeId).toBe(guest.id);
    expect((await call(mcp, 'live_update_stream', { streamId: onDate.id, episodeId: null })).stream.episodeId).toBeNull();
    expect((await call(mcp, 'live_update_stream', { streamId: onDate.id, episodeId })).stream.episodeId).toBe(episodeId);
  });
});
