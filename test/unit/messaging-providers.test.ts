import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MetaWhatsAppProvider, TwilioSmsProvider } from '../../activities/channels-providers';
import { NotDeliveredError, PermanentDeliveryError, type MessageProvider, type OutboundMessage } from '../../activities/provider-kit';
import { HttpMessagingProvider } from '../../activities/providers';

/**
 * What each HTTP messaging provider's failure proves, against a real local HTTP server. The outbox relies
 * on it: NotDeliveredError (the provider answered, or was never reached) makes the next attempt a fresh
 * one, checked again, so a STOP that arrived meanwhile applies; any other error leaves the hand-over
 * unknown, and the next attempt finishes it under the same key.
 */

type Answer = { status: number; body?: unknown } | 'drop';

let answer: Answer = { status: 200 };
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (answer === 'drop') {
        // The request arrived; the connection breaks before any answer: the provider may have taken it.
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const message = (channel: 'sms' | 'whatsapp'): OutboundMessage => ({
  idempotencyKey: `key-${channel}`, channel, to: '+447700900123', subject: null, body: 'See you on Sunday',
});

/** A port nothing listens on: the connection is refused. */
async function closedPortUrl(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const providers: Array<[string, (url: string) => MessageProvider, 'sms' | 'whatsapp', unknown]> = [
  ['the generic HTTP messaging API', (url) => new HttpMessagingProvider({ baseUrl: url }), 'sms', { id: 'msg-1' }],
  ['a Twilio-style SMS API', (url) => new TwilioSmsProvider({ baseUrl: url, accountSid: 'AC1', authToken: 't', defaultFrom: '+447700900000' }), 'sms', { sid: 'SM1' }],
  ['a Meta-style WhatsApp API', (url) => new MetaWhatsAppProvider({ baseUrl: url, apiVersion: 'v21.0', accessToken: 't', phoneNumberId: '123' }), 'whatsapp', { messages: [{ id: 'wamid.1' }] }],
];

describe.each(providers)('%s', (_name, make, channel, okBody) => {
  it('sends and returns the provider\'s id', async () => {
    answer = { status: 200, body: okBody };
    const sent = await make(baseUrl).send(message(channel));
    expect(sent.providerMessageId).toMatch(/^(msg-1|SM1|wamid\.1)$/);
  });

  it.each([429, 503, 500, 408])('an answer of %i proves the message was not taken (NotDeliveredError)', async (status) => {
    answer = { status };
    await expect(make(baseUrl).send(message(channel))).rejects.toBeInstanceOf(NotDeliveredError);
  });

  it('a 4xx refusal is permanent', async () => {
    answer = { status: 400, body: { message: 'invalid number' } };
    await expect(make(baseUrl).send(message(channel))).rejects.toBeInstanceOf(PermanentDeliveryError);
  });

  it('a refused connection proves the message was not taken', async () => {
    await expect(make(await closedPortUrl()).send(message(channel))).rejects.toBeInstanceOf(NotDeliveredError);
  });

  it('a connection broken after the request went leaves the outcome unknown (not NotDeliveredError)', async () => {
    answer = 'drop';
    const failure = await make(baseUrl).send(message(channel)).then(() => null, (error: unknown) => error);
    // fetch's own TypeError ("fetch failed"), from Node's realm rather than the test's: checked by name.
    expect((failure as Error | null)?.name).toBe('TypeError');
    expect(failure).not.toBeInstanceOf(NotDeliveredError);
    expect(failure).not.toBeInstanceOf(PermanentDeliveryError);
  });
});
