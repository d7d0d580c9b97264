import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { CreateBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { makeImage, putUpload, uploadFile } from '../../../test/helpers/media';
import { S3MediaStorage, s3SettingsOf } from '../media/storage';

/**
 * The same library on a real S3-compatible server (moto's S3 server from the project's .venv,
 * `npm run setup` installs it): presigned PUT and GET URLs point at the bucket, the objects land
 * there, public files redirect to short-lived presigned URLs, and Steward still checks every byte.
 */
const MOTO = path.join(__dirname, '..', '..', '..', '.venv', 'bin', 'moto_server');
const BUCKET = 'steward-media-test';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForServer(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`${url} did not start`);
}

describe('media library on S3-compatible storage', () => {
  let harness: Harness;
  let org: TestOrg;
  let moto: ChildProcess;
  let s3: S3Client;
  let endpoint: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    moto = spawn(MOTO, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await waitForServer(endpoint);
    Object.assign(process.env, {
      MEDIA_STORAGE: 's3', MEDIA_S3_BUCKET: BUCKET, MEDIA_S3_REGION: 'us-east-1', MEDIA_S3_ENDPOINT: endpoint, MEDIA_S3_FORCE_PATH_STYLE: 'true',
      MEDIA_S3_ACCESS_KEY_ID: 'testing', MEDIA_S3_SECRET_ACCESS_KEY: 'testing-secret',
    });
    delete process.env.MEDIA_PUBLIC_BASE_URL;
    s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing-secret' } });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    // Its own stack: the S3 server and the public URL are set in this suite's environment.
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'Bucket Chapel' });
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
    s3?.destroy();
    moto?.kill('SIGTERM');
    process.env = saved;
  });

  const keysUnder = async (prefix: string) => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);

  it('uploads through a presigned bucket URL; the original and thumbnails land in the bucket, the upload object is removed', async () => {
    const png = await makeImage('png', 1000, 500);
    const begun = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'harvest.png', fileSize: png.length });
    expect(begun.uploadUrl.startsWith(`${endpoint}/${BUCKET}/uploads/${org.orgId}/${begun.mediaId}/`)).toBe(true);
    expect(begun.uploadUrl).toMatch(/X-Amz-Signature=/);
    expect((await putUpload(begun, png)).status).toBe(200);
    expect(await keysUnder(`uploads/${org.orgId}/${begun.mediaId}/`)).toHaveLength(1);

    const done = await harness.call(org.apiKey, 'platform_complete_media_library_upload', { mediaId: begun.mediaId, sessionId: begun.sessionId });
    expect(done.file).toMatchObject({ width: 1000, height: 500, mimeType: 'image/png' });
    expect(done.file.thumbnails.map((t: any) => [t.variant, t.width, t.height])).toEqual([['small', 200, 100], ['medium', 800, 400]]);
    const stored = await keysUnder(`media/${org.orgId}/${begun.mediaId}/`);
    expect(stored.map((key) => key.split('/').pop()).sort()).toEqual(['medium.webp', 'original.png', 'small.webp']);
    expect(await keysUnder(`uploads/${org.orgId}/${begun.mediaId}/`)).toEqual([]);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: stored.find((key) => key.endsWith('original.png'))! }));
    expect(head).toMatchObject({ ContentLength: png.length, ContentType: 'image/png' });

    // The public URL is Steward's, and redirects to a short-lived presigned URL of the bucket.
    const redirect = await fetch(done.emailImageUrl, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toMatch(new RegExp(`^${endpoint}/${BUCKET}/media/.*X-Amz-Expires=300`));
    expect(Buffer.from(await (await fetch(done.emailImageUrl)).arrayBuffer()).equals(png)).toBe(true);
    const medium = Buffer.from(await (await fetch(done.file.thumbnails[1].url)).arrayBuffer());
    expect(await sharp(medium).metadata()).toMatchObject({ format: 'webp', width: 800, height: 400 });

    // In the trash, Steward stops redirecting at once.
    await harness.call(org.apiKey, 'platform_delete_media_library_file', { mediaId: begun.mediaId });
    expect((await fetch(done.emailImageUrl, { redirect: 'manual' })).status).toBe(404);
  });

  it('serves a private file only through a presigned GET of the bucket', async () => {
    const jpeg = await makeImage('jpeg', 300, 300);
    const done = await uploadFile(harness, org.apiKey, 'minutes.jpeg', jpeg, { isPublic: false });
    expect(done.file.url).toBeNull();
    const serve = await harness.call(org.apiKey, 'platform_get_media_library_serve_url', { mediaId: done.file.id, expiresInSeconds: 600 });
    expect(serve).toMatchObject({ signed: true, mimeType: 'image/jpeg' });
    expect(serve.url.startsWith(`${endpoint}/${BUCKET}/media/${org.orgId}/${done.file.id}/`)).toBe(true);
    expect(serve.url).toMatch(/X-Amz-Expires=600/);
    expect(Buffer.from(await (await fetch(serve.url)).arrayBuffer()).equals(jpeg)).toBe(true);
  });

  it('still checks the bytes that reached the bucket: a lie about the type or the size never becomes a file', async () => {
    const text = Buffer.from('GIF89a? no, just text pretending to be a picture');
    const lie = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'cat.jpg', fileSize: text.length });
    expect((await putUpload(lie, text)).status).toBe(200);
    const refused = await harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: lie.mediaId, sessionId: lie.sessionId });
    expect(refused.body.error).toMatchObject({ code: 'validation_failed' });
    expect(await keysUnder(`uploads/${org.orgId}/${lie.mediaId}/`)).toEqual([]);

    // More bytes than declared: the bucket refuses the signed length, or Steward refuses what arrived.
    const png = await makeImage('png', 40, 40);
    const short = await harness.call(org.apiKey, 'platform_begin_media_library_upload', { fileName: 'short.png', fileSize: png.length - 10 });
    const put = await putUpload(short, png);
    const completed = await harness.invoke(org.apiKey, 'platform_complete_media_library_upload', { mediaId: short.mediaId, sessionId: short.sessionId });
    expect(completed.body.ok).toBe(false);
    expect(completed.body.error!.code).toBe(put.ok ? 'validation_failed' : 'conflict');
    expect((await harness.call(org.apiKey, 'platform_get_media_library_file', { mediaId: short.mediaId })).file.status).toBe('pending');
  });

  it('signs URLs for the address clients use when it differs from Steward\'s own (MEDIA_S3_PUBLIC_ENDPOINT)', async () => {
    const settings = s3SettingsOf({ ...process.env, MEDIA_S3_PUBLIC_ENDPOINT: 'https://media.example.org' })!;
    expect(settings).toMatchObject({ endpoint, publicEndpoint: 'https://media.example.org', bucket: BUCKET, forcePathStyle: true });
    const storage = new S3MediaStorage(settings);
    const key = `media/${org.orgId}/${org.orgId}/abcdefghijkl/original.png`;
    expect(await storage.presignGet(key, { expiresInSeconds: 60 })).toMatch(new RegExp(`^https://media\\.example\\.org/${BUCKET}/${key}\\?`));
    expect(await storage.presignPut(key, { contentLength: 10, contentType: 'image/png', expiresInSeconds: 60 })).toMatch(/^https:\/\/media\.example\.org\/.*X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost/);
    // Steward's own reads still go to the internal endpoint.
    expect(await storage.size(key)).toBeNull();
  });

  it('gives public files a CDN address when MEDIA_PUBLIC_BASE_URL is set, and Steward\'s own otherwise', async () => {
    const done = await uploadFile(harness, org.apiKey, 'cdn.png', await makeImage('png', 30, 20));
    expect(done.file.url).toBe(`${harness.url}/media/files/${org.orgId}/${done.file.id}`);
    const { rows } = await harness.pool.query('SELECT storage_key FROM media_files WHERE id = $1', [done.file.id]);
    process.env.MEDIA_PUBLIC_BASE_URL = 'https://cdn.example.org/media-bucket/';
    try {
      const file = (await harness.call(org.apiKey, 'platform_get_media_library_file', { mediaId: done.file.id })).file;
      expect(file.url).toBe(`https://cdn.example.org/media-bucket/${rows[0].storage_key}`);
      expect(file.thumbnails[0].url).toMatch(new RegExp(`^https://cdn\\.example\\.org/media-bucket/media/${org.orgId}/${done.file.id}/.*/small\\.webp$`));
    } finally {
      delete process.env.MEDIA_PUBLIC_BASE_URL;
    }
  });
});
