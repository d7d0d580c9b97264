import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { SmtpEmailProvider, smtpConfigFromEnv } from '../../activities/providers';

/**
 * The mail relay's TLS certificate is verified unless the operator opts out
 * (SMTP_TLS_REJECT_UNAUTHORIZED=false, for a local relay with a self-signed
 * certificate). smtp-server offers STARTTLS with its built-in self-signed
 * certificate, which stands in for an attacker's certificate here.
 */
describe('SMTP TLS verification', () => {
  let server: SMTPServer;
  let port: number;
  const delivered: string[] = [];

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH'],
      logger: false,
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          delivered.push(...session.envelope.rcptTo.map((r) => r.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = ((server as unknown as { server: http.Server }).server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const message = (to: string) => ({ idempotencyKey: `tls-${to}`, channel: 'email' as const, to, subject: 'Hello', body: 'Thinking of you' });

  it('verifies certificates by default and opts out only when told to', () => {
    const base = { SMTP_HOST: '127.0.0.1', SMTP_PORT: '2525' };
    expect(smtpConfigFromEnv(base)?.rejectUnauthorized).toBe(true);
    expect(smtpConfigFromEnv({ ...base, SMTP_TLS_REJECT_UNAUTHORIZED: 'true' })?.rejectUnauthorized).toBe(true);
    expect(smtpConfigFromEnv({ ...base, SMTP_TLS_REJECT_UNAUTHORIZED: 'false' })?.rejectUnauthorized).toBe(false);
  });

  it('refuses to send over STARTTLS with a certificate it cannot verify', async () => {
    const provider = new SmtpEmailProvider(smtpConfigFromEnv({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port) })!);
    await expect(provider.send(message('verify@example.org'))).rejects.toThrow(/certificate/i);
    expect(delivered).not.toContain('verify@example.org');
  });

  it('sends to a self-signed relay with SMTP_TLS_REJECT_UNAUTHORIZED=false', async () => {
    const provider = new SmtpEmailProvider(smtpConfigFromEnv({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port), SMTP_TLS_REJECT_UNAUTHORIZED: 'false' })!);
    await provider.send(message('optout@example.org'));
    expect(delivered).toContain('optout@example.org');
  });
});
