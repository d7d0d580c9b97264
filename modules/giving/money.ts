import { z } from 'zod';
import { StewardError } from '../../core/errors';

/**
 * Money in the giving module is an integer number of minor units (pence, cents) and an ISO 4217
 * currency code: never a float, in the database, in schemas or in JSON. Every column is bounded
 * by MAX_MINOR_UNITS (the migration's CHECK), so every value is a safe JavaScript integer.
 */
export const MAX_MINOR_UNITS = 100_000_000_000; // 1,000,000,000.00 in a two-decimal currency

/** A gift's amount: a positive whole number of minor units, within the schema's bound. */
export const positiveMinorUnits = z.number()
  .int('Amounts are whole minor units (pence, cents): 12.50 is 1250')
  .positive('The amount must be more than zero')
  .max(MAX_MINOR_UNITS, `The amount may be at most ${MAX_MINOR_UNITS} minor units`);

/** A fee or a threshold: zero or more minor units. */
export const nonNegativeMinorUnits = z.number()
  .int('Amounts are whole minor units (pence, cents): 12.50 is 1250')
  .min(0, 'The amount cannot be negative')
  .max(MAX_MINOR_UNITS, `The amount may be at most ${MAX_MINOR_UNITS} minor units`);

/** An adjusting entry's amount: non-zero, either sign, within the bound. */
export const signedMinorUnits = z.number()
  .int('Amounts are whole minor units (pence, cents): 12.50 is 1250')
  .min(-MAX_MINOR_UNITS, `The amount may be at least -${MAX_MINOR_UNITS} minor units`)
  .max(MAX_MINOR_UNITS, `The amount may be at most ${MAX_MINOR_UNITS} minor units`)
  .refine((value) => value !== 0, 'The amount cannot be zero');

/** An ISO 4217 code, upper case. */
export const currencyCode = z.string().length(3).regex(/^[A-Za-z]{3}$/, 'A three-letter ISO 4217 code such as GBP');

/**
 * A bigint column (read as a number by the pool's int8 parser) or a SUM (numeric, read as a
 * string) as a safe integer. Anything else is a bug worth failing loudly on, not a rounding.
 */
export function minorUnits(value: unknown): number {
  if (value === null || value === undefined) return 0;
  const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : typeof value === 'number' ? value : Number.NaN;
  if (!Number.isSafeInteger(number)) throw new StewardError('internal_error', 'A money value was not a whole number of minor units');
  return number;
}

/**
 * The currency of a country, for organisations that have not set one (giving_settings.currency).
 * Organisations are created with a country (default GB); the countries listed are the ones the
 * product serves today. An unlisted country has no implied currency: the organisation sets one
 * with giving_update_settings before recording gifts.
 */
const COUNTRY_CURRENCIES: Record<string, string> = {
  GB: 'GBP', IM: 'GBP', JE: 'GBP', GG: 'GBP', US: 'USD', CA: 'CAD', AU: 'AUD', NZ: 'NZD', IE: 'EUR', FR: 'EUR', DE: 'EUR',
  NL: 'EUR', BE: 'EUR', ES: 'EUR', PT: 'EUR', IT: 'EUR', AT: 'EUR', FI: 'EUR', CH: 'CHF', NO: 'NOK', SE: 'SEK', DK: 'DKK',
  ZA: 'ZAR', NG: 'NGN', KE: 'KES', GH: 'GHS', UG: 'UGX', IN: 'INR', SG: 'SGD', HK: 'HKD', JP: 'JPY', KR: 'KRW',
};

export function currencyForCountry(country: string): string | null {
  return COUNTRY_CURRENCIES[country.toUpperCase()] ?? null;
}

/** An amount's currency must be the organisation's; a gift in another currency is refused, never converted. */
export function requireCurrency(given: string | undefined, organisationCurrency: string, field = 'currency'): void {
  if (given === undefined || given.toUpperCase() === organisationCurrency) return;
  throw new StewardError('validation_failed', `Donations are recorded in ${organisationCurrency}, the organisation's currency; ${given.slice(0, 3)} was given`, {
    hint: `Convert the gift to ${organisationCurrency} before recording it, or omit currency.`,
    issues: [{ path: field, message: `must be ${organisationCurrency}` }],
  });
}

/**
 * An amount in minor units as a person reads it: "£1,234.50", in the organisation's country's
 * style. The currency's own number of decimals decides the division (none for JPY). Without a
 * currency (an organisation that has not set one) the number is given with two decimals and no symbol.
 */
export function formatMinorUnits(amount: number, currency: string | null, country = 'GB'): string {
  if (!currency) return formatDecimal(new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 }), exactDecimal(amount, 2));
  const format = currencyFormat(currency, country);
  return formatDecimal(format, exactDecimal(amount, format.resolvedOptions().maximumFractionDigits ?? 2));
}

/** Intl formats a decimal string exactly (ECMA-402 NumberFormat v3, Node 20); TypeScript's lib types still say number. */
function formatDecimal(format: Intl.NumberFormat, decimal: string): string {
  return format.format(decimal as unknown as number);
}

/**
 * Minor units as an exact decimal string (12345, 2 → "123.45"): Intl formats a decimal string
 * exactly, so an amount never passes through a float on its way to a person.
 */
export function exactDecimal(amount: number, digits: number): string {
  const sign = amount < 0 ? '-' : '';
  const text = Math.abs(amount).toString().padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

function currencyFormat(currency: string, country: string): Intl.NumberFormat {
  try {
    return new Intl.NumberFormat(`en-${country.toUpperCase()}`, { style: 'currency', currency });
  } catch {
    // A country code Intl cannot make a locale of still gets British English conventions.
    return new Intl.NumberFormat('en-GB', { style: 'currency', currency });
  }
}
