/**
 * What one message costs and how many units of an allowance it uses. Prices are estimates in
 * integer minor units of one currency (pence): a provider's invoice may differ, which is why a
 * message keeps `estimated_cost_minor` beside `actual_cost_minor` (filled from a status callback
 * that reports a price). The estimate is what is metered: SMS by segments, WhatsApp one credit
 * per message (by category), email one send per message.
 */

export type MessageChannel = 'email' | 'sms' | 'whatsapp';
export type WhatsAppCategory = 'service' | 'utility' | 'marketing' | 'authentication';

export const PRICE_CURRENCY = 'GBP';

/** Minor units per metered unit: per email, per SMS segment, per WhatsApp message by category. */
export const UNIT_PRICES = {
  email: 0,
  sms: 4,
  whatsapp: { service: 0, utility: 2, marketing: 5, authentication: 3 },
} as const;

/** The longest SMS accepted: 10 segments, and never more than 1,600 characters. */
export const SMS_MAX_SEGMENTS = 10;
export const SMS_MAX_CHARACTERS = 1600;
/** WhatsApp's own limit for a text message body. */
export const WHATSAPP_MAX_CHARACTERS = 4096;

export function unitPrice(channel: MessageChannel, category: WhatsAppCategory | null = null): number {
  if (channel === 'whatsapp') return UNIT_PRICES.whatsapp[category ?? 'service'];
  return UNIT_PRICES[channel];
}

/** The estimated cost of `units` metered units on a channel, in minor units of PRICE_CURRENCY. */
export function estimateCost(channel: MessageChannel, units: number, category: WhatsAppCategory | null = null): { amountMinor: number; currency: string } {
  return { amountMinor: unitPrice(channel, category) * units, currency: PRICE_CURRENCY };
}

/** The WhatsApp conversation category a message falls in: free-form replies are service; templates by purpose. */
export function whatsappCategoryFor(freeForm: boolean, purpose: 'marketing' | 'charitable_purpose' | 'service'): WhatsAppCategory {
  if (freeForm) return 'service';
  return purpose === 'marketing' ? 'marketing' : 'utility';
}

const PRICE_AMOUNT = /^[-+]?\d{1,12}(\.\d{1,12})?$/;

/** The minor-unit exponent of an ISO 4217 currency (GBP 2, JPY 0, BHD 3); null for a code that is not one. */
function minorDigits(currency: string): number | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? null;
  } catch {
    return null;
  }
}

/**
 * A price a provider reported for one message (Twilio-style `Price` "-0.04000" with `PriceUnit` "GBP"; a
 * Meta-style status's `pricing.price` with `pricing.currency`), as integer minor units of that currency.
 * Providers report a charge as negative or positive; its size is the cost. Decimal arithmetic on the
 * digits (no floating point), rounded half up to the currency's minor unit (Twilio quotes some prices
 * in fractions of a cent). Absent, malformed, or in a code that is no currency: null, never a guess.
 */
export function reportedPrice(amount: unknown, currency: unknown): { amountMinor: number; currency: string } | null {
  if ((typeof amount !== 'string' && typeof amount !== 'number') || typeof currency !== 'string') return null;
  const text = typeof amount === 'number' ? (Number.isFinite(amount) ? String(amount) : '') : amount.trim();
  if (!PRICE_AMOUNT.test(text)) return null;
  const code = currency.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) return null;
  const digits = minorDigits(code);
  if (digits === null) return null;
  const [whole, fraction = ''] = text.replace(/^[-+]/, '').split('.');
  const padded = fraction.padEnd(digits + 1, '0');
  let minor = Number(whole) * 10 ** digits + (digits > 0 ? Number(padded.slice(0, digits)) : 0);
  if (Number(padded[digits]) >= 5) minor += 1;
  if (!Number.isSafeInteger(minor) || minor > 2_147_483_647) return null;
  return { amountMinor: minor, currency: code };
}
