import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A real PCM WAV file: a sine tone of `seconds` at `hz`, 16-bit mono at `rate`, written byte by byte. */
export function makeWav(seconds: number, hz = 440, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i += 1) {
    // Louder towards the end, so the waveform has a shape to check.
    const level = 0.1 + 0.8 * (i / samples);
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * hz * i) / rate) * level * 32767), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A real H.264/AAC MP4 made by ffmpeg (the registry package's binary): a test pattern with a tone. */
export async function makeMp4(seconds: number, width = 320, height = 240): Promise<Buffer> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ffmpeg = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mediahub-mp4-'));
  const out = path.join(dir, 'clip.mp4');
  try {
    await run(ffmpeg, ['-v', 'error', '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=${width}x${height}:rate=10`, '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart', '-y', out]);
    return await fs.promises.readFile(out);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** PUTs bytes to a presigned upload URL with the headers the begin step named. */
export async function putTo(begun: { uploadUrl: string; uploadHeaders: Record<string, string> }, bytes: Buffer): Promise<Response> {
  const headers = { ...begun.uploadHeaders };
  delete headers['Content-Length'];
  return fetch(begun.uploadUrl, { method: 'PUT', headers, body: new Uint8Array(bytes) });
}

/** Waits (polling) until `read` answers something `done` accepts; throws with the last answer after `waitMs`. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, waitMs = 120_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`gave up waiting; last: ${JSON.stringify(last).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    last = await read();
  }
  return last;
}
