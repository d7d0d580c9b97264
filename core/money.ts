/**
 * Money is held as integer minor units with its currency; these turn an amount into the decimal a
 * person reads without ever dividing it as a float (a division would round 1.005 and friends, and
 * sums of such figures drift). Pure: the widgets' browser bundle imports it too.
 */

/** Digits after the decimal point for a currency (ISO 4217 exponent: 2 for GBP, 0 for JPY, 3 for KWD). */
export function currencyExponent(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2; // not a currency Intl knows: the common case
  }
}

/** 123456 GBP → "1234.56"; -5 GBP → "-0.05"; 500 JPY → "500". Integer arithmetic only. */
export function minorUnitsAsDecimal(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const digits = String(Math.abs(Math.trunc(minor))).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${minor < 0 ? '-' : ''}${whole}${fraction}`;
}

/** "1234.56 GBP": how spoken answers (speakToUser) give an amount. */
export function formatMinorUnits(minor: number, currency: string): string {
  return `${minorUnitsAsDecimal(minor, currency)} ${currency}`;
}
