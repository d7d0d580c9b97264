/**
 * `npm run bench:mediahub`: Media Hub processing of a ~50 MB file, end to end on the test stack (API
 * and worker in one process, a fresh database, the Temporal server on TEMPORAL_ADDRESS, the
 * embedded media store): begin_upload → PUT to the presigned URL → complete_upload → the
 * processing workflow (read from storage, ffprobe, waveform or still, copy into place) → ready.
 *
 * Two files, made here: a 16 kHz mono WAV of about 26 minutes (a sermon's length; 50 MiB) and an
 * H.264/AAC 720p MP4 made by ffmpeg at 4 Mbit/s for 100 seconds (about 50 MB). Reports the PUT time,
 * the time from complete to ready (polled every 100 ms) and the worker's peak RSS growth is not
 * isolated (one process), so only wall times are reported.
 * Writes bench/results/<yyyy-mm-dd>-mediahub.json and prints a Markdown table.
 * Knobs: BENCH_MEDIAHUB_RUNS (2 per file), BENCH_MEDIAHUB_FILES (wav,mp4), BENCH_OUT_DIR (bench/results).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, startDevServer } from '../scripts/lib/temporal-dev-server';
import { Harness } from '../test/helpers/harness';
import { makeWav, putTo } from '../modules/mediahub/__tests__/fixtures';

const RUNS = Number(process.env.BENCH_MEDIAHUB_RUNS ?? 2);
const FILES = (process.env.BENCH_MEDIAHUB_FILES ?? 'wav,mp4').split(',');

async function makeBigMp4(dir: string): Promise<Buffer> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ffmpeg = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  const out = path.join(dir, 'big.mp4');
  await promisify(execFile)(ffmpeg, ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=duration=100:size=1280x720:rate=25', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=100',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', '4M', '-maxrate', '4M', '-bufsize', '8M', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart', '-y', out]);
  return fs.promises.readFile(out);
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-mediahub-'));
  process.env.MEDIA_LOCAL_DIR ??= path.join(dataDir, 'media');
  const dev = process.env.TEMPORAL_ADDRESS ? null : await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), port: await freePort() });
  if (dev) process.env.TEMPORAL_ADDRESS = dev.address;
  const harness = await Harness.start({ own: true });
  process.env.PUBLIC_URL = harness.url;
  try {
    const org = await harness.createOrg({ name: 'Bench Church', planCode: 'enterprise' });
    const files: Array<{ name: string; bytes: Buffer }> = [];
    if (FILES.includes('wav')) files.push({ name: 'sermon.wav', bytes: makeWav(50 * 1024 * 1024 / 32000, 220, 16000) });
    if (FILES.includes('mp4')) files.push({ name: 'service.mp4', bytes: await makeBigMp4(dataDir) });
    const rows: Array<{ file: string; bytes: number; putMs: number; processMs: number; durationSeconds: number | null; status: string }> = [];
    for (const file of files) {
      for (let run = 0; run < RUNS; run += 1) {
        const begun = await harness.call(org.apiKey, 'mediahub_begin_upload', { fileName: file.name, fileSize: file.bytes.length });
        const putStart = performance.now();
        const put = await putTo(begun, file.bytes);
        if (!put.ok) throw new Error(`PUT failed ${put.status}`);
        const putMs = performance.now() - putStart;
        const start = performance.now();
        await harness.call(org.apiKey, 'mediahub_complete_upload', { itemId: begun.itemId });
        let item;
        for (;;) {
          item = (await harness.call(org.apiKey, 'mediahub_get_item', { itemId: begun.itemId })).item;
          if (item.status !== 'processing') break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        rows.push({ file: file.name, bytes: file.bytes.length, putMs: Math.round(putMs), processMs: Math.round(performance.now() - start), durationSeconds: item.durationSeconds, status: item.status });
      }
    }
    console.log('| file | MB | PUT ms | complete → ready ms | media duration s | status |');
    console.log('|---|---|---|---|---|---|');
    for (const row of rows) console.log(`| ${row.file} | ${(row.bytes / 1e6).toFixed(1)} | ${row.putMs} | ${row.processMs} | ${row.durationSeconds} | ${row.status} |`);
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const out = path.join(outDir, `${new Date().toISOString().slice(0, 10)}-mediahub.json`);
    fs.writeFileSync(out, `${JSON.stringify({ bench: 'mediahub', at: new Date().toISOString(), cpus: os.cpus().length, loadAverage: os.loadavg(), settings: { runs: RUNS, files: FILES }, rows }, null, 2)}\n`);
    console.error(`bench:mediahub: wrote ${out}`);
  } finally {
    await harness.close();
    await dev?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
