import { createHash } from 'node:crypto';
import { StewardError } from '../../../core/errors';

/**
 * The payment processor's connected account, kept in step with the public display name. The
 * adapter speaks the connected-account update of Stripe's API (POST /v1/accounts/{id}, form
 * encoded, `business_profile[name]` and `settings[payments][statement_descriptor]`), which other
 * processors' compatible gateways accept too. Configured by environment:
 *   PAYMENT_PROCESSOR_SECRET_KEY  the platform's secret key; without it nothing is sent
 *   PAYMENT_PROCESSOR_API_URL     base URL (default https://api.stripe.com)
 *   PAYMENT_PROCESSOR_TIMEOUT_MS  how long to wait (default 10000, at most 20000)
 */

export const SYNC_STATUSES = ['synced', 'not_configured', 'no_account', 'failed'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export interface SyncOutcome {
  status: SyncStatus;
  /** What happened, in words, for the person. */
  message: string;
}

export interface PublicNameUpdate {
  accountId: string;
  tradingName: string;
  /** null clears the account's statement text, so the processor falls back to its default. */
  statementDescriptor: string | null;
}

export interface PaymentProcessor {
  updateConnectedAccount(update: PublicNameUpdate): Promise<SyncOutcome>;
}

export function paymentProcessorFromEnv(env: NodeJS.ProcessEnv = process.env): PaymentProcessor | null {
  const secretKey = env.PAYMENT_PROCESSOR_SECRET_KEY;
  if (!secretKey) return null;
  return new HttpPaymentProcessor({
    baseUrl: (env.PAYMENT_PROCESSOR_API_URL ?? 'https://api.stripe.com').replace(/\/+$/, ''),
    secretKey,
    timeoutMs: processorTimeoutMs(env.PAYMENT_PROCESSOR_TIMEOUT_MS),
  });
}

/** The tool call's activity has 30 seconds in all; the processor gets at most 20 of them, 10 unless configured. */
const MAX_TIMEOUT_MS = 20_000;

function processorTimeoutMs(configured: string | undefined): number {
  const value = Number(configured ?? 10_000);
  return Number.isFinite(value) && value > 0 ? Math.min(value, MAX_TIMEOUT_MS) : 10_000;
}

/** The outcome without a processor to talk to: saved here only. */
export const NOT_CONFIGURED: SyncOutcome = {
  status: 'not_configured',
  message: 'Saved in Steward; no payment processor is configured (PAYMENT_PROCESSOR_SECRET_KEY), so nothing was sent to one.',
};

export const NO_ACCOUNT: SyncOutcome = {
  status: 'no_account',
  message: 'Saved in Steward; the organisation\'s connected account at the payment processor is not known yet, so nothing was sent. Give processorAccountId to sync.',
};

class HttpPaymentProcessor implements PaymentProcessor {
  constructor(private readonly config: { baseUrl: string; secretKey: string; timeoutMs: number }) {}

  async updateConnectedAccount(update: PublicNameUpdate): Promise<SyncOutcome> {
    const body = new URLSearchParams({
      'business_profile[name]': update.tradingName,
      'settings[payments][statement_descriptor]': update.statementDescriptor ?? '',
    }).toString();
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${this.config.baseUrl}/v1/accounts/${encodeURIComponent(update.accountId)}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.config.secretKey}`,
          'content-type': 'application/x-www-form-urlencoded',
          // The same update sent twice (a retried step) is one update to the processor.
          'idempotency-key': createHash('sha256').update(`${update.accountId}\n${body}`).digest('hex'),
        },
        body,
        redirect: 'error',
        signal: timeout,
      });
    } catch {
      const reason = timeout.aborted ? 'did not answer in time' : 'could not be reached';
      return { status: 'failed', message: `Saved in Steward, but the payment processor ${reason}; set the name again later to retry the sync.` };
    }
    if (response.ok) {
      await response.body?.cancel();
      return { status: 'synced', message: 'Saved in Steward and updated on the payment processor\'s connected account.' };
    }
    const detail = await processorMessage(response);
    // A refusal of what we sent (bad account, a descriptor it will not take) must not be saved as if it were fine.
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      throw new StewardError('validation_failed', `The payment processor refused the update (${response.status})${detail ? `: ${detail}` : ''}; nothing was saved`, {
        details: { processorStatus: response.status },
        hint: 'Check processorAccountId and the statement text against the processor\'s rules, then try again.',
      });
    }
    return { status: 'failed', message: `Saved in Steward, but the payment processor answered ${response.status}; set the name again later to retry the sync.` };
  }
}

/** The processor's own explanation, bounded: its error body is JSON with error.message. */
async function processorMessage(response: Response): Promise<string | null> {
  try {
    const parsed = await response.json() as { error?: { message?: unknown } };
    const message = parsed?.error?.message;
    return typeof message === 'string' ? message.slice(0, 300) : null;
  } catch {
    return null;
  }
}
