import { StewardError } from '../../core/errors';

/**
 * WhatsApp template review through a Meta Cloud API-style provider: create a template under the
 * business account, read its review state. Local by default: `npm start` points it at the
 * messaging sandbox.
 *
 *   WHATSAPP_API_URL              base URL (e.g. https://graph.facebook.com, or the sandbox's)
 *   WHATSAPP_API_VERSION          path version, default v21.0
 *   WHATSAPP_ACCESS_TOKEN         Bearer token
 *   WHATSAPP_BUSINESS_ACCOUNT_ID  the WhatsApp Business Account (WABA) templates belong to
 */

export type ProviderReviewStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'PAUSED' | 'DISABLED';

export interface ProviderTemplate {
  id: string;
  status: ProviderReviewStatus;
  reason: string | null;
}

export interface WhatsAppTemplateProvider {
  create(definition: Record<string, unknown>, idempotencyKey: string): Promise<ProviderTemplate>;
  get(templateId: string): Promise<ProviderTemplate | null>;
}

interface ProviderSettings {
  baseUrl: string;
  version: string;
  token: string;
  accountId: string;
}

function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const baseUrl = env.WHATSAPP_API_URL;
  const token = env.WHATSAPP_ACCESS_TOKEN;
  const accountId = env.WHATSAPP_BUSINESS_ACCOUNT_ID;
  if (!baseUrl || !token || !accountId) {
    throw new StewardError('not_configured', 'WhatsApp is not configured on this server (WHATSAPP_API_URL, WHATSAPP_ACCESS_TOKEN, WHATSAPP_BUSINESS_ACCOUNT_ID)', {
      hint: '`npm start` configures the local messaging sandbox; set the WHATSAPP_* settings for a real provider.',
    });
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), version: env.WHATSAPP_API_VERSION ?? 'v21.0', token, accountId };
}

const STATUSES: readonly ProviderReviewStatus[] = ['PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED'];

function reviewStatusOf(value: unknown): ProviderReviewStatus {
  const status = String(value ?? '').toUpperCase();
  // Meta also reports IN_APPEAL and PENDING_DELETION; both still wait on a decision.
  return (STATUSES as readonly string[]).includes(status) ? (status as ProviderReviewStatus) : 'PENDING';
}

function providerFailure(what: string, status: number, body: unknown): StewardError {
  const error = (body as { error?: { message?: unknown; code?: unknown } } | null)?.error;
  const detail = typeof error?.message === 'string' ? `: ${error.message.slice(0, 300)}` : '';
  if (status >= 400 && status < 500) {
    return new StewardError('validation_failed', `WhatsApp refused the template ${what} (${status})${detail}`, { hint: 'Fix the template in a new version and submit that one.' });
  }
  return new StewardError('unavailable', `The WhatsApp provider did not answer the template ${what} (${status})`, { hint: 'Try again shortly.' });
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

export function httpWhatsAppTemplateProvider(settings: ProviderSettings = settingsFromEnv()): WhatsAppTemplateProvider {
  const headers = { authorization: `Bearer ${settings.token}`, 'content-type': 'application/json' };
  const base = `${settings.baseUrl}/${settings.version}`;
  return {
    async create(definition, idempotencyKey) {
      let response: Response;
      try {
        response = await fetch(`${base}/${encodeURIComponent(settings.accountId)}/message_templates`, {
          method: 'POST', headers: { ...headers, 'idempotency-key': idempotencyKey }, body: JSON.stringify(definition), signal: AbortSignal.timeout(15_000),
        });
      } catch {
        throw new StewardError('unavailable', 'The WhatsApp provider could not be reached', { hint: 'Try again shortly.' });
      }
      const body = await readJson(response) as { id?: unknown; status?: unknown } | null;
      if (!response.ok || typeof body?.id !== 'string') throw providerFailure('submission', response.status, body);
      return { id: body.id, status: reviewStatusOf(body.status), reason: null };
    },
    async get(templateId) {
      let response: Response;
      try {
        response = await fetch(`${base}/${encodeURIComponent(templateId)}?fields=id,name,status,category,rejected_reason`, { headers, signal: AbortSignal.timeout(15_000) });
      } catch {
        throw new StewardError('unavailable', 'The WhatsApp provider could not be reached', { hint: 'Try again shortly.' });
      }
      if (response.status === 404) return null;
      const body = await readJson(response) as { id?: unknown; status?: unknown; rejected_reason?: unknown } | null;
      if (!response.ok || !body) throw providerFailure('lookup', response.status, body);
      const reason = typeof body.rejected_reason === 'string' && body.rejected_reason !== 'NONE' ? body.rejected_reason : null;
      return { id: templateId, status: reviewStatusOf(body.status), reason };
    },
  };
}

let override: WhatsAppTemplateProvider | undefined;

/** The provider in use: the HTTP one from the environment, unless a test set another. */
export function whatsAppTemplateProvider(): WhatsAppTemplateProvider {
  return override ?? httpWhatsAppTemplateProvider();
}

export function setWhatsAppTemplateProviderForTests(provider: WhatsAppTemplateProvider | undefined): void {
  override = provider;
}
