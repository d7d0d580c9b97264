import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { makeImage, uploadFile } from '../../../test/helpers/media';

/**
 * Song files end to end: a chord chart (a PDF) and a scanned lead sheet uploaded to the Media Library
 * with its real two-step upload, linked to a song and one of its arrangements over MCP, listed with
 * their type, size and address, refused twice or from another organisation's library, shown as gone
 * when the file is trashed, and unlinked without touching the library.
 */
describe('runsheet: song files', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let dir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-song-files-'));
    process.env.MEDIA_STORAGE = 'local';
    process.env.MEDIA_LOCAL_DIR = dir;
    delete process.env.MEDIA_S3_BUCKET;
    // Its own stack: media storage and the public URL (where uploads are PUT) are this suite's environment.
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'St Hilda', planCode: 'growth' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    process.env = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = (tool: string, args: Record<string, unknown>) => mcpCall(mcp, tool, args);
  const refusal = (tool: string, args: Record<string, unknown>) => mcpRefusal(mcp, tool, args);

  it('links library files to a song and its arrangements', async () => {
    const songId = (await call('runsheet_create_song', { title: 'Cornerstone', ccliNumber: '6158927' })).songId;
    const arrangementId = (await call('runsheet_add_arrangement', { songId, name: 'Acoustic', key: 'G' })).arrangementId;
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');
    const chart = (await uploadFile(harness, org.apiKey, 'cornerstone-chords.pdf', pdf, { isPublic: false })).file;
    const sheet = (await uploadFile(harness, org.apiKey, 'lead-sheet.png', await makeImage('png', 60, 80))).file;

    const attached = await call('runsheet_attach_song_file', { songId, mediaId: chart.id, kind: 'chord_chart' });
    expect(attached.file).toMatchObject({ songId, arrangementId: null, kind: 'chord_chart', name: 'cornerstone-chords.pdf', mediaId: chart.id, inLibrary: true, mimeType: 'application/pdf', url: null });
    const forArrangement = await call('runsheet_attach_song_file', { songId, arrangementId, mediaId: sheet.id, kind: 'lead_sheet', name: 'Lead sheet in G' });
    expect(forArrangement.file).toMatchObject({ arrangementId, name: 'Lead sheet in G', mimeType: 'image/png', url: expect.stringContaining(sheet.id) });

    // Refusals change nothing: the same file twice, a file of another organisation, an arrangement of another song.
    expect((await refusal('runsheet_attach_song_file', { songId, mediaId: chart.id, kind: 'chord_chart' })).code).toBe('conflict');
    const foreign = (await uploadFile(harness, other.apiKey, 'theirs.png', await makeImage('png', 10, 10))).file;
    expect((await refusal('runsheet_attach_song_file', { songId, mediaId: foreign.id, kind: 'other' })).code).toBe('not_found');
    const otherSong = (await call('runsheet_create_song', { title: 'Amazing Grace', publicDomain: true })).songId;
    expect((await refusal('runsheet_attach_song_file', { songId: otherSong, arrangementId, mediaId: sheet.id, kind: 'lead_sheet' })).code).toBe('not_found');
    expect((await harness.invoke(other.apiKey, 'runsheet_list_song_files', { songId })).body.error?.code).toBe('not_found');

    const listed = await call('runsheet_list_song_files', { songId });
    expect(listed).toMatchObject({ songId, title: 'Cornerstone' });
    expect(listed.files.map((f: any) => [f.kind, f.arrangementId, f.sizeBytes])).toEqual([['chord_chart', null, pdf.length], ['lead_sheet', arrangementId, expect.any(Number)]]);

    // A file trashed in the library shows as gone; unlinking leaves the library alone.
    await harness.call(org.apiKey, 'platform_delete_media_library_file', { mediaId: sheet.id });
    expect((await call('runsheet_list_song_files', { songId })).files[1]).toMatchObject({ inLibrary: false, url: null, mimeType: null });
    expect(await call('runsheet_remove_song_file', { fileId: attached.file.id })).toEqual({ fileId: attached.file.id, removed: true });
    expect((await refusal('runsheet_remove_song_file', { fileId: attached.file.id })).code).toBe('not_found');
    expect((await call('runsheet_list_song_files', { songId })).files.map((f: any) => f.id)).toEqual([forArrangement.file.id]);
    expect((await harness.call(org.apiKey, 'platform_get_media_library_file', { mediaId: chart.id })).file).toMatchObject({ id: chart.id, inTrash: false });
  });
});
