import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
  messageId: string | undefined;
  idempotencyKey: string | undefined;
}

export interface TestSmtpServer {
  port: number;
  /** Messages the server acknowledged (250 after DATA) on a connection that was still open. */
  delivered: ReceivedMail[];
  /** Messages whose DATA arrived but whose connection dropped before the acknowledgement: SMTP discards these. */
  aborted: ReceivedMail[];
  /** Resolves when the next message's DATA has fully arrived (before any acknowledgement). */
  nextData(): Promise<ReceivedMail>;
  setAckDelay(ms: number): void;
  /**
   * Called synchronously just before (`before`) and just after (`after`) the server writes its 250
   * for a message, with nothing else running in between: a test can freeze the sender (SIGSTOP)
   * before the 250 goes out and kill it after, so it dies holding a 250 it never read, in the
   * window between the server accepting the message and the sender recording that it was sent.
   */
  aroundAcknowledgement(hooks: { before?: (mail: ReceivedMail) => void; after?: (mail: ReceivedMail) => void } | null): void;
  /**
   * The server answers RCPT TO for this address with `code` (a 4xx: try later; a 5xx: never), the
   * next `times` times (every time when omitted); `refused` counts the refusals it gave.
   */
  refuseRecipient(address: string, code: number, times?: number): void;
  refused: Array<{ address: string; code: number }>;
  /**
   * Holds every RCPT TO until `release` is called (then answers each as it would have): `arrived`
   * resolves with the first address held, so a test can act while a message is being sent.
   */
  holdRecipients(): { arrived: Promise<string>; release(): void };
  close(): Promise<void>;
}

function header(raw: string, name: string): string | undefined {
  const match = new RegExp(`^${name}:\\s*(.+)$`, 'im').exec(raw);
  return match?.[1].trim();
}

/**
 * A real SMTP server (smtp-server) on a free loopback port. It can hold back
 * its acknowledgement, so a test can kill the sender while a message is "in
 * flight"; like a real server it then drops the message.
 */
export async function startSmtpServer(options: { ackDelayMs?: number } = {}): Promise<TestSmtpServer> {
  let ackDelay = options.ackDelayMs ?? 0;
  let ackHooks: { before?: (mail: ReceivedMail) => void; after?: (mail: ReceivedMail) => void } | null = null;
  const delivered: ReceivedMail[] = [];
  const aborted: ReceivedMail[] = [];
  const closed = new Set<string>();
  let waiters: Array<(mail: ReceivedMail) => void> = [];
  const refusals = new Map<string, { code: number; left: number }>();
  const refused: Array<{ address: string; code: number }> = [];
  let hold: { arrive: (address: string) => void; released: Promise<void> } | null = null;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    async onRcptTo(address, _session, callback) {
      if (hold) {
        hold.arrive(address.address);
        await hold.released;
      }
      const refusal = refusals.get(address.address.toLowerCase());
      if (!refusal || refusal.left <= 0) return callback();
      refusal.left -= 1;
      refused.push({ address: address.address, code: refusal.code });
      callback(Object.assign(new Error(refusal.code >= 500 ? 'No such mailbox' : 'Mailbox busy, try later'), { responseCode: refusal.code }));
    },
    onClose(session) {
      closed.add(session.id);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail: ReceivedMail = {
          to: session.envelope.rcptTo.map((r) => r.address), raw,
          messageId: header(raw, 'Message-ID'), idempotencyKey: header(raw, 'X-Steward-Idempotency-Key'),
        };
        const current = waiters;
        waiters = [];
        for (const resolve of current) resolve(mail);
        const ack = () => {
          if (closed.has(session.id)) {
            aborted.push(mail);
            callback(new Error('connection closed before acknowledgement'));
            return;
          }
          const hooks = ackHooks;
          hooks?.before?.(mail);
          delivered.push(mail);
          callback();
          hooks?.after?.(mail);
        };
        if (ackDelay > 0) setTimeout(ack, ackDelay);
        else ack();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = ((server as unknown as { server: http.Server }).server.address() as AddressInfo).port;
  return {
    port, delivered, aborted,
    nextData: () => new Promise((resolve) => waiters.push(resolve)),
    setAckDelay: (ms) => {
      ackDelay = ms;
    },
    aroundAcknowledgement: (hooks) => {
      ackHooks = hooks;
    },
    refuseRecipient: (address, code, times = Number.POSITIVE_INFINITY) => {
      refusals.set(address.toLowerCase(), { code, left: times });
    },
    refused,
    holdRecipients: () => {
      let arrive!: (address: string) => void;
      let release!: () => void;
      const arrived = new Promise<string>((resolve) => { arrive = resolve; });
      const released = new Promise<void>((resolve) => { release = resolve; });
      hold = { arrive, released };
      return { arrived, release: () => { hold = null; release(); } };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface SentTextMessage {
  channel: string;
  to: string;
  body: string;
  idempotencyKey: string;
}

export interface TestMessagingServer {
  url: string;
  /** Distinct messages, one per idempotency key (as a provider that de-duplicates keeps them). */
  messages: SentTextMessage[];
  /** Every request, including retries carrying a key already seen. */
  requests: number;
  close(): Promise<void>;
}

/** A stand-in HTTP messaging provider: POST /messages, de-duplicated by the Idempotency-Key header. */
export async function startMessagingServer(): Promise<TestMessagingServer> {
  const messages: SentTextMessage[] = [];
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/messages') {
        res.writeHead(404).end();
        return;
      }
      state.requests += 1;
      const key = String(req.headers['idempotency-key'] ?? '');
      const parsed = JSON.parse(body) as SentTextMessage;
      if (!key) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Idempotency-Key required' }));
        return;
      }
      if (!messages.some((m) => m.idempotencyKey === key)) messages.push({ ...parsed, idempotencyKey: key });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `msg_${key}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    messages,
    get requests() {
      return state.requests;
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
