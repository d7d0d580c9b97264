import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { makeImage, putUpload, uploadFile } from '../../../test/helpers/media';
import { signLocalUrl } from '../media/storage';

/**
 * The Media Library on the embedded store: uploads go begin → PUT → complete with real images,
 * bytes are checked by their content, thumbnails are made, files are served by stable public URLs
 * or expiring signed ones, and the trash, folders, tags and quota behave as their tools say.
 */
describe('media library (embedded store)', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let dir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-media-'));
    process.env.MEDIA_STORAGE = 'local';
    process.env.MEDIA_LOCAL_DIR = dir;
    delete process.env.MEDIA_S3_BUCKET;
    delete process.env.MEDIA_AI_API_URL;
    // Its own stack: media storage and the public URL are set in this suite's environment.
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'Media Chapel' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    process.env = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads a real PNG over MCP: begin, PUT, complete; dimensions, thumbnails and the public URL are right', async () => {
    const png = await makeImage('png', 640, 480);
    const begun = await mcpCall(mcp, 'platform_begin_media_library_upload', { fileName: 'welcome-banner.png', fileSize: png.length });
    expect(begun).toMatchObject({ method: 'PUT', uploadHeaders: { 'Content-Type': 'image/png' } });
    expect(begun.uploadUrl.startsWith(`${harness.url}/media/o/uploads/${org.orgId}/${begun.mediaId}/`)).toBe(true);
    const pending = await mcpCall(mcp, 'platform_get_media_library_file', { mediaId: begun.mediaId });
    expect(pending.file).toMatchObject({ status: 'pending', url: null, sizeBytes: png.length });

    expect((await putUpload(begun, png)).status).toBe(200);
    const done = await mcpCall(mcp, 'platform_complete_media_library_upload', { mediaId: begun.mediaId, sessionId: begun.sessionId, altText: 'Welcome banner', displayName: 'Banner' });
    expect(done.file).toMatchObject({ status: 'ready', mimeType: 'image/png', width: 640, height: 480, isPublic: true, altText: 'Welcome banner', displayName: 'Banner', sizeBytes: png.length });
    expect(done.emailImageUrl).toBe(done.file.url);
    expect(done.file.url).toBe(`${harness.url}/media/files/${org.orgId}/${begun.mediaId}`);
    expect(done.file.thumbnails.map((t: any) => [t.variant, t.width, t.height])).toEqual([['small', 200, 150], ['medium', 640, 480]]);

    const served = await fetch(done.file.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    const small = Buffer.from(await (await fetch(done.file.thumbnails[0].url)).arrayBuffer());
    expect(await sharp(small).metadata()).toMatchObject({ format: 'webp', width: 200, height: 150 });

    // Completing again with the same session answers the same file; the upload object is gone, so the URL cannot replace it.
    const again = await mcpCall(mcp, 'platform_complete_media_library_upload', { mediaId: begun.mediaId, sessionId: begun.sessionId });
    expect(again.file.id).toBe(begun.mediaId);
    const uploads = fs.readdirSync(path.join(dir, 'uploads', org.orgId, begun.mediaId), { recursive: true }).filter((entry) => String(entry).endsWith('.png'));
    expect(uploads).toEqual([]);
  });

  it('uploads a private JPEG: large thumbnails shrink, no public URL, a signed URL that serves it and cannot be forged or outlive its expiry', async () => {
    const jpeg = await makeImage('jpeg', 1600, 1200, { r: 200, g: 30, b: 30 });
    const done = await uploadFile(harness, org.apiKey, 'rota.JPG', jpeg, { isPublic: false });
    expect(done.file).toMatchObject({ mimeType: 'image/jpeg', width: 1600, height: 1200, isPublic: false, url: null });
    expect(done.emailImageUrl).toBeNull();
    expect(done.file.thumbnails.map((t: any) => [t.variant, t.width, t.height, t.url])).toEqual([['small', 200, 150, null], ['medium', 800, 600, null]]);
    expect((await fetch(`${harness.url}/media/files/${org.orgId}/${done.file.id}`)).status).toBe(404);

    const serve = await harness.call(org.apiKey, 'platform_get_media_library_serve_url', { mediaId: done.file.id, expiresInSeconds: 120 });
    expect(serve).toMatchObject({ signed: true, mimeType: 'image/jpeg' });
    expect(Date.parse(serve.expiresAt) - Date.now()).toBeGreaterThan(100_000);
    const got = await fetch(serve.url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(jpeg)).toBe(true);
    const medium = await harness.call(org.apiKey, 'platform_get_media_library_serve_url', { mediaId: done.file.id, variant: 'medium' });
    expect(await sharp(Buffer.from(await (await fetch(medium.url)).arrayBuffer())).metadata()).toMatchObject({ width: 800, height: 600 });

    // Forged: a changed signature, a pushed-out expiry, or the signature moved onto another key.
    const url = new URL(serve.url);
    const tampered = new URL(url); tampered.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}AA`);
    expect((await fetch(tampered)).status).toBe(403);
    const extended = new URL(url); extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect(await (await fetch(extended)).json()).toMatchObject({ error: { code: 'forbidden' } });
    const otherKey = new URL(medium.url); otherKey.search = url.search;
    expect((await fetch(otherKey)).status).toBe(403);
    // Expired: the same key signed with the real secret but an expiry in the past.
    const key = url.pathname.replace('/media/o/', '');
    const expired = signLocalUrl({ method: 'GET', key, expires: Math.floor(Date.now() / 1000) - 1 });
    expect(await (await fetch(expired)).json()).toMatchObject({ error: { code: 'expired' } });
    // A GET signature does not open the PUT door.
    expect((await fetch(serve.url, { method: 'PUT', body: 'x' })).status).toBe(404);
  });

  it('refuses a file lying about its type, and one whose bytes do not match the declared size; nothing is added', async () => {
    const before = (await harness.call(org.apiKey, 'platform_get_media_library_quota', {})).itemsUsed;
    const text = Buffer.from('<?php system($_GET["c"]); ?> this is not a picture at all');
    const begun = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'holiday.png', fileSize: text.length });
    expect((await putUpload(begun, text)).status).toBe(200);
    const refused = await harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: begun.mediaId, sessionId: begun.sessionId });
    expect(refused.body.error).toMatchObject({ code: 'validation_failed' });
    expect(refused.body.error!.message).toMatch(/not an image or PDF/);

    // A JPEG named .png: the bytes decide, and they disagree with the name.
    const jpeg = await makeImage('jpeg', 50, 50);
    const named = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'logo.png', fileSize: jpeg.length });
    await putUpload(named, jpeg);
    const mismatch = await harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: named.mediaId, sessionId: named.sessionId });
    expect(mismatch.body.error).toMatchObject({ code: 'validation_failed' });
    expect(mismatch.body.error!.message).toMatch(/named as image\/png but its contents are image\/jpeg/);

    // A PNG header on garbage: starts right, is not an image.
    const fake = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
    const truncated = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'fake.png', fileSize: fake.length });
    await putUpload(truncated, fake);
    expect((await harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: truncated.mediaId, sessionId: truncated.sessionId })).body.error)
      .toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/not a readable image/) });

    // The PUT must carry exactly the declared size: the embedded store refuses more or fewer bytes.
    const png = await makeImage('png', 20, 20);
    const sized = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'dot.png', fileSize: png.length + 10 });
    expect((await putUpload(sized, png)).status).toBe(400);
    expect((await harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: sized.mediaId, sessionId: sized.sessionId })).body.error)
      .toMatchObject({ code: 'conflict', message: expect.stringMatching(/No bytes have arrived/) });
    // The wrong session is refused; a refused upload can take the right bytes at the same URL while its session lasts.
    expect((await harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: begun.mediaId, sessionId: 'mus_not-the-session-id' })).body.error)
      .toMatchObject({ code: 'validation_failed' });
    const rightBytes = await makeImage('png', 30, 30);
    const retry = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'second.png', fileSize: rightBytes.length });
    expect((await putUpload(retry, rightBytes)).status).toBe(200);
    expect((await putUpload(retry, rightBytes)).status).toBe(409);

    const listed = await harness.call(org.apiKey, 'platform_list_media_library_files', { limit: 100 });
    expect(listed.files.map((f: any) => f.id)).not.toContain(begun.mediaId);
    expect(listed.files.map((f: any) => f.id)).not.toContain(named.mediaId);
    // Pending uploads hold their place in the quota until they complete or expire.
    expect((await harness.call(org.apiKey, 'platform_get_media_library_quota', {})).itemsUsed).toBe(before + 5);
  });

  it('refuses over-size files and unknown types up front, before any URL is handed out', async () => {
    const big = await harness.invoke(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'huge.png', fileSize: 26 * 1024 * 1024 });
    expect(big.body.error).toMatchObject({ code: 'payload_too_large' });
    // The limit in the user's units, not a byte count.
    expect(big.body.error?.message).toContain('(26 MB) is larger than the library takes (25 MB)');
    const exe = await harness.invoke(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'setup.exe', fileSize: 100 });
    expect(exe.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'fileName' }] });
    const svg = await harness.invoke(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'logo.svg', fileSize: 100 });
    expect(svg.body.error).toMatchObject({ code: 'validation_failed' });
  });

  it('takes small inline content, and refuses inline content over 64 KB decoded', async () => {
    const png = await makeImage('png', 64, 32);
    const done = await harness.call(org.apiKey, 'platform_upload_media_library_file', { base64Content: png.toString('base64'), altText: 'Tiny' });
    expect(done.file).toMatchObject({ name: 'upload.png', mimeType: 'image/png', width: 64, height: 32, source: 'inline', altText: 'Tiny' });
    expect(Buffer.from(await (await fetch(done.emailImageUrl)).arrayBuffer()).equals(png)).toBe(true);
    const tooBig = Buffer.alloc(64 * 1024 + 1, 1);
    const refused = await harness.invoke(org.apiKey, 'platform_upload_media_library_file', { base64Content: tooBig.toString('base64') });
    expect(refused.body.error).toMatchObject({ code: 'payload_too_large' });
    expect(refused.body.error?.message).toContain('at most 64 KB of file are taken inline');
    expect(refused.body.error?.hint).toContain('platform_begin_media_library_upload');
    // Far over: refused by the argument's bound, in the same words (the file's size, not base64 characters), naming the tool to use.
    const farTooBig = await harness.invoke(org.apiKey, 'platform_upload_media_library_file', { base64Content: Buffer.alloc(100 * 1024, 1).toString('base64') });
    const answer = JSON.stringify(farTooBig.body.error);
    expect(farTooBig.body.error?.code).toBe('validation_failed');
    expect(answer).toContain('at most 64 KB of file are taken inline');
    expect(answer).toContain('platform_begin_media_library_upload');
    expect(answer).not.toMatch(/87,?38\d/);
    const both = await harness.invoke(org.apiKey, 'platform_upload_media_library_file', { base64Content: 'aGk=', sourceUrl: 'https://example.org/a.png' });
    expect(both.body.error).toMatchObject({ code: 'validation_failed' });
  });

  it('moves files to the trash and back: the public URL stops and starts serving, lists follow', async () => {
    const done = await uploadFile(harness, org.apiKey, 'easter.png', await makeImage('png', 100, 100));
    const id = done.file.id;
    const deleted = await harness.call(org.apiKey, 'platform_delete_media_library_file', { mediaId: id });
    expect(deleted.file).toMatchObject({ inTrash: true, url: null });
    expect((await fetch(done.file.url)).status).toBe(404);
    expect((await harness.call(org.apiKey, 'platform_list_media_library_files', { limit: 100 })).files.map((f: any) => f.id)).not.toContain(id);
    expect((await harness.call(org.apiKey, 'platform_list_media_library_files', { inTrash: true })).files.map((f: any) => f.id)).toEqual([id]);
    expect((await harness.invoke(org.apiKey, 'platform_get_media_library_serve_url', { mediaId: id })).body.error).toMatchObject({ code: 'conflict' });
    expect((await harness.invoke(org.apiKey, 'platform_update_media_library_file', { mediaId: id, altText: 'x' })).body.error).toMatchObject({ code: 'conflict' });

    const restored = await harness.call(org.apiKey, 'platform_restore_media_library_file', { mediaId: id });
    expect(restored.file).toMatchObject({ inTrash: false, url: done.file.url });
    expect((await fetch(done.file.url)).status).toBe(200);
    expect((await harness.invoke(org.apiKey, 'platform_restore_media_library_file', { mediaId: id })).body.error).toMatchObject({ code: 'conflict' });
    expect((await harness.call(org.apiKey, 'platform_list_media_library_files', { inTrash: true })).files).toEqual([]);
  });

  it('organises with folders and tags, searches, updates and acts in bulk', async () => {
    const events = (await harness.call(org.apiKey, 'platform_create_media_folder', { name: 'Events' })).folder;
    const easter = (await harness.call(org.apiKey, 'platform_create_media_folder', { name: 'Easter', parentId: events.id })).folder;
    expect(easter).toMatchObject({ parentId: events.id, fileCount: 0 });
    expect((await harness.invoke(org.apiKey, 'platform_create_media_folder', { name: 'easter', parentId: events.id })).body.error).toMatchObject({ code: 'conflict' });
    expect((await harness.invoke(org.apiKey, 'platform_update_media_folder', { folderId: events.id, parentId: easter.id })).body.error)
      .toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/inside itself/) });

    const a = (await harness.call(org.apiKey, 'platform_upload_media_library_file', { base64Content: (await makeImage('png', 10, 10)).toString('base64'), fileName: 'sunrise-service.png', folderId: easter.id })).file;
    const b = (await harness.call(org.apiKey, 'platform_upload_media_library_file', { base64Content: (await makeImage('jpeg', 10, 10)).toString('base64'), fileName: 'egg-hunt.jpg' })).file;
    expect(a).toMatchObject({ folderId: easter.id, folderName: 'Easter' });

    const updated = await harness.call(org.apiKey, 'platform_update_media_library_file', { mediaId: b.id, altText: 'Children hunting eggs in the churchyard', tags: ['Kids', 'Outdoor'], displayName: 'Egg hunt' });
    expect(updated.file).toMatchObject({ altText: 'Children hunting eggs in the churchyard', tags: ['Kids', 'Outdoor'], displayName: 'Egg hunt' });
    expect((await harness.invoke(org.apiKey, 'platform_update_media_library_file', { mediaId: b.id, name: 'egg-hunt.png' })).body.error).toMatchObject({ code: 'validation_failed' });

    const bulkMove = await harness.call(org.apiKey, 'platform_bulk_media_library_action', { action: 'move', mediaIds: [a.id, b.id], folderId: events.id });
    expect(bulkMove).toMatchObject({ changed: 2 });
    const bulkTag = await harness.call(org.apiKey, 'platform_bulk_media_library_action', { action: 'tag', mediaIds: [a.id, b.id], tags: ['easter 2026', 'kids'] });
    expect(bulkTag).toMatchObject({ changed: 2 });
    expect((await harness.call(org.apiKey, 'platform_list_media_library_files', { tag: 'KIDS' })).files.map((f: any) => f.id).sort()).toEqual([a.id, b.id].sort());
    expect((await harness.call(org.apiKey, 'platform_list_media_library_files', { folderId: events.id })).files).toHaveLength(2);
    const tags = (await harness.call(org.apiKey, 'platform_list_media_tags', {})).tags;
    expect(tags.map((t: any) => [t.name, t.fileCount])).toEqual([['easter 2026', 2], ['Kids', 2], ['Outdoor', 1]]);
    expect((await harness.invoke(org.apiKey, 'platform_create_media_tag', { name: 'kids' })).body.error).toMatchObject({ code: 'conflict' });

    expect((await harness.call(org.apiKey, 'platform_search_media_library', { query: 'churchyard eggs' })).files.map((f: any) => f.id)).toEqual([b.id]);
    expect((await harness.call(org.apiKey, 'platform_search_media_library', { query: 'sunrise' })).files.map((f: any) => f.id)).toEqual([a.id]);
    expect((await harness.call(org.apiKey, 'platform_search_media_library', { query: '100%' })).files).toEqual([]);

    // All or nothing: one unknown id changes nothing.
    const missing = await harness.invoke(org.apiKey, 'platform_bulk_media_library_action', { action: 'delete', mediaIds: [a.id, '00000000-0000-4000-8000-000000000000'] });
    expect(missing.body.error).toMatchObject({ code: 'not_found' });
    expect((await harness.call(org.apiKey, 'platform_get_media_library_file', { mediaId: a.id })).file.inTrash).toBe(false);
    const tooMany = await harness.invoke(org.apiKey, 'platform_bulk_media_library_action', { action: 'delete', mediaIds: Array.from({ length: 101 }, () => a.id) });
    expect(tooMany.body.error).toMatchObject({ code: 'validation_failed' });

    const folder = await harness.call(org.apiKey, 'platform_get_media_folder', { folderId: easter.id });
    expect(folder.path.map((p: any) => p.name)).toEqual(['Events', 'Easter']);
    expect((await harness.invoke(org.apiKey, 'platform_delete_media_folder', { folderId: events.id })).body.error).toMatchObject({ code: 'conflict' });
    await harness.call(org.apiKey, 'platform_delete_media_folder', { folderId: easter.id });
    const removed = await harness.call(org.apiKey, 'platform_delete_media_folder', { folderId: events.id });
    expect(removed).toMatchObject({ filesMovedOut: 2 });
    expect((await harness.call(org.apiKey, 'platform_get_media_library_file', { mediaId: a.id })).file.folderId).toBeNull();

    const kids = tags.find((t: any) => t.name === 'Kids');
    expect(await harness.call(org.apiKey, 'platform_delete_media_tag', { tagId: kids.id })).toMatchObject({ filesUntagged: 2 });
    expect((await harness.call(org.apiKey, 'platform_get_media_library_file', { mediaId: b.id })).file.tags).toEqual(['easter 2026', 'Outdoor']);

    const bulkDelete = await harness.call(org.apiKey, 'platform_bulk_media_library_action', { action: 'delete', mediaIds: [a.id, b.id] });
    expect(bulkDelete).toMatchObject({ changed: 2 });
    expect((await harness.call(org.apiKey, 'platform_list_media_library_files', { inTrash: true })).files.map((f: any) => f.id).sort()).toEqual([a.id, b.id].sort());
    await harness.call(org.apiKey, 'platform_bulk_media_library_action', { action: 'restore', mediaIds: [a.id, b.id] });
  });

  it('says when a list of tags or folders is cut at its bound instead of dropping the rest silently', async () => {
    const many = await harness.createOrg({ name: 'Many Tags Chapel' });
    expect(await harness.call(many.apiKey, 'platform_list_media_tags', {})).toEqual({ tags: [], truncated: false });
    await harness.pool.query(`INSERT INTO media_tags (id, org_id, name) SELECT gen_random_uuid(), $1, 'tag ' || lpad(n::text, 4, '0') FROM generate_series(1, 1001) n`, [many.orgId]);
    await harness.pool.query(`INSERT INTO media_folders (id, org_id, name) SELECT gen_random_uuid(), $1, 'folder ' || lpad(n::text, 4, '0') FROM generate_series(1, 1001) n`, [many.orgId]);
    const tags = await harness.call(many.apiKey, 'platform_list_media_tags', {});
    expect([tags.tags.length, tags.truncated, tags.tags[999].name]).toEqual([1000, true, 'tag 1000']);
    const folders = await harness.call(many.apiKey, 'platform_list_media_folders', {});
    expect([folders.folders.length, folders.truncated, folders.folders[0].name]).toEqual([1000, true, 'folder 0001']);
  });

  it('reprocesses a file whose thumbnails were lost', async () => {
    const done = await uploadFile(harness, org.apiKey, 'poster.webp', await makeImage('webp', 900, 300));
    expect(done.file.thumbnails.map((t: any) => [t.width, t.height])).toEqual([[200, 67], [800, 267]]);
    const { rows } = await harness.pool.query('SELECT thumbnails FROM media_files WHERE id = $1', [done.file.id]);
    for (const thumbnail of rows[0].thumbnails) fs.rmSync(path.join(dir, ...thumbnail.key.split('/')));
    expect((await fetch(done.file.thumbnails[0].url)).status).toBe(404);
    const again = await harness.call(org.apiKey, 'platform_reprocess_media_library_file', { mediaId: done.file.id });
    expect(again.file).toMatchObject({ width: 900, height: 300, mimeType: 'image/webp' });
    expect(await sharp(Buffer.from(await (await fetch(again.file.thumbnails[1].url)).arrayBuffer())).metadata()).toMatchObject({ width: 800, height: 267 });
  });

  it('enforces the media item allowance under parallel uploads: never more than the plan allows', async () => {
    const small = await harness.createOrg({ name: 'Small Chapel' });
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'media_items', 3)", [small.orgId]);
    const png = await makeImage('png', 8, 8);
    const attempts = await Promise.all(Array.from({ length: 6 }, (_, i) => harness.invoke(small.apiKey, 'platform_begin_media_library_upload', { fileName: `p${i}.png`, fileSize: png.length })));
    const granted = attempts.filter((a) => a.body.ok);
    expect(granted).toHaveLength(3);
    for (const refused of attempts.filter((a) => !a.body.ok)) expect(refused.body.error).toMatchObject({ code: 'allowance_exceeded', details: { feature: 'media_items', limit: 3 } });
    // One-shot uploads share the same allowance, also in parallel.
    const inline = await Promise.all(Array.from({ length: 3 }, () => harness.invoke(small.apiKey, 'platform_upload_media_library_file', { base64Content: png.toString('base64') })));
    expect(inline.every((a) => a.body.error?.code === 'allowance_exceeded')).toBe(true);
    const quota = await harness.call(small.apiKey, 'platform_get_media_library_quota', {});
    expect(quota).toMatchObject({ itemsLimit: 3, itemsUsed: 3, itemsRemaining: 0, pendingUploads: 3, planCode: 'starter' });
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM media_files WHERE org_id = $1', [small.orgId]);
    expect(rows[0].n).toBe(3);
  });

  it('parallel one-shot uploads past the allowance: the refused ones leave no row and no stored object', async () => {
    const tight = await harness.createOrg({ name: 'Tight Chapel' });
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'media_items', 2)", [tight.orgId]);
    const png = await makeImage('png', 9, 9);
    const answers = await Promise.all(Array.from({ length: 5 }, () => harness.invoke(tight.apiKey, 'platform_upload_media_library_file', { base64Content: png.toString('base64') })));
    expect(answers.filter((a) => a.body.ok)).toHaveLength(2);
    for (const refused of answers.filter((a) => !a.body.ok)) expect(refused.body.error).toMatchObject({ code: 'allowance_exceeded' });
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM media_files WHERE org_id = $1', [tight.orgId]);
    expect(rows[0].n).toBe(2);
    const originals = fs.readdirSync(path.join(dir, 'media', tight.orgId), { recursive: true }).map(String).filter((entry) => entry.endsWith('original.png'));
    expect(originals).toHaveLength(2);
  });

  it('enforces the storage quota in bytes: a file that does not fit is refused before upload', async () => {
    const full = await harness.createOrg({ name: 'Full Chapel' });
    const quota = await harness.call(full.apiKey, 'platform_get_media_library_quota', {});
    expect(quota).toMatchObject({ bytesLimit: 1024 ** 3, bytesUsed: 0, itemsUsed: 0, maxFileBytes: 25 * 1024 * 1024 });
    // Fill the plan's storage to within 1 MB with one (seeded) large file.
    await harness.pool.query(`INSERT INTO media_files (id, org_id, status, source, name, mime_type, size_bytes, storage_key)
      VALUES (gen_random_uuid(), $1, 'ready', 'upload', 'archive.pdf', 'application/pdf', $2, NULL)`, [full.orgId, 1024 ** 3 - 1024 * 1024]);
    const refused = await harness.invoke(full.apiKey, 'platform_begin_media_library_upload', { fileName: 'photo.jpg', fileSize: 2 * 1024 * 1024 });
    expect(refused.body.error).toMatchObject({ code: 'allowance_exceeded', details: { feature: 'media_storage_bytes' } });
    const fits = await harness.invoke(full.apiKey, 'platform_begin_media_library_upload', { fileName: 'photo.jpg', fileSize: 512 * 1024 });
    expect(fits.body.ok).toBe(true);
    expect((await harness.call(full.apiKey, 'platform_get_media_library_quota', {})).bytesRemaining).toBe(512 * 1024);
  });

  it('completes one upload once however many completions race, and an expired session is refused and stops holding quota', async () => {
    const png = await makeImage('png', 33, 44);
    const begun = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'race.png', fileSize: png.length });
    await putUpload(begun, png);
    const completions = await Promise.all(Array.from({ length: 3 }, () => harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: begun.mediaId, sessionId: begun.sessionId })));
    expect(completions.map((c) => [c.body.ok, c.body.result?.file.id, c.body.result?.file.width])).toEqual(Array.from({ length: 3 }, () => [true, begun.mediaId, 33]));
    const { rows } = await harness.pool.query("SELECT status, storage_key FROM media_files WHERE id = $1", [begun.mediaId]);
    expect(rows).toEqual([{ status: 'ready', storage_key: expect.stringMatching(/original\.png$/) }]);
    // Only the winner's objects remain: the losers' copies are removed.
    const stored = fs.readdirSync(path.join(dir, 'media', org.orgId, begun.mediaId), { recursive: true }).map(String).filter((entry) => /\.(png|webp)$/.test(entry));
    expect(stored.map((entry) => path.basename(entry)).sort()).toEqual(['medium.webp', 'original.png', 'small.webp']);

    const before = await harness.call(org.apiKey, 'platform_get_media_library_quota', {});
    const late = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'late.png', fileSize: png.length });
    expect((await harness.call(org.apiKey, 'platform_get_media_library_quota', {})).itemsUsed).toBe(before.itemsUsed + 1);
    await putUpload(late, png);
    await harness.pool.query("UPDATE media_files SET upload_expires_at = now() - interval '1 minute' WHERE id = $1", [late.mediaId]);
    expect((await harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: late.mediaId, sessionId: late.sessionId })).body.error)
      .toMatchObject({ code: 'conflict', message: expect.stringMatching(/expired/) });
    expect((await harness.call(org.apiKey, 'platform_get_media_library_quota', {})).itemsUsed).toBe(before.itemsUsed);
  });

  it('reports media items in platform_usage as a standing count of the library', async () => {
    const quota = await harness.call(org.apiKey, 'platform_get_media_library_quota', {});
    const usage = await harness.call(org.apiKey, 'platform_usage', {});
    expect(usage.features.find((f: any) => f.feature === 'media_items')).toMatchObject({ used: quota.itemsUsed, limit: 500, period: 'standing' });
  });

  it('daily maintenance removes abandoned uploads and files long in the trash, rows and objects, and nothing recent', async () => {
    const png = await makeImage('png', 16, 16);
    const old = (await harness.call(org.apiKey, 'platform_upload_media_library_file', { base64Content: png.toString('base64'), fileName: 'old-trash.png' })).file;
    const recent = (await harness.call(org.apiKey, 'platform_upload_media_library_file', { base64Content: png.toString('base64'), fileName: 'recent-trash.png' })).file;
    await harness.call(org.apiKey, 'platform_bulk_media_library_action', { action: 'delete', mediaIds: [old.id, recent.id] });
    await harness.pool.query("UPDATE media_files SET deleted_at = now() - interval '31 days' WHERE id = $1", [old.id]);
    const abandoned = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'abandoned.png', fileSize: png.length });
    await putUpload(abandoned, png);
    await harness.pool.query("UPDATE media_files SET upload_expires_at = now() - interval '2 days' WHERE id = $1", [abandoned.mediaId]);
    const keys = (await harness.pool.query('SELECT id, storage_key, upload_key, thumbnails FROM media_files WHERE id = ANY($1)', [[old.id, abandoned.mediaId]])).rows
      .flatMap((row) => [row.storage_key, row.upload_key, ...row.thumbnails.map((t: any) => t.key)].filter(Boolean)) as string[];
    expect(keys).toHaveLength(4);
    for (const key of keys) expect(fs.existsSync(path.join(dir, ...key.split('/')))).toBe(true);

    const counts = await harness.temporal.workflow.execute('maintenanceWorkflow', { taskQueue: harness.taskQueue, workflowId: `maintenance-media-${Date.now()}` });
    expect(counts).toMatchObject({ media_trash: 1, media_abandoned_uploads: 1 });
    const left = await harness.pool.query('SELECT id FROM media_files WHERE id = ANY($1)', [[old.id, recent.id, abandoned.mediaId]]);
    expect(left.rows.map((row) => row.id)).toEqual([recent.id]);
    for (const key of keys) expect(fs.existsSync(path.join(dir, ...key.split('/')))).toBe(false);
    await harness.call(org.apiKey, 'platform_restore_media_library_file', { mediaId: recent.id });
  });

  it('another organisation\'s ids behave as missing ones, and its public URLs do not serve through ours', async () => {
    const other = await harness.createOrg({ name: 'Other Chapel' });
    const mine = await uploadFile(harness, org.apiKey, 'private-notes.pdf', Buffer.from('%PDF-1.4\n% test document\n'), { isPublic: false });
    expect(mine.file).toMatchObject({ mimeType: 'application/pdf', width: null, thumbnails: [] });
    const otherMcp = await harness.mcpClient(other.apiKey);
    try {
      for (const [tool, args] of [
        ['platform_get_media_library_file', { mediaId: mine.file.id }],
        ['platform_get_media_library_serve_url', { mediaId: mine.file.id }],
        ['platform_delete_media_library_file', { mediaId: mine.file.id }],
        ['platform_update_media_library_file', { mediaId: mine.file.id, altText: 'mine now' }],
      ] as const) {
        expect(await mcpRefusal(otherMcp, tool, args)).toMatchObject({ code: 'not_found', message: `Media file ${mine.file.id} was not found` });
      }
    } finally {
      await otherMcp.close();
    }
    expect((await fetch(`${harness.url}/media/files/${other.orgId}/${mine.file.id}`)).status).toBe(404);
  });
});
