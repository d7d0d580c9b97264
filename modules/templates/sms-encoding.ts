/**
 * Exact SMS segment counting (3GPP TS 23.038 / 23.040).
 *
 * A message that fits the GSM 7-bit default alphabet (basic set plus the extension table) is
 * sent as GSM-7: 160 septets in one part, 153 per part once concatenated (the user data header
 * takes 7). An extension character is sent as ESC + character, 2 septets, and a carrier never
 * splits that pair across parts, so a part may end one septet short. Any other character (one
 * emoji is enough) switches the whole message to UCS-2: 70 UTF-16 code units in one part, 67 per
 * part; a surrogate pair is never split either. The estimate metered for a send is this count.
 */

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSegments {
  encoding: SmsEncoding;
  /** Unicode code points (what a person would call characters, modulo combining marks). */
  characters: number;
  /** Septets for GSM-7, UTF-16 code units for UCS-2. */
  units: number;
  /** Parts the message is sent as; 0 for an empty message. */
  segments: number;
  /** Units a part holds at this message's length: single-part or concatenated capacity. */
  perSegment: number;
}

// The basic set, in table order; ESC (0x1B) is not a character of its own.
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(Array.from(GSM7_BASIC));
const EXTENSION = new Set(Array.from(GSM7_EXTENSION));

export const SMS_LIMITS = {
  'GSM-7': { single: 160, multipart: 153 },
  'UCS-2': { single: 70, multipart: 67 },
} as const;

/** Septets a character takes in GSM-7, or null when it is outside the alphabet. */
export function gsm7Septets(char: string): 1 | 2 | null {
  if (BASIC.has(char)) return 1;
  if (EXTENSION.has(char)) return 2;
  return null;
}

export function isGsm7(text: string): boolean {
  for (const char of text) if (gsm7Septets(char) === null) return false;
  return true;
}

/**
 * Packs indivisible units into parts of `capacity`, never splitting one across two parts.
 * Each entry is the width of one indivisible piece (an extension char, a surrogate pair).
 */
function packParts(widths: number[], capacity: number): number {
  let parts = 1;
  let used = 0;
  for (const width of widths) {
    if (used + width > capacity) {
      parts += 1;
      used = 0;
    }
    used += width;
  }
  return parts;
}

export function smsSegments(text: string): SmsSegments {
  const chars = Array.from(text);
  const gsm = chars.every((char) => gsm7Septets(char) !== null);
  const encoding: SmsEncoding = gsm ? 'GSM-7' : 'UCS-2';
  // Array.from splits by code point, so a surrogate pair is one piece of width 2.
  const widths = chars.map((char) => (gsm ? (gsm7Septets(char) as number) : char.length));
  const units = widths.reduce((sum, width) => sum + width, 0);
  const limits = SMS_LIMITS[encoding];
  if (units === 0) return { encoding, characters: 0, units: 0, segments: 0, perSegment: limits.single };
  if (units <= limits.single) return { encoding, characters: chars.length, units, segments: 1, perSegment: limits.single };
  return {
    encoding,
    characters: chars.length,
    units,
    segments: packParts(widths, limits.multipart),
    perSegment: limits.multipart,
  };
}
