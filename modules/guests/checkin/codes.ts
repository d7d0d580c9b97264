import { randomInt } from 'node:crypto';

/**
 * Characters a security code is drawn from: none a tired volunteer could misread on a label or a
 * parent mistype (no 0/O/Q, 1/I/L, 2/Z, 5/S, 6/G, 8/B, and no V beside U). 21 characters: a
 * 4-character code has 194,481 values.
 */
export const SECURITY_CODE_ALPHABET = 'ACDEFHJKMNPRTUWXY3479';

/** A fresh random code from a cryptographic source. */
export function randomSecurityCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i += 1) code += SECURITY_CODE_ALPHABET[randomInt(SECURITY_CODE_ALPHABET.length)];
  return code;
}

/** What a person types at pickup, compared as printed: case and spaces do not matter. */
export function normaliseSecurityCode(typed: string): string {
  return typed.replace(/\s+/g, '').toUpperCase();
}
