import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type { OutreachChannel } from '../core/approvals';
import {
  NotDeliveredError, PermanentDeliveryError, callProvider, providerFailureOf, type MessageProvider, type OutboundMessage,
} from './provider-kit';
import {
  MetaWhatsAppProvider, TwilioSmsProvider, metaConfigFromEnv, twilioConfigFromEnv, type MetaConfig, type TwilioConfig,
} from './channels-providers';

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

/** Failures of these kinds happen before the message data is sent (DNS, connect, TLS, login, envelope). */
const SMTP_BEFORE_DATA_CODES = new Set(['EDNS', 'ETLS', 'EAUTH', 'ENOAUTH', 'EOAUTH2', 'EENVELOPE', 'EREQUIRETLS', 'ECONFIG']);
const SMTP_BEFORE_DATA_TIMEOUTS = new Set(['CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a nodemailer error proves the server did not take the message: it
 * answered with a 4xx/5xx reply, or the failure came before the DATA phase.
 * A dropped connection or a timeout while the message was being transmitted
 * or acknowledged proves nothing: the server may have accepted it.
 */
export function smtpErrorProvesNotAccepted(error: unknown): boolean {
  const e = (error ?? {}) as { responseCode?: unknown; code?: unknown; originalCode?: unknown; timeoutType?: unknown };
  if (typeof e.responseCode === 'number' && e.responseCode >= 400) return true;
  if (typeof e.code === 'string' && SMTP_BEFORE_DATA_CODES.has(e.code)) return true;
  if (typeof e.timeoutType === 'string' && SMTP_BEFORE_DATA_TIMEOUTS.has(e.timeoutType)) return true;
  if (typeof e.originalCode === 'string' && CONNECT_FAILURES.has(e.originalCode)) return true;
  return typeof e.code === 'string' && CONNECT_FAILURES.has(e.code);
}

export class SmtpEmailProvider implements MessageProvider {
  /** SMTP has no idempotency: a repeat that the server accepts is a second message. */
  readonly idempotent = false;

  constructor(private readonly config: SmtpConfig) {}

  async send(message: OutboundMessage, options: { signal?: AbortSignal } = {}): Promise<{ providerMessageId: string }> {
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
      // Stable across attempts, so a copy sent after a person chose to retry carries the same Message-ID.
      const messageId = `<${message.idempotencyKey}@${messageIdDomain(this.config.from)}>`;
      // nodemailer closes the connection when the signal aborts (its typings do not list the option yet).
      const mail: Mail.Options & { signal?: AbortSignal } = {
        from: this.config.from,
        to: message.to,
        subject: message.subject ?? '',
        text: message.body,
        ...(message.html ? { html: message.html } : {}),
        messageId,
        headers: { ...(message.transport?.headers ?? {}), 'X-Steward-Idempotency-Key': message.idempotencyKey },
        signal: options.signal,
      };
      const info = await transport.sendMail(mail);
      return { providerMessageId: info.messageId ?? messageId };
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      if (typeof code === 'number' && code >= 500) throw new PermanentDeliveryError(`The mail server refused the message (${code})`);
      if (smtpErrorProvesNotAccepted(error)) {
        throw new NotDeliveredError(`The mail server did not take the message: ${(error as Error).message ?? String(error)}`, { cause: error });
      }
      throw error;
    } finally {
      transport.close();
    }
  }
}

/** SMS and WhatsApp through an HTTP messaging API: POST {baseUrl}/messages with an Idempotency-Key header. */
export class HttpMessagingProvider implements MessageProvider {
  /** The API de-duplicates on the Idempotency-Key header, so a repeated call cannot send a second message. */
  readonly idempotent = true;

  constructor(private readonly config: HttpMessagingConfig) {}

  async send(message: OutboundMessage, options: { signal?: AbortSignal } = {}): Promise<{ providerMessageId: string }> {
    const timeout = AbortSignal.timeout(30_000);
    const response = await callProvider(`${this.config.baseUrl}/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': message.idempotencyKey,
        ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
      },
      body: JSON.stringify({ channel: message.channel, to: message.to, body: message.body, idempotencyKey: message.idempotencyKey }),
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    }, 'messaging provider');
    // An error answer proves the message was not taken, exactly as for the Twilio- and Meta-style providers: a retry is a
    // fresh attempt, checked again (a STOP that arrived meanwhile applies), never the completion of an earlier hand-over.
    if (!response.ok) throw await providerFailureOf(response, 'messaging provider');
    const body = (await response.json().catch(() => ({}))) as { id?: unknown };
    return { providerMessageId: typeof body.id === 'string' ? body.id : message.idempotencyKey };
  }
}

/**
 * The provider for a channel, or null when that channel is not configured: SMS through a
 * Twilio-style API when SMS_API_URL is set, WhatsApp through a Meta Cloud API-style one when
 * WHATSAPP_API_URL is set (./channels-providers.ts), else both through the generic
 * MESSAGING_API_URL.
 */
export function providerFor(channel: OutreachChannel, env: NodeJS.ProcessEnv = process.env): MessageProvider | null {
  if (channel === 'email') {
    const smtp = smtpConfigFromEnv(env);
    return smtp && new SmtpEmailProvider(smtp);
  }
  const specific = channel === 'sms' ? twilioConfigFromEnv(env) : metaConfigFromEnv(env);
  if (specific) return channel === 'sms' ? new TwilioSmsProvider(specific as TwilioConfig) : new MetaWhatsAppProvider(specific as MetaConfig);
  const http = messagingConfigFromEnv(env);
  return http && new HttpMessagingProvider(http);
}
