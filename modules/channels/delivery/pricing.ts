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
