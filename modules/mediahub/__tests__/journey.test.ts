import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import Parser from 'rss-parser';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { makeImage, putUpload } from '../../../test/helpers/media';
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

  // begin → PUT to the presigned bucket URL → complete, over MCP: a file in the platform's Media Library.
  const libraryUpload = async (client: McpClient, fileName: string, bytes: Buffer, extra: Record<string, unknown> = {}) => {
    const begun = await call(client, 'platform_begin_media_library_upload', { fileName, fileSize: bytes.length });
    expect(begun.uploadUrl.startsWith(`${endpoint}/${BUCKET}/`)).toBe(true);
    expect((await putUpload(begun, bytes)).status).toBe(200);
    return (await call(client, 'platform_complete_media_library_upload', { mediaId: begun.mediaId, sessionId: begun.sessionId, ...extra })).file;
  };

  it('takes series and episode artwork from the Media Library, shown by its public address in the episode, the feed and the library', async () => {
    const libraryUrl = (mediaId: string) => `${harness.url}/media/files/${org.orgId}/${mediaId}`;
    const seriesArt = await libraryUpload(mcp, 'psalms-series.png', await makeImage('png', 1400, 1400, { r: 90, g: 30, b: 120 }));
    const episodeBytes = await makeImage('jpeg', 1400, 1400, { r: 30, g: 140, b: 60 });
    const episodeArt = await libraryUpload(mcp, 'psalm-23.jpg', episodeBytes);
    expect(episodeArt).toMatchObject({ mimeType: 'image/jpeg', isPublic: true, url: libraryUrl(episodeArt.id) });
    const leaflet = await libraryUpload(mcp, 'psalms-leaflet.pdf', Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1'));
    const privateArt = await libraryUpload(mcp, 'psalms-draft.png', await makeImage('png', 600, 600), { isPublic: false });
    const foreignArt = await libraryUpload(otherMcp, 'their-art.png', await makeImage('png', 600, 600));
    const hubImage = await uploadOverMcp('hub-art.png', await makeImage('png', 600, 600));
    const audio = await uploadOverMcp('psalm-23.wav', makeWav(2));

    // A series in its own channel with Media Library artwork: the new channel takes it too.
    const { series, channel } = await call(mcp, 'mediahub_create_series', { title: 'Psalms for Summer', channel: 'Psalms Podcast', artworkMediaId: seriesArt.id });
    expect(series).toMatchObject({ artworkMediaId: seriesArt.id, artworkItemId: null, artworkUrl: libraryUrl(seriesArt.id) });
    expect(channel).toMatchObject({ name: 'Psalms Podcast', artworkMediaId: seriesArt.id, artworkItemId: null, artworkUrl: libraryUrl(seriesArt.id) });

    // An episode with no artwork of its own shows its series'; then its own is set from the Media Library.
    const { episode: draft } = await call(mcp, 'mediahub_create_episode', { seriesId: series.id, title: 'The Lord is my shepherd', date: dayFromToday(-1), audioItemId: audio.id });
    expect(draft).toMatchObject({ artworkMediaId: null, artworkItemId: null, artworkUrl: libraryUrl(seriesArt.id) });
    const { episode } = await call(mcp, 'mediahub_update_episode', { episodeId: draft.id, artworkMediaId: episodeArt.id });
    expect(episode).toMatchObject({ artworkMediaId: episodeArt.id, artworkItemId: null, artworkUrl: libraryUrl(episodeArt.id) });
    expect((await call(mcp, 'mediahub_get_episode', { episodeId: episode.id })).episode).toEqual(episode);

    // Refused with a clear error, changing nothing: another organisation's file answers exactly as a missing one.
    const missingId = randomUUID();
    const foreign = await refusal(mcp, 'mediahub_update_episode', { episodeId: episode.id, artworkMediaId: foreignArt.id });
    const missing = await refusal(mcp, 'mediahub_update_episode', { episodeId: episode.id, artworkMediaId: missingId });
    expect(missing).toMatchObject({ code: 'not_found', message: `Media Library file ${missingId} was not found`, issues: [{ path: 'artworkMediaId' }] });
    expect(foreign).toEqual({ ...missing, message: missing.message.replace(missingId, foreignArt.id) });
    // A Media Hub item's id is not a Media Library file.
    expect((await refusal(mcp, 'mediahub_update_episode', { episodeId: episode.id, artworkMediaId: hubImage.id })).code).toBe('not_found');
    const notImage = await refusal(mcp, 'mediahub_update_episode', { episodeId: episode.id, artworkMediaId: leaflet.id });
    expect(notImage).toMatchObject({ code: 'validation_failed', issues: [{ path: 'artworkMediaId', message: 'a application/pdf file, not an image' }] });
    expect(notImage.message).toContain('"psalms-leaflet.pdf" is application/pdf');
    const hidden = await refusal(mcp, 'mediahub_update_episode', { episodeId: episode.id, artworkMediaId: privateArt.id });
    expect(hidden).toMatchObject({ code: 'validation_failed', issues: [{ path: 'artworkMediaId', message: 'a private file' }] });
    expect(hidden.hint).toContain('isPublic');
    const both = await refusal(mcp, 'mediahub_update_episode', { episodeId: episode.id, artworkMediaId: episodeArt.id, artworkItemId: hubImage.id });
    expect(both).toMatchObject({ code: 'validation_failed', issues: [{ path: 'artworkItemId' }] });
    // Other fields in a refused call are not written either.
    expect((await refusal(mcp, 'mediahub_update_episode', { episodeId: episode.id, title: 'Changed', artworkMediaId: foreignArt.id })).code).toBe('not_found');
    expect((await call(mcp, 'mediahub_get_episode', { episodeId: episode.id })).episode).toEqual(episode);
    // Nor is an episode or a series (with its channel) made around refused artwork.
    expect((await refusal(mcp, 'mediahub_create_episode', { seriesId: series.id, title: 'Psalm 121', date: dayFromToday(-1), artworkMediaId: foreignArt.id })).code).toBe('not_found');
    expect((await refusal(mcp, 'mediahub_create_series', { title: 'Leaflets', channel: 'Leaflet Podcast', artworkMediaId: leaflet.id })).code).toBe('validation_failed');
    expect((await refusal(mcp, 'mediahub_get_feed_url', { channel: 'Leaflet Podcast' })).code).toBe('not_found');
    const listed = (await call(mcp, 'mediahub_list_series', {})).series;
    expect(listed.map((s: any) => s.title)).not.toContain('Leaflets');
    expect(listed.find((s: any) => s.id === series.id)).toMatchObject({ episodes: 1, artworkUrl: libraryUrl(seriesArt.id) });

    // Published (a person approves): the feed names both artworks by their public addresses.
    const gated = await refusal(mcp, 'mediahub_publish_episode', { episodeId: episode.id });
    expect(gated.code).toBe('approval_required');
    expect((await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId })).execution.result.episode.state).toBe('published');
    const { feedUrl } = await call(mcp, 'mediahub_get_feed_url', { channel: 'Psalms Podcast' });
    const readFeed = async () => new Parser().parseString(await (await fetch(feedUrl)).text());
    const feed = await readFeed();
    expect(feed.itunes?.image).toBe(libraryUrl(seriesArt.id));
    expect(feed.image?.url).toBe(libraryUrl(seriesArt.id));
    expect(feed.items).toHaveLength(1);
    expect(feed.items[0]!.itunes?.image).toBe(libraryUrl(episodeArt.id));

    // The address serves the image itself (redirected to the bucket).
    const fetched = await fetch(feed.items[0]!.itunes!.image!);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(episodeBytes)).toBe(true);

    // The public library shows it beside the episode.
    const library = await (await fetch(`${harness.url}/mediahub/library/${org.orgId}`)).text();
    const entry = library.slice(library.indexOf(`<li data-id="${episode.id}">`));
    expect(entry.slice(0, entry.indexOf('</li>'))).toContain(`<img src="${libraryUrl(episodeArt.id)}"`);

    // The file moved to the Media Library's trash stops showing at once: the series' artwork shows instead.
    await call(mcp, 'platform_delete_media_library_file', { mediaId: episodeArt.id });
    expect((await readFeed()).items[0]!.itunes?.image).toBe(libraryUrl(seriesArt.id));
    expect((await call(mcp, 'mediahub_get_episode', { episodeId: episode.id })).episode).toMatchObject({ artworkMediaId: episodeArt.id, artworkUrl: libraryUrl(seriesArt.id) });

    // The older way still works, one way at a time: a Media Hub image replaces the Media Library file, and back.
    const older = (await call(mcp, 'mediahub_update_episode', { episodeId: episode.id, artworkItemId: hubImage.id })).episode;
    expect(older).toMatchObject({ artworkMediaId: null, artworkItemId: hubImage.id, artworkUrl: `${harness.url}/mediahub/artwork/${org.orgId}/${hubImage.id}.png` });
    expect((await readFeed()).items[0]!.itunes?.image).toBe(older.artworkUrl);
    expect((await fetch(older.artworkUrl)).status).toBe(200);
    const cleared = (await call(mcp, 'mediahub_update_episode', { episodeId: episode.id, artworkMediaId: null })).episode;
    expect(cleared).toMatchObject({ artworkMediaId: null, artworkItemId: null, artworkUrl: libraryUrl(seriesArt.id) });
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
