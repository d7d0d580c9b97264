import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local speech-to-text provider for development and tests, shaped like a hosted transcription
 * API: `POST /v1/transcriptions` with a bearer key and `{ audioUrl, language }`; it downloads the
 * audio from the (presigned) URL it is given, as a real provider would, and answers
 * `{ id, status: 'completed', text, durationBytes }`. It cannot hear: the text is what a test
 * scripted for that audio's SHA-256, or a line naming the audio's size. `failNext(n)` makes the
 * next n requests fail with 503, so retries can be tested.
 */
export interface TranscriptionSandbox {
  url: string;
  apiKey: string;
  /** The transcript to answer for audio with this SHA-256 (hex). */
  script(sha256: string, text: string): void;
  failNext(count: number): void;
  requests(): Array<{ audioUrl: string; sha256: string | null; status: number }>;
  env(): Record<string, string>;
  close(): Promise<void>;
}

const MAX_AUDIO_BYTES = 1024 * 1024 * 1024;

export async function startTranscriptionSandbox(options: { port?: number; apiKey?: string } = {}): Promise<TranscriptionSandbox> {
  const apiKey = options.apiKey ?? `tsk_${randomBytes(16).toString('hex')}`;
  const scripts = new Map<string, string>();
  const seen: Array<{ audioUrl: string; sha256: string | null; status: number }> = [];
  let failures = 0;

  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/transcriptions') return answer(res, 404, { error: 'not_found' });
      const given = Buffer.from(req.headers.authorization ?? '');
      const expected = Buffer.from(`Bearer ${apiKey}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return answer(res, 401, { error: 'unauthorized' });
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let body: { audioUrl?: unknown };
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { audioUrl?: unknown }; } catch { return answer(res, 400, { error: 'invalid_json' }); }
      const audioUrl = typeof body.audioUrl === 'string' ? body.audioUrl : '';
      if (failures > 0) {
        failures -= 1;
        seen.push({ audioUrl, sha256: null, status: 503 });
        return answer(res, 503, { error: 'busy' });
      }
      const audio = await fetch(audioUrl).catch(() => null);
      if (!audio?.ok) {
        seen.push({ audioUrl, sha256: null, status: 422 });
        return answer(res, 422, { error: 'audio_unreachable' });
      }
      const bytes = Buffer.from(await audio.arrayBuffer());
      if (bytes.length > MAX_AUDIO_BYTES) return answer(res, 413, { error: 'too_large' });
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      seen.push({ audioUrl, sha256, status: 200 });
      answer(res, 200, { id: `tr_${randomBytes(8).toString('hex')}`, status: 'completed', text: scripts.get(sha256) ?? `Sandbox transcript of ${bytes.length} bytes of audio.`, durationBytes: bytes.length });
    })().catch(() => answer(res, 500, { error: 'internal' }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, apiKey,
    script: (sha256, text) => void scripts.set(sha256, text),
    failNext: (count) => void (failures = count),
    requests: () => [...seen],
    env: () => ({ TRANSCRIPTION_API_URL: url, TRANSCRIPTION_API_KEY: apiKey }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
