import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { StewardError } from '../../../core/errors';

export const CHANNELS = ['email', 'sms', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];

export const PURPOSES = ['marketing', 'charitable_purpose', 'service'] as const;
export type Purpose = (typeof PURPOSES)[number];

// E.164: a plus, a country code that does not start with 0, at most 15 digits in all.
const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * A phone number as E.164, or undefined when it cannot be one. Numbers written nationally are read
 * in the organisation's country (a UK "07700 900123" is "+447700900123"), international ones with
 * + or 00; separators are ignored. Accepted when its length is possible for its country
 * (libphonenumber-js): reserved ranges such as the UK's drama numbers still pass, as carriers decide.
 */
export function toE164(raw: string, country = 'GB'): string | undefined {
  const parsed = parsePhoneNumberFromString(raw.trim(), { defaultCountry: country.toUpperCase() as CountryCode });
  if (!parsed || !parsed.isPossible()) return undefined;
  return E164.test(parsed.number) ? parsed.number : undefined;
}

/** An email address as suppressions and senders compare it: trimmed, lower-cased. */
export function normaliseEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 320 ? email : undefined;
}

/** The address a channel compares, normalised; an address that cannot be one is a validation error naming `path`. */
export function normaliseAddress(channel: Channel, raw: string, options: { country?: string; path?: string } = {}): string {
  const path = options.path ?? 'address';
  if (channel === 'email') {
    const email = normaliseEmail(raw);
    if (!email) throw new StewardError('validation_failed', `${raw} is not an email address`, { issues: [{ path, message: 'not an email address' }] });
    return email;
  }
  const phone = toE164(raw, options.country);
  if (!phone) {
    throw new StewardError('validation_failed', `${raw} is not a phone number in E.164 form`, {
      issues: [{ path, message: 'not a valid E.164 phone number' }],
      hint: 'Write the number with its country code, e.g. +447700900123.',
    });
  }
  return phone;
}
