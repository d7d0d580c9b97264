import nodemailer from 'nodemailer';
import type { OutreachChannel } from '../core/approvals';

/**
 * Where messages leave Steward. Every call carries the outbox row's
 * idempotency key, so a provider that de-duplicates (an HTTP messaging API by
 * its Idempotency-Key header, mail systems by Message-ID) sees a retry as the
 * same message.
 */
export interface OutboundMessage {
  idempotencyKey: string;
  channel: OutreachChannel;
  to: string;
  subject: string | null;
  body: string;
}

export interface MessageProvider {
  send(message: OutboundMessage): Promise<{ providerMessageId: string }>;
}

/** A provider refused the message for good (a 5xx SMTP reply, a 4xx from the API): retrying will not help. */
export class PermanentDeliveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentDeliveryError';
  }
}

export interface SmtpConfig {
  host: string;
  port: number;
  secure: boolean;
  from: string;
  user?: string;
  pass?: string;
  /**
   * Verify the server's TLS certificate (SMTPS, or STARTTLS when offered).
   * On unless SMTP_TLS_REJECT_UNAUTHORIZED=false, which is only for a local
   * relay with a self-signed certificate: without verification anyone on the
   * path can read the messages and the SMTP password.
   */
  rejectUnauthorized: boolean;
}

export interface HttpMessagingConfig {
  baseUrl: string;
  apiKey?: string;
}

/** Read at send time, so a running worker picks up configuration from its environment. */
export function smtpConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SmtpConfig | null {
  if (!env.SMTP_HOST && !env.SMTP_PORT) return null;
  return {
    host: env.SMTP_HOST ?? '127.0.0.1',
    port: Number(env.SMTP_PORT ?? 25),
    secure: env.SMTP_SECURE === 'true',
    from: env.SMTP_FROM ?? 'Steward <no-reply@steward.local>',
    user: env.SMTP_USER,
    pass: env.SMTP_PASS,
    rejectUnauthorized: env.SMTP_TLS_REJECT_UNAUTHORIZED !== 'false',
  };
}

export function messagingConfigFromEnv(env: NodeJS.ProcessEnv = process.env): HttpMessagingConfig | null {
  if (!env.MESSAGING_API_URL) return null;
  return { baseUrl: env.MESSAGING_API_URL.replace(/\/+$/, ''), apiKey: env.MESSAGING_API_KEY };
}

/** The domain part of Message-IDs: the sender's domain, so receivers can de-duplicate on it. */
function messageIdDomain(from: string): string {
  const match = /@([A-Za-z0-9.-]+)/.exec(from);
  return match ? match[1] : 'steward.local';
}

export class SmtpEmailProvider implements MessageProvider {
  constructor(private readonly config: SmtpConfig) {}

  async send(message: OutboundMessage): Promise<{ providerMessageId: string }> {
    const transport = nodemailer.createTransport({
      host: this.config.host,
      port: this.config.port,
      secure: this.config.secure,
      tls: { rejectUnauthorized: this.config.rejectUnauthorized },
      auth: this.config.user ? { user: this.config.user, pass: this.config.pass ?? '' } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 60_000,
    });
    try {
      const messageId = `<${message.idempotencyKey}@${messageIdDomain(this.config.from)}>`;
      const info = await transport.sendMail({
        from: this.config.from,
        to: message.to,
        subject: message.subject ?? '',
        text: message.body,
        messageId,
        headers: { 'X-Steward-Idempotency-Key': message.idempotencyKey },
      });
      return { providerMessageId: info.messageId ?? messageId };
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      if (typeof code === 'number' && code >= 500) throw new PermanentDeliveryError(`The mail server refused the message (${code})`);
      throw error;
    } finally {
      transport.close();
    }
  }
}

/** SMS and WhatsApp through an HTTP messaging API: POST {baseUrl}/messages with an Idempotency-Key header. */
export class HttpMessagingProvider implements MessageProvider {
  constructor(private readonly config: HttpMessagingConfig) {}

  async send(message: OutboundMessage): Promise<{ providerMessageId: string }> {
    const response = await fetch(`${this.config.baseUrl}/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': message.idempotencyKey,
        ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
      },
      body: JSON.stringify({ channel: message.channel, to: message.to, body: message.body, idempotencyKey: message.idempotencyKey }),
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      throw new PermanentDeliveryError(`The messaging provider refused the message (${response.status})`);
    }
    if (!response.ok) throw new Error(`The messaging provider answered ${response.status}`);
    const body = (await response.json().catch(() => ({}))) as { id?: unknown };
    return { providerMessageId: typeof body.id === 'string' ? body.id : message.idempotencyKey };
  }
}

/** The provider for a channel, or null when that channel is not configured. */
export function providerFor(channel: OutreachChannel, env: NodeJS.ProcessEnv = process.env): MessageProvider | null {
  if (channel === 'email') {
    const smtp = smtpConfigFromEnv(env);
    return smtp && new SmtpEmailProvider(smtp);
  }
  const http = messagingConfigFromEnv(env);
  return http && new HttpMessagingProvider(http);
}
