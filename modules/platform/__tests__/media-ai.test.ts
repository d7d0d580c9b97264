import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { makeImage, uploadFile } from '../../../test/helpers/media';

/**
 * The AI media tools against a local server speaking the OpenAI-style API over HTTP: image
 * generation returns a real PNG, the vision model answers from the image it was sent, and
 * embeddings are a bag of words, so semantic search has a right answer to find.
 */

function bagOfWords(text: string): number[] {
  const words = text.toLowerCase().split(/[^a-z]+/);
  // Synonyms share a dimension, so "music" finds the choir and "supper" the meal.
  const groups = [['choir', 'singing', 'music'], ['food', 'meal', 'supper', 'harvest'], ['children', 'kids'], ['garden', 'flowers'], ['logo']];
  return groups.map((group) => words.filter((word) => group.includes(word)).length + 0.01);
}

interface Received { path: string; body: any; authorization?: string }

describe('media library: AI tools through an OpenAI-compatible provider', () => {
  let harness: Harness;
  let org: TestOrg;
  let dir: string;
  let provider: http.Server;
  let providerUrl: string;
  const received: Received[] = [];
  let generated: Buffer;
  const saved = { ...process.env };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-media-ai-'));
    process.env.MEDIA_STORAGE = 'local';
    process.env.MEDIA_LOCAL_DIR = dir;
    delete process.env.MEDIA_AI_API_URL;
    generated = await makeImage('png', 1024, 1024, { r: 250, g: 200, b: 0 });
    provider = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => { raw += chunk; });
      req.on('end', async () => {
        const body = JSON.parse(raw || '{}');
        received.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
        const json = (value: unknown, status = 200) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(value)); };
        if (req.url === '/v1/images/generations') {
          if (body.prompt.includes('fail')) return json({ error: { message: 'content policy' } }, 400);
          return json({ created: 1, data: [{ b64_json: generated.toString('base64'), revised_prompt: `${body.prompt}, bright colours` }] });
        }
        if (req.url === '/v1/chat/completions') {
          const image = body.messages[0].content.find((part: any) => part.type === 'image_url').image_url.url as string;
          const bytes = Buffer.from(image.split(',')[1]!, 'base64');
          const meta = await sharp(bytes).metadata();
          return json({ choices: [{ message: { role: 'assistant', content: JSON.stringify({
            description: `A ${meta.width}x${meta.height} picture of the choir singing at the harvest supper.`,
            altText: 'Choir singing at the harvest supper',
            labels: ['Choir', 'harvest', 'music'],
          }) } }] });
        }
        if (req.url === '/v1/embeddings') {
          return json({ data: (body.input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: bagOfWords(text) })) });
        }
        json({ error: 'unknown' }, 404);
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
    // Its own stack: media storage, the AI provider and the public URL are set in this suite's environment.
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'AI Chapel' });
  });

  afterAll(async () => {
    await harness?.close();
    provider?.closeAllConnections();
    await new Promise((resolve) => provider?.close(resolve));
    process.env = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('without a provider every AI tool answers not_configured naming the setting, and nothing is created', async () => {
    const file = await uploadFile(harness, org.apiKey, 'choir.png', await makeImage('png', 50, 50));
    for (const [tool, args] of [
      ['platform_ai_generate_media', { prompt: 'a church garden in spring' }],
      ['platform_ai_analyze_media', { mediaId: file.file.id }],
      ['platform_ai_search_media_library', { query: 'music' }],
    ] as const) {
      const answer = await harness.invoke(org.apiKey, tool, args);
      expect(answer.body.error).toMatchObject({ code: 'not_configured', details: { reason: 'not_configured', setting: 'MEDIA_AI_API_URL' } });
      expect(answer.body.error!.message).toMatch(/MEDIA_AI_API_URL/);
      expect(answer.status).toBe(503);
    }
    expect((await harness.call(org.apiKey, 'platform_list_media_library_files', {})).files).toHaveLength(1);
    await harness.call(org.apiKey, 'platform_delete_media_library_file', { mediaId: file.file.id });
    expect(received).toEqual([]);
  });

  describe('with a provider', () => {
    beforeAll(() => {
      process.env.MEDIA_AI_API_URL = providerUrl;
      process.env.MEDIA_AI_API_KEY = 'sk-test-key';
      process.env.MEDIA_AI_IMAGE_MODEL = 'image-model-x';
    });

    it('generates an image into the library like an upload: stored, thumbnailed, served, counted', async () => {
      const before = (await harness.call(org.apiKey, 'platform_get_media_library_quota', {})).itemsUsed;
      const folder = (await harness.call(org.apiKey, 'platform_create_media_folder', { name: 'Generated' })).folder;
      const done = await harness.call(org.apiKey, 'platform_ai_generate_media', { prompt: 'Harvest festival table with bread', folderId: folder.id, altText: 'A harvest table' });
      expect(done.file).toMatchObject({
        source: 'ai', mimeType: 'image/png', width: 1024, height: 1024, folderId: folder.id, altText: 'A harvest table',
        name: 'harvest-festival-table-with-bread.png', aiDescription: 'Generated from the prompt: Harvest festival table with bread, bright colours',
      });
      expect(Buffer.from(await (await fetch(done.emailImageUrl)).arrayBuffer()).equals(generated)).toBe(true);
      const request = received.find((r) => r.path === '/v1/images/generations')!;
      expect(request).toMatchObject({ authorization: 'Bearer sk-test-key', body: { model: 'image-model-x', prompt: 'Harvest festival table with bread', size: '1024x1024', n: 1 } });
      expect((await harness.call(org.apiKey, 'platform_get_media_library_quota', {})).itemsUsed).toBe(before + 1);
      const usage = await harness.pool.query("SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'media_items' AND tool = 'platform_ai_generate_media'", [org.orgId]);
      expect(usage.rows[0].n).toBe(1);
    });

    it('a provider failure is a clear unavailable error and adds nothing', async () => {
      const before = (await harness.call(org.apiKey, 'platform_get_media_library_quota', {})).itemsUsed;
      const answer = await harness.invoke(org.apiKey, 'platform_ai_generate_media', { prompt: 'please fail now' });
      expect(answer.body.error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/HTTP 400/) });
      expect((await harness.call(org.apiKey, 'platform_get_media_library_quota', {})).itemsUsed).toBe(before);
    });

    it('generation respects the media item allowance', async () => {
      const capped = await harness.createOrg({ name: 'Capped Chapel' });
      await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'media_items', 0)", [capped.orgId]);
      const calls = received.length;
      const answer = await harness.invoke(capped.apiKey, 'platform_ai_generate_media', { prompt: 'a logo' });
      expect(answer.body.error).toMatchObject({ code: 'allowance_exceeded' });
      // Refused before the provider was asked (no image paid for that cannot be kept).
      expect(received.length).toBe(calls);
    });

    it('analyses an image from its bytes, keeps the description and labels, and applies the alt text when asked', async () => {
      const photo = await uploadFile(harness, org.apiKey, 'evening.jpg', await makeImage('jpeg', 1200, 800));
      const analysed = await harness.call(org.apiKey, 'platform_ai_analyze_media', { mediaId: photo.file.id, applyAltText: true, focus: 'who is there' });
      // The provider saw the medium thumbnail (800 wide), not the 1200-pixel original.
      expect(analysed.analysis).toEqual({ description: 'A 800x533 picture of the choir singing at the harvest supper.', altText: 'Choir singing at the harvest supper', labels: ['choir', 'harvest', 'music'] });
      expect(analysed.file).toMatchObject({ altText: 'Choir singing at the harvest supper', aiLabels: ['choir', 'harvest', 'music'] });
      const prompt = received.filter((r) => r.path === '/v1/chat/completions').pop()!.body.messages[0].content[0].text;
      expect(prompt).toMatch(/who is there/);
      // Plain search now finds it by the AI's words too.
      expect((await harness.call(org.apiKey, 'platform_search_media_library', { query: 'choir' })).files.map((f: any) => f.id)).toContain(photo.file.id);
      const pdf = await uploadFile(harness, org.apiKey, 'rota.pdf', Buffer.from('%PDF-1.7\nrota\n'));
      expect((await harness.invoke(org.apiKey, 'platform_ai_analyze_media', { mediaId: pdf.file.id })).body.error).toMatchObject({ code: 'validation_failed' });
    });

    it('searches by meaning: the closest files come first, the trash is left out', async () => {
      const kids = (await harness.call(org.apiKey, 'platform_upload_media_library_file', { base64Content: (await makeImage('png', 20, 20)).toString('base64'), fileName: 'sunday-club.png', altText: 'Kids in the garden' })).file;
      const flowers = (await harness.call(org.apiKey, 'platform_upload_media_library_file', { base64Content: (await makeImage('png', 20, 20)).toString('base64'), fileName: 'flowers.png', altText: 'Garden flowers' })).file;
      const music = await harness.call(org.apiKey, 'platform_ai_search_media_library', { query: 'music', limit: 3 });
      expect(music.results[0].file.name).toBe('evening.jpg');
      expect(music.results[0].score).toBeGreaterThan(music.results[1].score);
      const children = await harness.call(org.apiKey, 'platform_ai_search_media_library', { query: 'children', limit: 1 });
      expect(children.results.map((r: any) => r.file.id)).toEqual([kids.id]);
      await harness.call(org.apiKey, 'platform_delete_media_library_file', { mediaId: flowers.id });
      const garden = await harness.call(org.apiKey, 'platform_ai_search_media_library', { query: 'garden', limit: 25 });
      expect(garden.results.map((r: any) => r.file.id)).not.toContain(flowers.id);
      expect(garden.results[0].file.id).toBe(kids.id);
    });
  });
});
