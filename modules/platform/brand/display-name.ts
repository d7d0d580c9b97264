import { z } from 'zod';

/**
 * The public display name: the trading name people see on receipts, giving pages and the
 * payment processor's checkout, and the short text printed on a giver's card or bank statement.
 *
 * Statement text follows the rules card processors publish for a static statement descriptor
 * (Stripe, "Statement descriptor requirements", https://docs.stripe.com/get-started/account/statement-descriptors,
 * reflecting Visa and Mastercard's merchant-name field of 22 characters):
 * - between 5 and 22 characters inclusive;
 * - Latin characters only (banks strip anything else, so we accept plain ASCII letters);
 * - at least one letter, so never digits alone;
 * - none of the special characters < > \ ' " *  (the asterisk separates a prefix from a per-charge suffix);
 * - more than a single common term: "DONATION" or "ONLINE PAYMENT" alone tells the giver nothing.
 * Statements print it in capitals, so we report how it will appear.
 */

export const STATEMENT_DESCRIPTOR_MIN = 5;
export const STATEMENT_DESCRIPTOR_MAX = 22;
export const TRADING_NAME_MIN = 2;
export const TRADING_NAME_MAX = 100;

/** Characters banks print reliably besides letters, digits and spaces; the forbidden ones are absent. */
const ALLOWED_PUNCTUATION = '.,-&/()#+:!?';
const ALLOWED = new RegExp(`^[A-Za-z0-9 ${ALLOWED_PUNCTUATION.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}]+$`);
const FORBIDDEN = /[<>\\'"*]/;

/** Words that on their own say nothing about who took the money. */
const GENERIC_TERMS = new Set([
  'ONLINE', 'PAYMENT', 'PAYMENTS', 'DONATION', 'DONATIONS', 'GIFT', 'GIFTS', 'GIVING', 'CHARITY', 'CHURCH', 'WEB', 'WEBSITE',
  'PURCHASE', 'ORDER', 'SHOP', 'STORE', 'FEE', 'FEES', 'SUBSCRIPTION', 'CARD', 'TRANSFER', 'CONTRIBUTION', 'OFFERING', 'TITHE',
]);

/** Every rule the text breaks, in words; empty when it is fine. */
export function statementDescriptorProblems(text: string): string[] {
  const problems: string[] = [];
  if (text.length < STATEMENT_DESCRIPTOR_MIN || text.length > STATEMENT_DESCRIPTOR_MAX) {
    problems.push(`must be ${STATEMENT_DESCRIPTOR_MIN} to ${STATEMENT_DESCRIPTOR_MAX} characters (it is ${text.length})`);
  }
  if (FORBIDDEN.test(text)) problems.push('must not contain any of < > \\ \' " *');
  else if (!ALLOWED.test(text)) problems.push(`may use only Latin letters without accents, digits, spaces and ${ALLOWED_PUNCTUATION.split('').join(' ')}`);
  if (!/[A-Za-z]/.test(text)) problems.push('must contain at least one letter');
  const words = text.toUpperCase().split(/[^A-Z0-9]+/).filter(Boolean);
  if (words.length > 0 && words.every((word) => GENERIC_TERMS.has(word))) {
    problems.push('must name the organisation, not only a common term such as "DONATION" or "ONLINE PAYMENT"');
  }
  return problems;
}

/** Statement text a trading name suggests: accents folded, other characters dropped, cut at a word within 22. */
export function suggestStatementDescriptor(tradingName: string): string | null {
  // Apostrophes and quotes are dropped rather than spaced ("St Mark's" reads as ST MARKS).
  const folded = tradingName.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/['\u2019"]/g, '').replace(/[^A-Za-z0-9 .,\-&/()#+:!?]/g, ' ')
    .replace(/\s+/g, ' ').trim().toUpperCase();
  let text = folded;
  while (text.length > STATEMENT_DESCRIPTOR_MAX) {
    const cut = text.lastIndexOf(' ', STATEMENT_DESCRIPTOR_MAX);
    text = cut >= STATEMENT_DESCRIPTOR_MIN ? text.slice(0, cut) : text.slice(0, STATEMENT_DESCRIPTOR_MAX);
    text = text.trim();
  }
  return statementDescriptorProblems(text).length === 0 ? text : null;
}

/** Control characters and line breaks would print as garbage on receipts. */
const PRINTABLE = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u;

export const tradingNameSchema = z.string().trim().min(TRADING_NAME_MIN).max(TRADING_NAME_MAX)
  .regex(PRINTABLE, 'must be printable text on one line')
  .describe(`The name the public sees on receipts and the processor's checkout (${TRADING_NAME_MIN} to ${TRADING_NAME_MAX} characters)`);

export const statementDescriptorSchema = z.string().trim().max(100).superRefine((text, ctx) => {
  for (const problem of statementDescriptorProblems(text)) ctx.addIssue({ code: 'custom', message: problem });
}).describe(`Text on givers' card statements: ${STATEMENT_DESCRIPTOR_MIN} to ${STATEMENT_DESCRIPTOR_MAX} Latin letters, digits, spaces or ${ALLOWED_PUNCTUATION}; at least one letter; none of < > \\ ' " *; printed in capitals`);

/** A processor's connected-account id (such as acct_1Nv0FGQ9RKHgCVdK). */
export const processorAccountIdSchema = z.string().trim().max(64).regex(/^[A-Za-z0-9_-]{3,64}$/, 'letters, digits, _ or -, 3 to 64 characters')
  .describe('The organisation\'s connected-account id at the payment processor (such as acct_…); given once, kept for later syncs');
