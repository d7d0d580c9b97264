import sharp from 'sharp';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { makeImage } from '../../../test/helpers/media';
import { mcpCall } from '../../../test/helpers/mcp-calls';
import { mediaStorage } from '../../platform/api';
import { makeMp4, makeWav, putTo, until } from './fixtures';

/**
 * Media items through the HTTP bridge on the embedded store: begin → PUT to the presigned URL →
 * complete → the processing workflow probes real files (a WAV written here, an MP4 made by ffmpeg,
 * a PNG made by sharp), keeps a still for images and video and a waveform for audio; bytes that are
 * not what their name says fail processing; the plan's storage allowance holds; another
 * organisation's id is not found.
 */
describe('mediahub items', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  const saved = { ...process.env };

  beforeAll(async () => {
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'St Cecilia' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
    process.env = saved;
  });

  const upload = async (fileName: string, bytes: Buffer, key = org.apiKey) => {
    const begun = await harness.call(key, 'mediahub_begin_upload', { fileName, fileSize: bytes.length });
    const put = await putTo(begun, bytes);
    expect(put.status).toBe(200);
    const completed = await harness.call(key, 'mediahub_complete_upload', { itemId: begun.itemId });
    expect(completed.item.status).toBe('processing');
    return until(() => harness.call(key, 'mediahub_get_item', { itemId: begun.itemId }).then((r) => r.item), (item) => item.status !== 'processing');
  };

  it('probes a WAV written by code: duration, codec and a waveform that rises', async () => {
    const item = await upload('sunday-sermon.wav', makeWav(3));
    expect(item).toMatchObject({ kind: 'audio', status: 'ready', codec: 'pcm_s16le', title: 'sunday-sermon', thumbnailUrl: null, processingAttempts: 1 });
    expect(item.durationSeconds).toBeCloseTo(3, 1);
    expect(item.waveform.length).toBeGreaterThan(50);
    // The tone grows louder: the last tenth of the waveform is above the first.
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    expect(mean(item.waveform.slice(-10))).toBeGreaterThan(mean(item.waveform.slice(0, 10)) * 2);
    // The processing job's change is in the trail once, read over MCP: the system its actor, the processing workflow its source.
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const trail = (await mcpCall(mcp, 'audit_list_events', { targetId: item.id, actorKind: 'system' })).events;
      expect(trail).toEqual([expect.objectContaining({
        action: 'mediahub.item.process', tool: 'job:mediahub.process_item', workflowId: `mediahub-process-${item.id}`, outcome: 'success', target: { type: 'item', id: item.id },
      })]);
      const history = await mcpCall(mcp, 'audit_get_entity_history', { targetType: 'item', targetId: item.id });
      const processed = history.entries.find((entry: any) => entry.action === 'mediahub.item.process');
      expect(processed.changes).toEqual(expect.arrayContaining([{ field: 'status', before: 'processing', after: 'ready' }, { field: 'codec', after: 'pcm_s16le' }]));
      expect(await mcpCall(mcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
    } finally {
      await mcp.close();
    }
  });

  it('probes an MP4 made by ffmpeg: duration, dimensions, codec and a still', async () => {
    const item = await upload('service.mp4', await makeMp4(3, 320, 240));
    expect(item).toMatchObject({ kind: 'video', status: 'ready', width: 320, height: 240, codec: 'h264' });
    expect(item.durationSeconds).toBeGreaterThan(2.5);
    const still = await fetch(item.thumbnailUrl);
    expect(still.status).toBe(200);
    const meta = await sharp(Buffer.from(await still.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 320, height: 240 });
  });

  it('makes a still of an image no larger than 640 pixels', async () => {
    const item = await upload('series-art.png', await makeImage('png', 1600, 900));
    expect(item).toMatchObject({ kind: 'image', status: 'ready', width: 1600, height: 900, codec: 'png', durationSeconds: null });
    const still = await sharp(Buffer.from(await (await fetch(item.thumbnailUrl)).arrayBuffer())).metadata();
    expect(still).toMatchObject({ width: 640, height: 360 });
  });

  it('records an item\'s title and rights, and refuses changes once archived', async () => {
    const item = await upload('carols.wav', makeWav(1));
    const { item: updated } = await harness.call(org.apiKey, 'mediahub_update_item', {
      itemId: item.id, title: 'Carols by candlelight', ccliNumber: '123456', streamingLicence: 'CSPL-42', licence: 'Recorded with permission', captions: 'WEBVTT\n\n00:00.000 --> 00:01.000\nSilent night',
    });
    expect(updated).toMatchObject({ title: 'Carols by candlelight', ccliNumber: '123456', streamingLicence: 'CSPL-42', licence: 'Recorded with permission', hasCaptions: true });
    const bad = await harness.invoke(org.apiKey, 'mediahub_update_item', { itemId: item.id, ccliNumber: 'CCLI-1' });
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'ccliNumber' }] });
    await harness.call(org.apiKey, 'mediahub_archive_item', { itemId: item.id });
    const late = await harness.invoke(org.apiKey, 'mediahub_update_item', { itemId: item.id, title: 'Too late' });
    expect(late.body.error).toMatchObject({ code: 'conflict', details: { reason: 'item_archived' } });
  });

  it('removes an archived item\'s stored objects after the retention period, once', async () => {
    const item = await upload('old-service.mp4', await makeMp4(1, 160, 120));
    const keysOf = async () => (await harness.pool.query('SELECT upload_key, storage_key, thumbnail_key, objects_removed_at FROM mediahub_items WHERE id = $1', [item.id])).rows[0];
    const { storage_key: original, thumbnail_key: still } = await keysOf();
    const store = mediaStorage();
    expect(await store.size(original)).toBeGreaterThan(0);
    expect(await store.size(still)).toBeGreaterThan(0);
    const kept = await upload('kept.wav', makeWav(1));
    await harness.call(org.apiKey, 'mediahub_archive_item', { itemId: item.id });
    // Within the retention period (30 days by default) nothing goes.
    expect(await harness.runJob('mediahub.remove_archived_objects', { now: new Date(Date.now() + 29 * 86_400_000) })).toMatchObject({ items: 0 });
    expect(await store.size(original)).toBeGreaterThan(0);
    const removed = await harness.runJob('mediahub.remove_archived_objects', { now: new Date(Date.now() + 31 * 86_400_000) });
    expect(removed.items).toBeGreaterThanOrEqual(1);
    expect(await store.size(original)).toBeNull();
    expect(await store.size(still)).toBeNull();
    expect((await keysOf()).objects_removed_at).not.toBeNull();
    // The item stays listed as archived, and an item still in use keeps its file.
    expect((await harness.call(org.apiKey, 'mediahub_get_item', { itemId: item.id })).item).toMatchObject({ status: 'archived', thumbnailUrl: null });
    const keptKey = (await harness.pool.query('SELECT storage_key FROM mediahub_items WHERE id = $1', [kept.id])).rows[0].storage_key;
    expect(await store.size(keptKey)).toBeGreaterThan(0);
    expect(await harness.runJob('mediahub.remove_archived_objects', { now: new Date(Date.now() + 31 * 86_400_000) })).toMatchObject({ items: 0, objects: 0 });
    // The removal is in the trail once (the second run removed nothing and recorded nothing).
    const removals = await harness.pool.query(`SELECT action, actor_kind, tool FROM audit_events WHERE org_id = $1 AND target_id = $2 AND actor_kind = 'system' AND action = 'mediahub.item.remove_objects'`, [org.orgId, item.id]);
    expect(removals.rows).toEqual([{ action: 'mediahub.item.remove_objects', actor_kind: 'system', tool: 'job:mediahub.remove_archived_objects' }]);
  });

  it('fails an upload whose bytes are not what its name says, with the reason', async () => {
    const item = await upload('fake.mp3', Buffer.from('this is not audio at all, just some text pretending'));
    expect(item).toMatchObject({ status: 'failed', failure: 'The file is not a readable audio file' });
    const failed = await harness.pool.query(`SELECT action, outcome, changes FROM audit_events WHERE org_id = $1 AND target_id = $2 AND actor_kind = 'system'`, [org.orgId, item.id]);
    expect(failed.rows).toEqual([{ action: 'mediahub.item.process', outcome: 'failed', changes: { fields: { status: { before: 'processing', after: 'failed' }, failure: { after: 'The file is not a readable audio file' } } } }]);
    // Failed items can be archived; archived ones leave the list.
    expect((await harness.call(org.apiKey, 'mediahub_archive_item', { itemId: item.id })).item.status).toBe('archived');
    const listed = await harness.call(org.apiKey, 'mediahub_list_items', {});
    expect(listed.items.map((i: any) => i.id)).not.toContain(item.id);
    expect((await harness.call(org.apiKey, 'mediahub_list_items', { status: 'archived' })).items.map((i: any) => i.id)).toContain(item.id);
  });

  it('refuses bad requests clearly and changes nothing', async () => {
    const before = (await harness.pool.query('SELECT count(*)::int AS n FROM mediahub_items WHERE org_id = $1', [org.orgId])).rows[0].n;
    const unsupported = await harness.invoke(org.apiKey, 'mediahub_begin_upload', { fileName: 'virus.exe', fileSize: 10 });
    expect(unsupported.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'fileName' }] });
    const bytes = { fileName: 'sermon.mp3', fileSize: 10, data: 'AAAA' };
    expect((await harness.invoke(org.apiKey, 'mediahub_begin_upload', bytes)).body.error?.code).toBe('validation_failed');
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM mediahub_items WHERE org_id = $1', [org.orgId])).rows[0].n).toBe(before);

    // Completing before the PUT is refused; the item stays uploading.
    const begun = await harness.call(org.apiKey, 'mediahub_begin_upload', { fileName: 'later.wav', fileSize: 100 });
    const early = await harness.invoke(org.apiKey, 'mediahub_complete_upload', { itemId: begun.itemId });
    expect(early.body.error).toMatchObject({ code: 'conflict', details: { reason: 'upload_missing' } });
    // A PUT of another size is refused by the signed URL.
    expect((await putTo(begun, Buffer.alloc(50))).status).toBe(400);
    expect((await harness.call(org.apiKey, 'mediahub_get_item', { itemId: begun.itemId })).item.status).toBe('uploading');
  });

  it('holds the storage allowance in MiB', async () => {
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'mediahub_storage_mb', 2)", [other.orgId]);
    await harness.call(other.apiKey, 'mediahub_begin_upload', { fileName: 'one.wav', fileSize: 1024 * 1024 });
    const refused = await harness.invoke(other.apiKey, 'mediahub_begin_upload', { fileName: 'two.wav', fileSize: 2 * 1024 * 1024 });
    expect(refused.body.error).toMatchObject({ code: 'allowance_exceeded', details: { feature: 'mediahub_storage_mb', limit: 2, used: 1 } });
  });

  it('holds the storage allowance under parallel uploads: exactly what fits is begun', async () => {
    const tight = await harness.createOrg({ name: 'Tight Chapel' });
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'mediahub_storage_mb', 3)", [tight.orgId]);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => harness.invoke(tight.apiKey, 'mediahub_begin_upload', { fileName: `part-${i}.wav`, fileSize: 1024 * 1024 })));
    expect(answers.filter((a) => a.body.ok)).toHaveLength(3);
    for (const refused of answers.filter((a) => !a.body.ok)) expect(refused.body.error).toMatchObject({ code: 'allowance_exceeded', details: { feature: 'mediahub_storage_mb', limit: 3 } });
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM mediahub_items WHERE org_id = $1', [tight.orgId])).rows[0].n).toBe(3);
  });

  it('holds the media items allowance: over it, begin_upload is refused with the billing error and nothing is made', async () => {
    const small = await harness.createOrg({ name: 'Small Chapel' });
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'mediahub_items', 2)", [small.orgId]);
    const items = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM mediahub_items WHERE org_id = $1', [small.orgId])).rows[0].n;
    await harness.call(small.apiKey, 'mediahub_begin_upload', { fileName: 'one.wav', fileSize: 1024 });
    await harness.call(small.apiKey, 'mediahub_begin_upload', { fileName: 'two.wav', fileSize: 1024 });
    const refused = await harness.invoke(small.apiKey, 'mediahub_begin_upload', { fileName: 'three.wav', fileSize: 1024 });
    expect(refused.body.error).toMatchObject({ code: 'allowance_exceeded', details: { feature: 'mediahub_items', limit: 2, used: 2, requested: 1 } });
    expect(refused.body.error?.hint).toMatch(/platform_usage/);
    expect(await items()).toBe(2);
    // Under concurrency exactly what fits is begun: one place freed by an upload that ran out, four asking for it.
    await harness.pool.query("UPDATE mediahub_items SET upload_expires_at = now() - interval '1 minute' WHERE org_id = $1 AND file_name = 'one.wav'", [small.orgId]);
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => harness.invoke(small.apiKey, 'mediahub_begin_upload', { fileName: `race-${i}.wav`, fileSize: 1024 })));
    expect(answers.filter((a) => a.body.ok)).toHaveLength(1);
    for (const lost of answers.filter((a) => !a.body.ok)) expect(lost.body.error).toMatchObject({ code: 'allowance_exceeded', details: { feature: 'mediahub_items' } });
    expect(await items()).toBe(3);
  });

  it("treats another organisation's item as missing", async () => {
    const item = await upload('mine.wav', makeWav(1));
    for (const [tool, args] of [['mediahub_get_item', {}], ['mediahub_update_item', { title: 'Theirs' }], ['mediahub_archive_item', {}], ['mediahub_complete_upload', {}]] as const) {
      const answer = await harness.invoke(other.apiKey, tool, { itemId: item.id, ...args });
      expect(answer.body.error).toMatchObject({ code: 'not_found', message: `Media item ${item.id} was not found` });
    }
    expect((await harness.call(org.apiKey, 'mediahub_get_item', { itemId: item.id })).item.title).toBe('mine');
  });
});
