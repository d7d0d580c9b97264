import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import Parser from 'rss-parser';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { makeImage } from '../../../test/helpers/media';
import { dayFromToday, mcpCall as call, mcpRefusal as refusal } from '../../../test/helpers/mcp-calls';
import { startTranscriptionSandbox, type TranscriptionSandbox } from '../../../sandbox/transcription/server';
import { makeWav, putTo, until } from './fixtures';

/**
 * Sunday's sermon from plan to podcast over MCP, on a real S3-compatible server (moto): artwork and
 * the recording uploaded through presigned bucket URLs and processed; a series; an episode prefilled
 * from the runsheet plan (title, speaker, scripture, songs); publishing refused while a song has no
 * licence, naming it, then approved by a person; the feed parsed by a real feed parser; the
 * enclosure counted as a download and redirected to the bytes; a transcript from the sandbox
 * provider found by search; unpublished, it leaves the feed. Another organisation sees none of it.
 */
const MOTO = path.join(__dirname, '..', '..', '..', '.venv', 'bin', 'moto_server');
const BUCKET = 'steward-mediahub-test';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('mediahub journey: Sunday\'s sermon from plan to podcast', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  let moto: ChildProcess;
  let s3: S3Client;
  let endpoint: string;
  let transcription: TranscriptionSandbox;
  const saved = { ...process.env };

  beforeAll(async () => {
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    moto = spawn(MOTO, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await until(() => fetch(endpoint).then(() => true, () => false), (up) => up, 30_000);
    transcription = await startTranscriptionSandbox();
    Object.assign(process.env, {
      MEDIA_STORAGE: 's3', MEDIA_S3_BUCKET: BUCKET, MEDIA_S3_REGION: 'us-east-1', MEDIA_S3_ENDPOINT: endpoint, MEDIA_S3_FORCE_PATH_STYLE: 'true',
      MEDIA_S3_ACCESS_KEY_ID: 'testing', MEDIA_S3_SECRET_ACCESS_KEY: 'testing-secret', ...transcription.env(),
    });
    s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing-secret' } });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'St Ruth & Naomi' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  }, 120_000);

  afterAll(async () => {
    await otherMcp?.close();
    await mcp?.close();
    await harness?.close();
    await transcription?.close();
    s3?.destroy();
    moto?.kill('SIGTERM');
    process.env = saved;
  });

  const uploadOverMcp = async (fileName: string, bytes: Buffer) => {
    const begun = await call(mcp, 'mediahub_begin_upload', { fileName, fileSize: bytes.length });
    expect(begun.uploadUrl.startsWith(`${endpoint}/${BUCKET}/uploads/${org.orgId}/${begun.itemId}/`)).toBe(true);
    expect((await putTo(begun, bytes)).status).toBe(200);
    expect((await call(mcp, 'mediahub_complete_upload', { itemId: begun.itemId })).item.status).toBe('processing');
    return until(() => call(mcp, 'mediahub_get_item', { itemId: begun.itemId }).then((r) => r.item), (item) => item.status !== 'processing');
  };

  it('goes from plan to a validated podcast feed', async () => {
    // The recording and the artwork, through presigned bucket URLs; processed; the upload objects removed.
    const wav = makeWav(4);
    const audio = await uploadOverMcp('ruth-1.wav', wav);
    expect(audio).toMatchObject({ status: 'ready', kind: 'audio' });
    expect(audio.durationSeconds).toBeCloseTo(4, 1);
    const art = await uploadOverMcp('series-art.png', await makeImage('png', 1400, 1400));
    expect(art.status).toBe('ready');
    const keys = ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: '' }))).Contents ?? []).map((o) => o.Key!);
    expect(keys.filter((key) => key.startsWith(`media/${org.orgId}/${audio.id}/`))).toHaveLength(1);
    expect(keys.filter((key) => key.startsWith(`uploads/${org.orgId}/${audio.id}/`))).toHaveLength(0);

    // Sunday's plan: the sermon item names speaker and scripture; two songs, one public domain.
    const sunday = dayFromToday(1);
    const { serviceType } = await call(mcp, 'runsheet_create_service_type', { name: 'Morning worship' });
    const { plan } = await call(mcp, 'runsheet_create_plan', { serviceTypeId: serviceType.id, date: sunday, title: 'Morning worship', times: [{ kind: 'service', startTime: '10:30', durationMinutes: 90 }] });
    const cornerstone = (await call(mcp, 'runsheet_create_song', { title: 'Cornerstone', author: 'Hillsong', ccliNumber: '6158927' })).songId;
    const grace = (await call(mcp, 'runsheet_create_song', { title: 'Amazing Grace', publicDomain: true })).songId;
    await call(mcp, 'runsheet_add_item', { planId: plan.id, kind: 'song', songId: grace });
    await call(mcp, 'runsheet_add_item', { planId: plan.id, kind: 'item', title: 'Where you go, I will go', lengthSeconds: 1500, notes: { speaker: 'Rev Ann Smith', scripture: 'Ruth 1:16-17' } });
    await call(mcp, 'runsheet_add_item', { planId: plan.id, kind: 'song', songId: cornerstone });

    const { series, channel } = await call(mcp, 'mediahub_create_series', { title: 'Ruth: Faith & <Loyalty>', artworkItemId: art.id });
    expect(channel).toMatchObject({ name: 'Sermons', artworkItemId: art.id });
    const { episode } = await call(mcp, 'mediahub_create_episode', { seriesId: series.id, planId: plan.id, audioItemId: audio.id });
    expect(episode).toMatchObject({
      state: 'draft', title: 'Where you go, I will go', speaker: 'Rev Ann Smith', scripture: 'Ruth 1:16-17', date: sunday, planId: plan.id,
      songs: [
        { songId: grace, title: 'Amazing Grace', publicDomain: true, licence: 'public_domain' },
        { songId: cornerstone, title: 'Cornerstone', ccliNumber: '6158927', licence: null },
      ],
    });

    // Refused, naming the song, while it has no licence; nothing proposed, nothing published.
    const refused = await refusal(mcp, 'mediahub_publish_episode', { episodeId: episode.id });
    expect(refused).toMatchObject({ code: 'conflict', details: { reason: 'song_unlicensed', songs: [{ title: 'Cornerstone', ccliNumber: '6158927' }] } });
    expect(refused.message).toContain('"Cornerstone" (CCLI 6158927)');
    expect((await call(mcp, 'mediahub_get_episode', { episodeId: episode.id })).episode.state).toBe('draft');

    // The streaming licence recorded; now a person approves, and it is published.
    const cornerstoneInEpisode = episode.songs.find((song: any) => song.title === 'Cornerstone').id;
    const licensed = await call(mcp, 'mediahub_update_episode', { episodeId: episode.id, songLicences: [{ songId: cornerstoneInEpisode, licence: 'streaming', licenceNumber: 'CSPL123456' }] });
    expect(licensed.episode.songs[1]).toMatchObject({ licence: 'streaming', licenceNumber: 'CSPL123456' });
    const gated = await refusal(mcp, 'mediahub_publish_episode', { episodeId: episode.id, actionSummary: 'Publish Sunday\'s sermon' });
    expect(gated.code).toBe('approval_required');
    const feedUrl = (await call(mcp, 'mediahub_get_feed_url', {})).feedUrl;
    expect(feedUrl).toBe(`${harness.url}/mediahub/feeds/${org.orgId}/${channel.id}.xml`);
    expect((await new Parser().parseString(await (await fetch(feedUrl)).text())).items).toHaveLength(0);
    const decided = await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    expect(decided.execution.result.episode).toMatchObject({ state: 'published' });

    // The feed, through a real parser: channel and item with the iTunes tags apps need, escaped text intact.
    const response = await fetch(feedUrl);
    expect(response.headers.get('content-type')).toContain('application/rss+xml');
    const xml = await response.text();
    expect(xml).toContain('Ruth: Faith &amp; &lt;Loyalty&gt;');
    const feed = await new Parser().parseString(xml);
    expect(feed).toMatchObject({ title: 'Sermons', language: 'en' });
    expect(feed.itunes).toMatchObject({ author: 'St Ruth & Naomi', explicit: 'false', categories: ['Religion & Spirituality'] });
    expect(feed.itunes?.image).toBe(`${harness.url}/mediahub/artwork/${org.orgId}/${art.id}.png`);
    expect(feed.items).toHaveLength(1);
    const item = feed.items[0]!;
    expect(item).toMatchObject({ title: 'Where you go, I will go', guid: `steward-mediahub-${episode.id}` });
    expect(item.content).toContain('Ruth: Faith & <Loyalty>');
    expect(item.enclosure).toMatchObject({ type: 'audio/wav', length: String(wav.length) });
    expect(item.itunes).toMatchObject({ author: 'Rev Ann Smith', duration: '00:00:04' });

    // The public library page lists it, its player pointing at the counted play link.
    const library = await (await fetch(`${harness.url}/mediahub/library/${org.orgId}`)).text();
    expect(library).toContain('<h1>St Ruth &amp; Naomi: sermons</h1>');
    expect(library).toContain(`src="${harness.url}/mediahub/play/${org.orgId}/${episode.id}/audio?via=web"`);

    // Artwork and enclosure redirect to the bucket; the enclosure fetch counts one download.
    const artwork = await fetch(feed.itunes!.image!);
    expect(artwork.status).toBe(200);
    const fetched = await fetch(item.enclosure!.url);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(wav)).toBe(true);
    await fetch(item.enclosure!.url.replace('via=feed', 'via=web'));
    const stats = await call(mcp, 'mediahub_get_episode_stats', { episodeId: episode.id });
    expect(stats.totals).toEqual({ plays: 1, downloads: 1 });
    expect(stats.byDay).toEqual([{ date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), plays: 1, downloads: 1 }]);

    // Transcribed by the sandbox provider (which fetched the audio by its presigned URL); searchable.
    transcription.script(createHash('sha256').update(wav).digest('hex'), 'Naomi heard that the Lord had visited his people. Ruth showed steadfast kindness.');
    transcription.failNext(1);
    expect((await call(mcp, 'mediahub_transcribe_episode', { episodeId: episode.id })).episode.transcriptStatus).toBe('requested');
    await until(() => call(mcp, 'mediahub_get_episode', { episodeId: episode.id }).then((r) => r.episode), (e) => e.transcriptStatus !== 'requested');
    expect(transcription.requests().map((r) => r.status)).toEqual([503, 200]);
    // The transcription job's change is in the trail once (the failed attempt committed nothing), the transcript by reference only.
    const transcribed = (await call(mcp, 'audit_get_entity_history', { targetType: 'episode', targetId: episode.id })).entries.filter((entry: any) => entry.action === 'mediahub.transcript.complete');
    expect(transcribed).toHaveLength(1);
    expect(transcribed[0].changes).toEqual(expect.arrayContaining([
      { field: 'transcriptStatus', before: 'requested', after: 'ready' }, { field: 'transcriptContent', after: { ref: expect.stringMatching(/^sha256:/) } },
    ]));
    expect(JSON.stringify(transcribed)).not.toContain('steadfast');
    const found = await call(mcp, 'mediahub_search', { query: 'steadfast kindness' });
    expect(found.results).toEqual([expect.objectContaining({ kind: 'episode', id: episode.id, snippet: expect.stringContaining('[steadfast]') })]);
    expect((await call(mcp, 'mediahub_search', { query: 'Ann Smith' })).results.map((r: any) => r.id)).toEqual([episode.id]);
    expect((await call(mcp, 'mediahub_search', { query: 'Ruth 1' })).results.map((r: any) => r.id)).toContain(episode.id);

    // Another organisation: nothing found, nothing reachable.
    expect((await call(otherMcp, 'mediahub_search', { query: 'steadfast kindness' })).results).toEqual([]);
    expect((await refusal(otherMcp, 'mediahub_get_episode', { episodeId: episode.id })).code).toBe('not_found');
    expect((await refusal(otherMcp, 'mediahub_unpublish_episode', { episodeId: episode.id })).code).toBe('not_found');
    expect((await fetch(`${harness.url}/mediahub/feeds/${other.orgId}/${channel.id}.xml`)).status).toBe(404);

    // Unpublished: out of the feed, its play link gone.
    expect((await call(mcp, 'mediahub_unpublish_episode', { episodeId: episode.id })).episode.state).toBe('unpublished');
    expect((await new Parser().parseString(await (await fetch(feedUrl)).text())).items).toHaveLength(0);
    expect((await fetch(item.enclosure!.url, { redirect: 'manual' })).status).toBe(404);
    expect(await (await fetch(`${harness.url}/mediahub/library/${org.orgId}`)).text()).toContain('No sermons published yet.');

    // Published again for next week: scheduled, and out of the feed until then.
    const publishAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const again = await refusal(mcp, 'mediahub_publish_episode', { episodeId: episode.id, publishAt });
    const scheduled = await call(mcp, 'platform_approve_proposal', { proposalId: again.details.proposalId });
    expect(scheduled.execution.result.episode).toMatchObject({ state: 'scheduled', publishAt });
    expect((await new Parser().parseString(await (await fetch(feedUrl)).text())).items).toHaveLength(0);
  });

  it('removes an archived item\'s objects from the S3 bucket after the retention period', async () => {
    const image = await uploadOverMcp('old-poster.png', await makeImage('png', 800, 600));
    expect(image.status).toBe('ready');
    const objectsOf = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `media/${org.orgId}/${image.id}/` }))).Contents ?? []).map((o) => o.Key!);
    // The original and its still.
    expect(await objectsOf()).toHaveLength(2);
    await call(mcp, 'mediahub_archive_item', { itemId: image.id });
    expect(await objectsOf()).toHaveLength(2);
    const run = await harness.runJob('mediahub.remove_archived_objects', { now: new Date(Date.now() + 31 * 86_400_000), orgId: org.orgId });
    expect(run).toMatchObject({ items: 1 });
    expect(await objectsOf()).toEqual([]);
    expect((await call(mcp, 'mediahub_get_item', { itemId: image.id })).item.status).toBe('archived');
  });
});
