import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday } from '../../../test/helpers/mcp-calls';
import { findIntent } from '../../../core/intents';
import { makeImage } from '../../../test/helpers/media';

/**
 * Series and episodes through the HTTP bridge and the dashboard routes: validation, duplicates,
 * publishing refused without media, the module job drafting an episode per coming plan (once),
 * the overview and the listening metric, the invoke bridges and the curated publish route.
 */
describe('mediahub series, episodes, job, routes and metrics', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Luke' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  const call = (tool: string, args: unknown) => harness.call(org.apiKey, tool, args);
  const refused = async (tool: string, args: unknown) => (await harness.invoke(org.apiKey, tool, args)).body.error!;

  it('creates series once per title, and episodes that need a title and a date', async () => {
    const { series, channel } = await call('mediahub_create_series', { title: 'Advent Hope', description: 'Four weeks' });
    expect(series).toMatchObject({ title: 'Advent Hope', channelName: 'Sermons', episodes: 0, channelId: channel.id });
    expect(await refused('mediahub_create_series', { title: 'advent hope' })).toMatchObject({ code: 'conflict', details: { reason: 'series_exists' } });
    expect(await refused('mediahub_create_episode', { seriesId: series.id, date: '2026-12-06' })).toMatchObject({ code: 'validation_failed', issues: [{ path: 'title' }] });
    expect(await refused('mediahub_create_episode', { seriesId: series.id, title: 'Hope' })).toMatchObject({ code: 'validation_failed', issues: [{ path: 'date' }] });
    expect(await refused('mediahub_create_episode', { seriesId: series.id, title: 'Hope', date: '2026-12-06', planId: '00000000-0000-4000-8000-000000000000' })).toMatchObject({ code: 'not_found' });

    const { episode } = await call('mediahub_create_episode', { seriesId: series.id, title: 'Hope', date: '2026-12-06', links: [{ title: 'Notes', url: 'https://example.org/notes' }] });
    expect(episode).toMatchObject({ state: 'draft', songs: [], links: [{ title: 'Notes', url: 'https://example.org/notes' }], transcriptStatus: 'none' });
    // Nothing to publish yet: refused at once (no proposal), saying why.
    expect(await refused('mediahub_publish_episode', { episodeId: episode.id })).toMatchObject({ code: 'conflict', details: { reason: 'no_ready_media' } });
    expect(await refused('mediahub_unpublish_episode', { episodeId: episode.id })).toMatchObject({ code: 'conflict', details: { reason: 'episode_draft' } });
    expect(await refused('mediahub_transcribe_episode', { episodeId: episode.id })).toMatchObject({ code: expect.stringMatching(/^(not_configured|conflict)$/) });
    const updated = await call('mediahub_update_episode', { episodeId: episode.id, speaker: 'Rev Ann', addSongs: [{ title: 'O Come, O Come', publicDomain: true }] });
    expect(updated.episode).toMatchObject({ speaker: 'Rev Ann', songs: [{ title: 'O Come, O Come', licence: 'public_domain' }] });
    expect(await refused('mediahub_update_episode', { episodeId: episode.id, songLicences: [{ songId: series.id, licence: 'streaming' }] })).toMatchObject({ code: 'not_found' });
    expect((await call('mediahub_list_series', {})).series[0]).toMatchObject({ title: 'Advent Hope', episodes: 1 });
  });

  it('drafts an episode for each coming plan once, from the plan, in the series it names', async () => {
    await call('mediahub_create_series', { title: 'Philippians' });
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Evening service' });
    const date = dayFromToday(3);
    const { plan } = await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, title: 'Evening worship', seriesTitle: 'Advent Hope', times: [{ kind: 'service', startTime: '18:30', durationMinutes: 60 }] });
    await call('runsheet_add_item', { planId: plan.id, kind: 'item', title: 'Joy in chains', notes: { preacher: 'Sam Lee', reading: 'Philippians 1:12-18' } });
    const first = await harness.runJob('mediahub.draft_episodes', { orgId: org.orgId });
    expect(first).toEqual({ created: 1, exists: 0, noSeries: 0 });
    expect(await harness.runJob('mediahub.draft_episodes', { orgId: org.orgId })).toEqual({ created: 0, exists: 1, noSeries: 0 });
    const found = await call('mediahub_search', { query: 'Sam Lee' });
    expect(found.results).toEqual([expect.objectContaining({ kind: 'episode', title: 'Joy in chains', scripture: 'Philippians 1:12-18', date, state: 'draft' })]);
    const episode = (await call('mediahub_get_episode', { episodeId: found.results[0].id })).episode;
    expect(episode).toMatchObject({ seriesTitle: 'Advent Hope', planId: plan.id, speaker: 'Sam Lee' });
    // The job's draft is in the trail once, the system as actor (the second run made nothing and recorded nothing).
    const drafted = await harness.pool.query(`SELECT action, actor_kind, tool FROM audit_events WHERE org_id = $1 AND target_id = $2`, [org.orgId, episode.id]);
    expect(drafted.rows).toEqual([{ action: 'mediahub.episode.create', actor_kind: 'system', tool: 'job:mediahub.draft_episodes' }]);
    // A person making a second episode from the same plan is told it has one.
    expect(await refused('mediahub_create_episode', { seriesId: episode.seriesId, planId: plan.id })).toMatchObject({ code: 'conflict', details: { reason: 'episode_exists' } });
  });

  it('serves dashboard routes through the invoke bridges, sends publishing to its curated tool', async () => {
    const { channels } = await call('mediahub_invoke_api_read', { method: 'GET', path: '/api/mediahub/channels' }).then((r: any) => r.result);
    expect(channels[0]).toMatchObject({ name: 'Sermons', feedUrl: expect.stringMatching(new RegExp(`/mediahub/feeds/${org.orgId}/${channels[0].id}\\.xml$`)) });
    const patched = await call('mediahub_invoke_api_write', { method: 'PATCH', path: `/api/mediahub/channels/${channels[0].id}`, body: { author: 'St Luke\'s', category: 'Christianity' }, actionSummary: 'Feed author' });
    expect(JSON.stringify(patched)).toContain('Christianity');
    // The channel's artwork from the Media Library: shown by the file's public address; a PDF is refused and changes nothing.
    const library = async (fileName: string, bytes: Buffer) => (await call('platform_upload_media_library_file', { fileName, base64Content: bytes.toString('base64') })).file;
    const cover = await library('advent-cover.png', await makeImage('png', 1400, 1400));
    const leaflet = await library('advent.pdf', Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1'));
    const channelPath = `/api/mediahub/channels/${channels[0].id}`;
    const withArt = await call('mediahub_invoke_api_write', { method: 'PATCH', path: channelPath, body: { artworkMediaId: cover.id }, actionSummary: 'Feed artwork' });
    expect(withArt.result.channel).toMatchObject({ artworkMediaId: cover.id, artworkItemId: null, artworkUrl: cover.url });
    expect(cover.url).toMatch(new RegExp(`/media/files/${org.orgId}/${cover.id}$`));
    expect(await refused('mediahub_invoke_api_write', { method: 'PATCH', path: channelPath, body: { artworkMediaId: leaflet.id, author: 'Changed' }, actionSummary: 'Feed artwork' }))
      .toMatchObject({ code: 'validation_failed', issues: [{ path: 'artworkMediaId' }] });
    const after = (await call('mediahub_invoke_api_read', { method: 'GET', path: channelPath })).result.channel;
    expect(after).toMatchObject({ author: 'St Luke\'s', artworkMediaId: cover.id, artworkUrl: cover.url });
    const drafts = await call('mediahub_invoke_api_read', { method: 'GET', path: '/api/mediahub/episodes', query: { state: 'draft' } }).then((r: any) => r.result);
    expect(drafts.episodes.length).toBe(2);
    const curated = await refused('mediahub_invoke_api_write', { method: 'POST', path: `/api/mediahub/episodes/${drafts.episodes[0].id}/publish`, body: {}, actionSummary: 'Publish' });
    expect(curated).toMatchObject({ code: 'use_workflow_tool' });
    expect(JSON.stringify(curated)).toContain('mediahub_publish_episode');
    // The same route at its own path: another organisation's channel is not found.
    const foreign = await harness.createOrg({ name: 'Elsewhere' });
    expect((await fetch(`${harness.url}/api/mediahub/channels/${channels[0].id}`, { headers: { authorization: `Bearer ${foreign.apiKey}` } })).status).toBe(404);
    expect((await fetch(`${harness.url}/api/mediahub/channels/${channels[0].id}`, { headers: { authorization: `Bearer ${org.apiKey}` } })).status).toBe(200);
  });

  it('serves the playbook as an MCP prompt naming its tools', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const prompt = await mcp.getPrompt({ name: 'publish-sundays-sermon', arguments: { service: 'Sunday 10:30' } });
      const text = JSON.stringify(prompt.messages);
      for (const tool of ['mediahub_begin_upload', 'mediahub_create_episode', 'mediahub_publish_episode']) expect(text).toContain(tool);
    } finally {
      await mcp.close();
    }
  });

  it('works under the mediahub intent\'s scopes alone, which reach no contact and no service plan', async () => {
    const intent = findIntent('mediahub')!;
    const { apiKey } = await harness.createKey(org.orgId, [...intent.scopes]);
    expect((await harness.call(apiKey, 'mediahub_list_series', {})).series.length).toBeGreaterThan(0);
    expect((await harness.call(apiKey, 'mediahub_search', { query: 'Sam Lee' })).results).toHaveLength(1);
    expect((await harness.invoke(apiKey, 'people_list_contacts', {})).body.error?.code).toBe('insufficient_scope');
    // The episode's plan is read through runsheet's public surface, not the caller's runsheet scope.
    expect((await harness.invoke(apiKey, 'runsheet_list_plans', {})).body.error?.code).toBe('insufficient_scope');
    // So prefilling an episode from a plan is refused under it: the plan's details are runsheet's.
    const { series } = await harness.call(apiKey, 'mediahub_create_series', { title: 'Intent series' });
    const plan = (await harness.call(org.apiKey, 'runsheet_list_plans', {})).plans[0];
    const prefill = await harness.invoke(apiKey, 'mediahub_create_episode', { seriesId: series.id, planId: plan.id });
    expect(prefill.body.error).toMatchObject({ code: 'insufficient_scope', details: { required: 'runsheet:read' } });
  });

  it('adds its figures to the overview and answers the listening metric', async () => {
    const overview = await call('platform_overview', {});
    expect(overview.mediahub).toEqual({ draftEpisodes: 2, publishedThisMonth: 0, itemsProcessing: 0, itemsFailed: 0 });
    const metric = await call('platform_analytics_query', { metric: 'sermon_listening' });
    expect(metric).toMatchObject({ data: { episodes: [] }, speakToUser: expect.stringContaining('No sermon was played') });
  });
});
