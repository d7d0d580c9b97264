import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { DATA_DIR } from '../../../db/config';
import { StewardError } from '../../../core/errors';
import { sizeInWords } from '../../../core/sizes';

/**
 * Where Media Library bytes live, behind one interface: any S3-compatible service (production,
 * MinIO in docker-compose) or the embedded store, a folder on this machine whose presigned-style
 * URLs Steward signs and serves itself (api/media). Both are chosen and configured by environment,
 * read by the API and the worker alike, so a URL one process signs the other can check.
 */
export interface MediaStorage {
  readonly kind: 's3' | 'local';
  /** A URL the client PUTs exactly `contentLength` bytes to, until `expiresInSeconds` pass. */
  presignPut(key: string, options: { contentLength: number; contentType: string; expiresInSeconds: number }): Promise<string>;
  /** A URL that GETs the object until `expiresInSeconds` pass. */
  presignGet(key: string, options: { expiresInSeconds: number; contentType?: string }): Promise<string>;
  /** The object's size, or null when it is not there. */
  size(key: string): Promise<number | null>;
  /** The object's bytes (refused past `maxBytes`), or null when it is not there. */
  read(key: string, maxBytes: number): Promise<Buffer | null>;
  write(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Removes the objects; missing ones are not an error. */
  remove(keys: readonly string[]): Promise<void>;
}

/** The largest file the library takes (MEDIA_MAX_FILE_BYTES, default 25 MB). */
export function maxFileBytes(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.MEDIA_MAX_FILE_BYTES);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : 25 * 1024 * 1024;
}

/** Steward's own address, for URLs it serves (the embedded store's signed URLs and public file URLs). */
export function publicOrigin(env: NodeJS.ProcessEnv = process.env): string {
  return (env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/+$/, '');
}

/** The folder the embedded store keeps objects in (MEDIA_LOCAL_DIR, default .data/media). */
export function localMediaDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.MEDIA_LOCAL_DIR ?? path.join(DATA_DIR, 'media'));
}

/** Object keys are made by Steward ('<area>/<org>/<file>/<random>/<name>'); anything else is refused before it reaches a path or a bucket. */
const KEY_PATTERN = /^(uploads|media)\/[0-9a-f-]{36}\/[0-9a-f-]{36}\/[A-Za-z0-9_-]{8,64}\/[a-z0-9_]{1,32}\.[a-z0-9]{2,5}$/;

export function isMediaKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

function assertKey(key: string): void {
  if (!isMediaKey(key)) throw new Error('Not a media object key');
}

/** A fresh random segment for object keys, so a re-processed or re-uploaded file never reuses an old URL. */
export function newKeySegment(): string {
  return randomBytes(12).toString('base64url');
}

// ---------------------------------------------------------------- the embedded store's signatures

/** How long the signing secret is; generated once per data folder unless MEDIA_SIGNING_KEY sets it. */
const SIGNING_KEY_BYTES = 32;

const signingKeys = new Map<string, Buffer>();

/**
 * The secret the embedded store signs URLs with: MEDIA_SIGNING_KEY, or a random one kept beside
 * the objects (readable by this user only) so every process on this machine shares it.
 */
export function mediaSigningKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.MEDIA_SIGNING_KEY) {
    if (env.MEDIA_SIGNING_KEY.length < 32) throw new Error('MEDIA_SIGNING_KEY must be at least 32 characters');
    return Buffer.from(env.MEDIA_SIGNING_KEY, 'utf8');
  }
  const dir = localMediaDir(env);
  const cached = signingKeys.get(dir);
  if (cached) return cached;
  const file = path.join(dir, '.signing-key');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, randomBytes(SIGNING_KEY_BYTES).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Another process made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== SIGNING_KEY_BYTES) throw new Error(`${file} is not a media signing key; remove it to make a new one`);
  signingKeys.set(dir, key);
  return key;
}

export interface SignedRequest {
  method: 'GET' | 'PUT';
  key: string;
  /** Unix seconds. */
  expires: number;
  /** PUT only: the exact number of bytes the upload must carry. */
  contentLength?: number;
}

function signatureOf(request: SignedRequest, secret: Buffer): string {
  const canonical = [request.method, request.key, String(request.expires), String(request.contentLength ?? '')].join('\n');
  return createHmac('sha256', secret).update(canonical).digest('base64url');
}

