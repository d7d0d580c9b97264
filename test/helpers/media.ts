import sharp from 'sharp';
import type { Harness } from './harness';

/** A real image made with sharp: a gradient-free solid colour is enough for sizes and types. */
export async function makeImage(format: 'png' | 'jpeg' | 'webp' | 'gif', width: number, height: number, colour = { r: 40, g: 120, b: 200 }): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: colour } });
  return base.toFormat(format).toBuffer();
}

/** PUTs bytes to a presigned upload URL as the begin step told us to. */
export async function putUpload(begun: { uploadUrl: string; uploadHeaders: Record<string, string> }, bytes: Buffer, headers: Record<string, string> = {}): Promise<Response> {
  const sent = { ...begun.uploadHeaders, ...headers };
  delete sent['Content-Length'];
  return fetch(begun.uploadUrl, { method: 'PUT', headers: sent, body: new Uint8Array(bytes) });
}

/** begin → PUT → complete over the HTTP bridge; the completed file. */
export async function uploadFile(harness: Harness, apiKey: string, fileName: string, bytes: Buffer, extra: Record<string, unknown> = {}): Promise<any> {
  const begun = await harness.call(apiKey, 'platform_begin_media_library_upload', { fileName, fileSize: bytes.length });
  const put = await putUpload(begun, bytes);
  if (!put.ok) throw new Error(`PUT failed ${put.status}: ${await put.text()}`);
  return harness.call(apiKey, 'platform_complete_media_library_upload', { mediaId: begun.mediaId, sessionId: begun.sessionId, ...extra });
}
