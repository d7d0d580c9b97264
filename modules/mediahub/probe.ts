import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { StewardError } from '../../core/errors';

const run = promisify(execFile);

/**
 * What processing learns of a file, with real tools: ffprobe (from @ffprobe-installer/ffprobe, a
 * registry package shipping the static binary) for audio and video containers, ffmpeg (from
 * @ffmpeg-installer/ffmpeg) for a video's still and an audio file's waveform, sharp for images.
 */
export const MEDIA_KINDS = ['video', 'audio', 'image', 'document', 'slides'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export const FILE_TYPES: Record<string, { kind: MediaKind; mimeType: string }> = {
  mp4: { kind: 'video', mimeType: 'video/mp4' }, m4v: { kind: 'video', mimeType: 'video/x-m4v' }, mov: { kind: 'video', mimeType: 'video/quicktime' },
  webm: { kind: 'video', mimeType: 'video/webm' },
  mp3: { kind: 'audio', mimeType: 'audio/mpeg' }, m4a: { kind: 'audio', mimeType: 'audio/mp4' }, wav: { kind: 'audio', mimeType: 'audio/wav' },
  aac: { kind: 'audio', mimeType: 'audio/aac' }, ogg: { kind: 'audio', mimeType: 'audio/ogg' }, flac: { kind: 'audio', mimeType: 'audio/flac' },
  png: { kind: 'image', mimeType: 'image/png' }, jpg: { kind: 'image', mimeType: 'image/jpeg' }, jpeg: { kind: 'image', mimeType: 'image/jpeg' },
  webp: { kind: 'image', mimeType: 'image/webp' }, gif: { kind: 'image', mimeType: 'image/gif' },
  pdf: { kind: 'document', mimeType: 'application/pdf' },
  pptx: { kind: 'slides', mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation' },
  key: { kind: 'slides', mimeType: 'application/x-iwork-keynote-sffkey' },
};

export function fileTypeOf(fileName: string): { extension: string; kind: MediaKind; mimeType: string } {
  const match = /\.([A-Za-z0-9]{2,5})$/.exec(fileName.trim());
  const extension = match ? match[1]!.toLowerCase() : '';
  const type = FILE_TYPES[extension];
  if (!type) {
    throw new StewardError('validation_failed', `Media Hub does not take .${extension || '(no extension)'} files`, {
      hint: `Upload one of: ${Object.keys(FILE_TYPES).map((e) => `.${e}`).join(', ')}.`,
      issues: [{ path: 'fileName', message: 'unsupported file type' }],
    });
  }
  return { extension, ...type };
}

function binaryOf(pkg: '@ffprobe-installer/ffprobe' | '@ffmpeg-installer/ffmpeg'): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(pkg) as { path: string }).path;
}

export interface Probed {
  durationMs: number | null;
  width: number | null;
  height: number | null;
  codec: string | null;
  /** A JPEG still (images and video). */
  thumbnail: Buffer | null;
  /** Peak levels 0..100 across the file (audio). */
  waveform: number[] | null;
}

const THUMBNAIL_EDGE = 640;
const WAVEFORM_POINTS = 100;
const MAX_INPUT_PIXELS = 60_000_000;

function unreadable(kind: MediaKind): StewardError {
  return new StewardError('validation_failed', `The file is not a readable ${kind} file`, {
    hint: 'Export it again from the program that made it and upload that copy.', details: { reason: 'unreadable' },
  });
}

interface FfprobeStream { codec_type?: string; codec_name?: string; width?: number; height?: number; duration?: string }
interface FfprobeOutput { streams?: FfprobeStream[]; format?: { duration?: string; format_name?: string } }

export async function ffprobe(file: string): Promise<FfprobeOutput> {
  try {
    const { stdout } = await run(binaryOf('@ffprobe-installer/ffprobe'), ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { maxBuffer: 4 * 1024 * 1024, timeout: 120_000 });
    return JSON.parse(stdout) as FfprobeOutput;
  } catch {
    return {};
  }
}

