import { StewardError } from '../../../core/errors';

/**
 * Where Gift Aid claims leave Steward: an HTTP adapter speaking one small JSON shape. In
 * production it points at a gateway that turns the shape into HMRC's Charities Online
 * submission; locally and in tests it points at the sandbox (hmrc-sandbox.ts), which checks the
 * shape and answers as the gateway would.
 *
 *   POST {HMRC_GIFT_AID_URL}/claims
 *   Idempotency-Key: <claim id>                  (a repeat with the same key returns the same reference)
 *   Authorization: Bearer <HMRC_GIFT_AID_API_KEY> (when set)
 *   { claimId, charityReference, claimedOn, currency: "GBP",
 *     totals: { gross, giftAid, gasds, gasdsTopUp },
 *     donations: [{ title, firstName, lastName, houseNameOrNumber, postcode, date, amount }],
 *     adjustments: [{ date, amount }],                 (negative: Gift Aid over-claimed on refunded gifts)
 *     smallDonations: [{ taxYear, amount }] }
 *   → 202 { reference, status: "received" }
 *   → 4xx { error, lines?: [{ index, message }] }   the claim was refused as sent: retrying cannot help
 *   → 5xx / network failure                          unknown: retried (the key makes the repeat harmless)
 */
export interface ClaimSubmission {
  claimId: string;
  charityReference: string;
  claimedOn: string;
  currency: 'GBP';
  totals: { gross: number; giftAid: number; gasds: number; gasdsTopUp: number };
  donations: Array<{ title: string | null; firstName: string; lastName: string; houseNameOrNumber: string; postcode: string; date: string; amount: number }>;
  adjustments: Array<{ date: string; amount: number }>;
  smallDonations: Array<{ taxYear: string; amount: number }>;
}

export interface GiftAidProvider {
  submit(claim: ClaimSubmission): Promise<{ reference: string }>;
}

export class HttpGiftAidProvider implements GiftAidProvider {
  constructor(private readonly config: { baseUrl: string; apiKey?: string }) {}

  async submit(claim: ClaimSubmission): Promise<{ reference: string }> {
    let response: Response;
    try {
      response = await fetch(`${this.config.baseUrl}/claims`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': claim.claimId,
          ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
        },
        body: JSON.stringify(claim),
        // Well inside the tool activity's 30 s limit, so a hung gateway fails the attempt (and it is retried) rather than the activity timing out mid-call.
        signal: AbortSignal.timeout(20_000),
      });
    } catch (error) {
      throw new Error(`The Gift Aid gateway could not be reached: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => ({}))) as { reference?: unknown; error?: unknown; lines?: unknown };
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      throw new StewardError('validation_failed', `HMRC's gateway refused the claim: ${String(body.error ?? response.status).slice(0, 300)}`, {
        hint: 'Nothing was submitted. Fix what it names, then cancel this claim and create a new one.',
        details: { status: response.status, ...(Array.isArray(body.lines) ? { lines: body.lines.slice(0, 50) } : {}) },
      });
    }
    if (!response.ok || typeof body.reference !== 'string') throw new Error(`The Gift Aid gateway answered ${response.status}`);
    return { reference: body.reference };
  }
}

/** The configured provider, read at call time so a running worker picks up its environment. */
export function giftAidProviderFromEnv(env: NodeJS.ProcessEnv = process.env): GiftAidProvider {
  if (!env.HMRC_GIFT_AID_URL) {
    throw new StewardError('unavailable', 'No Gift Aid gateway is configured, so the claim cannot be submitted', {
      hint: 'Set HMRC_GIFT_AID_URL (the local sandbox: npm run sandbox:hmrc). The claim stays validated; submit it again once configured.',
    });
  }
  return new HttpGiftAidProvider({ baseUrl: env.HMRC_GIFT_AID_URL.replace(/\/+$/, ''), apiKey: env.HMRC_GIFT_AID_API_KEY });
}