export function signLocalUrl(request: SignedRequest, env: NodeJS.ProcessEnv = process.env): string {
  const query = new URLSearchParams({ expires: String(request.expires) });
  if (request.contentLength !== undefined) query.set('length', String(request.contentLength));
  query.set('signature', signatureOf(request, mediaSigningKey(env)));
  return `${publicOrigin(env)}/media/o/${request.key}?${query.toString()}`;
}

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/** Checks a URL the embedded store signed; a changed method, key, expiry or length fails like a forged one. */
export function checkLocalSignature(request: SignedRequest, signature: string, now = Date.now(), env: NodeJS.ProcessEnv = process.env): SignatureCheck {
  if (!isMediaKey(request.key) || !Number.isSafeInteger(request.expires)) return 'invalid';
  const expected = Buffer.from(signatureOf(request, mediaSigningKey(env)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return request.expires * 1000 < now ? 'expired' : 'valid';
}

// ---------------------------------------------------------------- the embedded store

export class LocalMediaStorage implements MediaStorage {
  readonly kind = 'local' as const;
  constructor(private readonly root: string, private readonly env: NodeJS.ProcessEnv) {}

  pathOf(key: string): string {
    assertKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async presignPut(key: string, options: { contentLength: number; expiresInSeconds: number }): Promise<string> {
    assertKey(key);
    return signLocalUrl({ method: 'PUT', key, expires: expiryOf(options.expiresInSeconds), contentLength: options.contentLength }, this.env);
  }

  async presignGet(key: string, options: { expiresInSeconds: number }): Promise<string> {
    assertKey(key);
    return signLocalUrl({ method: 'GET', key, expires: expiryOf(options.expiresInSeconds) }, this.env);
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await fs.promises.stat(this.pathOf(key))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async read(key: string, maxBytes: number): Promise<Buffer | null> {
    const size = await this.size(key);
    if (size === null) return null;
    if (size > maxBytes) throw tooLarge(maxBytes);
    return fs.promises.readFile(this.pathOf(key));
  }

  async write(key: string, body: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    // Written aside and renamed, so a reader never sees half an object.
    const temporary = `${target}.${randomBytes(6).toString('hex')}.part`;
    await fs.promises.writeFile(temporary, body);
    await fs.promises.rename(temporary, target);
  }

  /**
   * Stores an upload arriving through a signed PUT: streamed aside, then linked into place only if
   * nothing is there yet, so a second PUT with the same URL cannot replace what was uploaded.
   */
  async receiveUpload(key: string, stream: NodeJS.ReadableStream, expectedLength: number): Promise<'stored' | 'exists' | 'wrong_length'> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.part`;
    let received = 0;
    // Counts while streaming and stops at the first byte past the signed length; pipeline also ends
    // the write (and this upload) when the client goes away part way.
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done(received > expectedLength ? new RangeError('longer than signed') : null, chunk);
      },
    });
    try {
      await pipeline(stream, counter, fs.createWriteStream(temporary, { flags: 'wx' }));
      if (received !== expectedLength) return 'wrong_length';
      try {
        await fs.promises.link(temporary, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
        throw error;
      }
      return 'stored';
    } catch (error) {
      if (error instanceof RangeError) return 'wrong_length';
      throw error;
    } finally {
      await fs.promises.rm(temporary, { force: true });
    }
  }

  async remove(keys: readonly string[]): Promise<void> {
    for (const key of keys) await fs.promises.rm(this.pathOf(key), { force: true });
  }
}

// ---------------------------------------------------------------- S3-compatible services

export interface S3Settings {
  bucket: string;
  region: string;
  endpoint?: string;
  /** The endpoint presigned URLs carry when clients reach the service by another address than Steward does (compose networks). */
  publicEndpoint?: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
}

export class S3MediaStorage implements MediaStorage {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  /** Signs URLs for clients; presigning is computed here, it never calls the service. */
  private readonly presigner: S3Client;

  constructor(private readonly settings: S3Settings) {
    const clientFor = (endpoint: string | undefined) => new S3Client({
      region: settings.region,
      endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.accessKeyId && settings.secretAccessKey
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
        : undefined,
    });
    this.client = clientFor(settings.endpoint);
    this.presigner = settings.publicEndpoint ? clientFor(settings.publicEndpoint) : this.client;
  }

  async presignPut(key: string, options: { contentLength: number; contentType: string; expiresInSeconds: number }): Promise<string> {
    assertKey(key);
    // Content-Length is signed: the service refuses a PUT of any other size.
    const command = new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, ContentLength: options.contentLength, ContentType: options.contentType });
    return getSignedUrl(this.presigner, command, { expiresIn: options.expiresInSeconds, signableHeaders: new Set(['content-length', 'content-type']) });
  }

  async presignGet(key: string, options: { expiresInSeconds: number; contentType?: string }): Promise<string> {
    assertKey(key);
    return getSignedUrl(this.presigner, new GetObjectCommand({ Bucket: this.settings.bucket, Key: key, ResponseContentType: options.contentType }), { expiresIn: options.expiresInSeconds });
  }

  async size(key: string): Promise<number | null> {
    assertKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async read(key: string, maxBytes: number): Promise<Buffer | null> {
    assertKey(key);
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      if ((object.ContentLength ?? 0) > maxBytes) {
        object.Body?.transformToWebStream().cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      const bytes = await object.Body?.transformToByteArray();
      if (!bytes) return Buffer.alloc(0);
      if (bytes.length > maxBytes) throw tooLarge(maxBytes);
      return Buffer.from(bytes);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async write(key: string, body: Buffer, contentType: string): Promise<void> {
    assertKey(key);
    await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: body, ContentType: contentType }));
  }

  async remove(keys: readonly string[]): Promise<void> {
    keys.forEach(assertKey);
    for (let start = 0; start < keys.length; start += 1000) {
      const batch = keys.slice(start, start + 1000);
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
    }
  }
}

function isMissing(error: unknown): boolean {
  const named = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return named.name === 'NoSuchKey' || named.name === 'NotFound' || named.$metadata?.httpStatusCode === 404;
}

function tooLarge(maxBytes: number): StewardError {
  return new StewardError('payload_too_large', `The file is larger than the library takes (${sizeInWords(maxBytes)})`, { hint: 'Make the file smaller (resize or compress it) and try again.' });
}

function expiryOf(expiresInSeconds: number): number {
  return Math.floor(Date.now() / 1000) + expiresInSeconds;
}

// ---------------------------------------------------------------- choosing the store

/** The S3 settings from the environment, or null when MEDIA_S3_BUCKET is not set (the embedded store is used). */
export function s3SettingsOf(env: NodeJS.ProcessEnv = process.env): S3Settings | null {
  if (env.MEDIA_STORAGE === 'local' || !env.MEDIA_S3_BUCKET) {
    if (env.MEDIA_STORAGE === 's3') throw new Error('MEDIA_STORAGE=s3 needs MEDIA_S3_BUCKET');
    return null;
  }
  return {
    bucket: env.MEDIA_S3_BUCKET,
    region: env.MEDIA_S3_REGION ?? 'us-east-1',
    endpoint: env.MEDIA_S3_ENDPOINT || undefined,
    publicEndpoint: env.MEDIA_S3_PUBLIC_ENDPOINT || undefined,
    forcePathStyle: ['1', 'true', 'yes'].includes((env.MEDIA_S3_FORCE_PATH_STYLE ?? '').toLowerCase()),
    accessKeyId: env.MEDIA_S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.MEDIA_S3_SECRET_ACCESS_KEY || undefined,
  };
}

const STORAGE_ENV = ['MEDIA_STORAGE', 'MEDIA_LOCAL_DIR', 'MEDIA_S3_BUCKET', 'MEDIA_S3_REGION', 'MEDIA_S3_ENDPOINT', 'MEDIA_S3_PUBLIC_ENDPOINT', 'MEDIA_S3_FORCE_PATH_STYLE',
  'MEDIA_S3_ACCESS_KEY_ID', 'MEDIA_S3_SECRET_ACCESS_KEY', 'MEDIA_SIGNING_KEY', 'PUBLIC_URL', 'PORT'] as const;
let current: { signature: string; storage: MediaStorage } | undefined;

/** The configured store, made once and again only if its settings change. */
export function mediaStorage(env: NodeJS.ProcessEnv = process.env): MediaStorage {
  const signature = JSON.stringify(STORAGE_ENV.map((name) => env[name] ?? null));
  if (current?.signature === signature) return current.storage;
  const s3 = s3SettingsOf(env);
  const storage = s3 ? new S3MediaStorage(s3) : new LocalMediaStorage(localMediaDir(env), { ...env });
  current = { signature, storage };
  return storage;
}
