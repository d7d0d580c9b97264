import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Twilio-style SMS API over real HTTP (POST /2010-04-01/Accounts/{sid}/Messages.json, form
 * encoded, Basic auth), de-duplicating on Idempotency-Key as the provider does, for the broadcast
 * tests: it records every request and every distinct message, and can hold responses so a test
 * acts (a STOP, a cancel) while a broadcast is part-way.
 */
export interface SmsServer {
  url: string;
  /** Every message accepted, once per Idempotency-Key. */
  messages: Array<{ to: string; body: string; key: string }>;
  /** Every request, repeats included. */
  requests: number;
  /** Hold responses once this many distinct messages were accepted (null: never). */
  holdAfter: number | null;
  release(): void;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  env(): Record<string, string>;
  close(): Promise<void>;
}

export async function startSmsServer(): Promise<SmsServer> {
  const seen = new Map<string, string>();
  let gates: Array<() => void> = [];
  const state: SmsServer = {
    url: '', messages: [], requests: 0, holdAfter: null,
    release() {
      state.holdAfter = null;
      for (const open of gates.splice(0)) open();
    },
    async waitFor(count, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (state.messages.length < count) {
        if (Date.now() > deadline) throw new Error(`only ${state.messages.length} of ${count} messages arrived`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    env: () => ({ SMS_API_URL: state.url, SMS_ACCOUNT_SID: 'ACtest', SMS_AUTH_TOKEN: 'token', SMS_FROM: '+447700900000' }),
    close: () => new Promise<void>((resolve) => { state.release(); server.close(() => resolve()); }),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      state.requests += 1;
      if (req.method !== 'POST' || !/^\/2010-04-01\/Accounts\/[^/]+\/Messages\.json$/.test(req.url ?? '')) {
        res.writeHead(404).end();
        return;
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const key = String(req.headers['idempotency-key'] ?? '');
      let sid = seen.get(key);
      if (!sid) {
        sid = `SM${seen.size + 1}`;
        seen.set(key, sid);
        state.messages.push({ to: form.get('To') ?? '', body: form.get('Body') ?? '', key });
      }
      if (state.holdAfter !== null && state.messages.length >= state.holdAfter) await new Promise<void>((resolve) => gates.push(resolve));
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid, status: 'queued' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