async function videoStill(file: string, durationMs: number | null): Promise<Buffer | null> {
  const out = path.join(await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mediahub-still-')), 'still.png');
  const at = durationMs && durationMs > 2000 ? 1 : 0;
  try {
    await run(binaryOf('@ffmpeg-installer/ffmpeg'), ['-v', 'error', '-ss', String(at), '-i', file, '-frames:v', '1', '-y', out], { timeout: 120_000 });
    return await sharp(out).resize({ width: THUMBNAIL_EDGE, height: THUMBNAIL_EDGE, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer();
  } catch {
    return null;
  } finally {
    await fs.promises.rm(path.dirname(out), { recursive: true, force: true });
  }
}

/** Peaks of the audio, decoded by ffmpeg to 8 kHz mono 16-bit and read in WAVEFORM_POINTS windows. */
export async function waveformOf(file: string): Promise<number[] | null> {
  try {
    const { stdout } = await run(binaryOf('@ffmpeg-installer/ffmpeg'), ['-v', 'error', '-i', file, '-ac', '1', '-ar', '8000', '-f', 's16le', '-'],
      { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024, timeout: 300_000 });
    const samples = Math.floor(stdout.length / 2);
    if (samples === 0) return null;
    const window = Math.max(1, Math.ceil(samples / WAVEFORM_POINTS));
    const peaks: number[] = [];
    for (let start = 0; start < samples; start += window) {
      let peak = 0;
      for (let i = start; i < Math.min(samples, start + window); i += 1) peak = Math.max(peak, Math.abs(stdout.readInt16LE(i * 2)));
      peaks.push(Math.round((peak / 32768) * 100));
    }
    return peaks;
  } catch {
    return null;
  }
}

function secondsToMs(value: string | undefined): number | null {
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null;
}

/** Probes a file of the kind its name promised; refuses one whose bytes are not that kind. */
export async function probeFile(file: string, kind: MediaKind): Promise<Probed> {
  const none: Probed = { durationMs: null, width: null, height: null, codec: null, thumbnail: null, waveform: null };
  if (kind === 'image') {
    try {
      const meta = await sharp(file, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
      const thumbnail = await sharp(file, { limitInputPixels: MAX_INPUT_PIXELS }).rotate()
        .resize({ width: THUMBNAIL_EDGE, height: THUMBNAIL_EDGE, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer();
      return { ...none, width: meta.width ?? null, height: meta.height ?? null, codec: meta.format ?? null, thumbnail };
    } catch {
      throw unreadable(kind);
    }
  }
  if (kind === 'document' || kind === 'slides') {
    const handle = await fs.promises.open(file, 'r');
    const head = Buffer.alloc(5);
    try { await handle.read(head, 0, 5, 0); } finally { await handle.close(); }
    const isPdf = head.toString('latin1') === '%PDF-';
    const isZip = head[0] === 0x50 && head[1] === 0x4b;
    if (!(isPdf || isZip)) throw unreadable(kind);
    return { ...none, codec: isPdf ? 'pdf' : 'zip' };
  }
  const probed = await ffprobe(file);
  const streams = probed.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video');
  const audio = streams.find((s) => s.codec_type === 'audio');
  if (kind === 'video' && !video) throw unreadable(kind);
  if (kind === 'audio' && !audio) throw unreadable(kind);
  const durationMs = secondsToMs(probed.format?.duration) ?? secondsToMs((kind === 'video' ? video : audio)?.duration);
  if (kind === 'video') {
    return { ...none, durationMs, width: video!.width ?? null, height: video!.height ?? null, codec: video!.codec_name ?? null, thumbnail: await videoStill(file, durationMs) };
  }
  return { ...none, durationMs, codec: audio!.codec_name ?? null, waveform: await waveformOf(file) };
}
