/**
 * UK Gift Aid and Gift Aid Small Donations Scheme (GASDS) rules as pure functions over ISO dates
 * ('YYYY-MM-DD') and integer pence. No database, no clock: callers pass the date a claim is made
 * ("asOf"), so every rule is testable at the edges of a tax year.
 *
 * Rounding, decided once: Gift Aid is computed on a TOTAL of gross gifts, the way HMRC computes a
 * claim's repayment, and rounded towards zero to whole pence (never claiming a fraction of a penny
 * more than is due; an adjustment reverses exactly as the same rule would). A line's own Gift Aid
 * figure is informative; the claim's amount is giftAidOn(sum of its lines), which can be a penny or
 * two more than the sum of the per-line figures.
 */

// ---------------------------------------------------------------- dates

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parts(date: string): { year: number; month: number; day: number } {
  const match = ISO_DATE.exec(date);
  if (!match) throw new RangeError(`Not an ISO date: ${date}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new RangeError(`Not a calendar date: ${date}`);
  }
  return { year, month, day };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const iso = (year: number, month: number, day: number) => `${pad(year, 4)}-${pad(month)}-${pad(day)}`;

/** The same day `years` later (or earlier); 29 February becomes 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const { year, month, day } = parts(date);
  const target = year + years;
  const lastDay = new Date(Date.UTC(target, month, 0)).getUTCDate();
  return iso(target, month, Math.min(day, lastDay));
}

/** The day before an ISO date. */
export function dayBefore(date: string): string {
  const { year, month, day } = parts(date);
  return new Date(Date.UTC(year, month - 1, day - 1)).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------- tax years

/** A UK tax year: 6 April to 5 April the next year, named by its two calendar years ("2025-26"). */
export interface TaxYear {
  label: string;
  startYear: number;
  starts: string;
  ends: string;
}

export function taxYearStarting(startYear: number): TaxYear {
  return {
    label: `${startYear}-${pad((startYear + 1) % 100)}`,
    startYear,
    starts: iso(startYear, 4, 6),
    ends: iso(startYear + 1, 4, 5),
  };
}

/** The tax year a date falls in: on or after 6 April it is that calendar year's; up to 5 April, the year before's. */
export function taxYearOf(date: string): TaxYear {
  const { year, month, day } = parts(date);
  const onOrAfterSixthApril = month > 4 || (month === 4 && day >= 6);
  return taxYearStarting(onOrAfterSixthApril ? year : year - 1);
}

/** "2025-26" (or "2025/26") → that tax year; anything else → null. The second half must follow the first. */
export function parseTaxYear(label: string): TaxYear | null {
  const match = /^(\d{4})[-/](\d{2})$/.exec(label.trim());
  if (!match) return null;
  const startYear = Number(match[1]);
  if ((startYear + 1) % 100 !== Number(match[2])) return null;
  return taxYearStarting(startYear);
}

// ---------------------------------------------------------------- Gift Aid amounts

/**
 * Gift Aid is the basic-rate tax the donor paid on the gift: gross × rate / (100 − rate).
 * Basic rate has been 20% (so 25% of the gift) since 2008-09; earlier years are past every
 * claim window, so a gift before then has no rate here and is never claimable.
 */
const BASIC_RATES: ReadonlyArray<{ fromStartYear: number; percent: number }> = [{ fromStartYear: 2008, percent: 20 }];

export function basicRatePercent(taxYear: TaxYear): number | null {
  let percent: number | null = null;
  for (const rate of BASIC_RATES) if (taxYear.startYear >= rate.fromStartYear) percent = rate.percent;
  return percent;
}

/** Gift Aid on a gross amount in pence, rounded towards zero (a negative gross, an adjustment, gives the negative of the positive rule). */
export function giftAidOn(grossPence: number, taxYear: TaxYear = taxYearStarting(2025)): number {
  if (!Number.isSafeInteger(grossPence)) throw new RangeError('gross must be whole pence');
  const percent = basicRatePercent(taxYear);
  if (percent === null) throw new RangeError(`No basic rate for ${taxYear.label}`);
  const magnitude = Math.floor((Math.abs(grossPence) * percent) / (100 - percent));
  return grossPence < 0 ? -magnitude : magnitude;
}

/** A claim's Gift Aid: each tax year's lines totalled, then the rule applied to each total. */
export function claimGiftAid(lines: ReadonlyArray<{ amount: number; date: string }>): number {
  const byYear = new Map<number, number>();
  for (const line of lines) {
    const year = taxYearOf(line.date).startYear;
    byYear.set(year, (byYear.get(year) ?? 0) + line.amount);
  }
  let total = 0;
  for (const [year, gross] of byYear) total += giftAidOn(gross, taxYearStarting(year));
  return total;
}

// ---------------------------------------------------------------- claim windows

/** How long after the end of the gift's tax year Gift Aid may be claimed (charitable trusts; a company counts from its accounting period). */
export const GIFT_AID_CLAIM_YEARS = 4;
/** GASDS top-ups must be claimed within 2 years of the end of the tax year the money was collected in. */
export const GASDS_CLAIM_YEARS = 2;

export function giftAidClaimDeadline(giftDate: string): string {
  return addYears(taxYearOf(giftDate).ends, GIFT_AID_CLAIM_YEARS);
}

export function gasdsClaimDeadline(collectedOn: string): string {
  return addYears(taxYearOf(collectedOn).ends, GASDS_CLAIM_YEARS);
}

// ---------------------------------------------------------------- declarations

export const DECLARATION_SCOPES = ['single_gift', 'past_and_future', 'future_only'] as const;
export type DeclarationScope = (typeof DECLARATION_SCOPES)[number];
export const DECLARATION_METHODS = ['written', 'oral', 'online'] as const;
export type DeclarationMethod = (typeof DECLARATION_METHODS)[number];

/** How far back an enduring declaration may reach: gifts in the 4 years before it was made. */
export const DECLARATION_LOOKBACK_YEARS = 4;

export interface DeclarationFacts {
  id: string;
  scope: DeclarationScope;
  /** The day the donor made it (signed, said or submitted). */
  madeOn: string;
  /** The first gift date it covers. */
  startOn: string;
  /** The last gift date it covers, if it has an end. */
  endOn: string | null;
  method: DeclarationMethod;
  /** Oral declarations only: the day the written record of it was sent to the donor. */
  confirmationSentOn: string | null;
  /** Gifts on or after this day are not covered (gifts before it, and lines already claimed, are unaffected). */
  cancelledOn: string | null;
  /** single_gift only: the one donation it covers. */
  donationId: string | null;
}

export type CoverageProblem = 'no_declaration' | 'oral_unconfirmed' | 'declaration_cancelled' | 'outside_declaration_dates';

/** Why a declaration does not cover a gift on the day a claim is made, or null when it does. */
export function coverageProblem(declaration: DeclarationFacts, gift: { id: string; date: string }, asOf: string): CoverageProblem | null {
  if (declaration.scope === 'single_gift') {
    if (declaration.donationId !== gift.id) return 'no_declaration';
  } else if (gift.date < declaration.startOn || (declaration.endOn !== null && gift.date > declaration.endOn)) {
    return 'outside_declaration_dates';
  }
  if (declaration.cancelledOn !== null && gift.date >= declaration.cancelledOn) return 'declaration_cancelled';
  // An oral declaration is effective only once the charity has sent the donor a written record of it.
  if (declaration.method === 'oral' && (declaration.confirmationSentOn === null || declaration.confirmationSentOn > asOf)) {
    return 'oral_unconfirmed';
  }
  return null;
}

const PROBLEM_ORDER: CoverageProblem[] = ['oral_unconfirmed', 'declaration_cancelled', 'outside_declaration_dates', 'no_declaration'];

/**
 * The declaration covering a gift, or the most telling reason none does (an unconfirmed oral
 * declaration that would otherwise cover it says more than "no declaration").
 */
export function findCoveringDeclaration(
  declarations: readonly DeclarationFacts[], gift: { id: string; date: string }, asOf: string,
): { declarationId: string } | { problem: CoverageProblem } {
  let best: CoverageProblem = 'no_declaration';
  for (const declaration of declarations) {
    const problem = coverageProblem(declaration, gift, asOf);
    if (problem === null) return { declarationId: declaration.id };
    if (PROBLEM_ORDER.indexOf(problem) < PROBLEM_ORDER.indexOf(best)) best = problem;
  }
  return { problem: best };
}

export interface DeclarationInput {
  scope: DeclarationScope;
  method: DeclarationMethod;
  madeOn: string;
  startOn?: string;
  endOn?: string;
  confirmationSentOn?: string;
  donationId?: string;
}

export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * Checks a new declaration's dates and fills the start date: an enduring declaration reaches back
 * at most 4 years (and by default exactly that far); a future-only one starts the day it was made.
 */
export function checkDeclaration(input: DeclarationInput, today: string): { startOn: string; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const earliest = addYears(input.madeOn, -DECLARATION_LOOKBACK_YEARS);
  const startOn = input.startOn ?? (input.scope === 'past_and_future' ? earliest : input.madeOn);
  if (input.madeOn > today) problems.push({ path: 'madeOn', message: 'must not be in the future' });
  if (input.scope === 'single_gift' && !input.donationId) problems.push({ path: 'donationId', message: 'required for a single_gift declaration' });
  if (input.scope !== 'single_gift' && input.donationId) problems.push({ path: 'donationId', message: 'only a single_gift declaration names a donation' });
  if (input.scope === 'future_only' && startOn < input.madeOn) problems.push({ path: 'startOn', message: 'a future_only declaration cannot start before it was made' });
  if (input.scope === 'past_and_future' && startOn < earliest) {
    problems.push({ path: 'startOn', message: `can reach back at most ${DECLARATION_LOOKBACK_YEARS} years, to ${earliest}` });
  }
  if (input.endOn !== undefined && input.endOn < startOn) problems.push({ path: 'endOn', message: 'must not be before the start date' });
  if (input.confirmationSentOn !== undefined) {
    if (input.method !== 'oral') problems.push({ path: 'confirmationSentOn', message: 'only an oral declaration has a written confirmation' });
    else if (input.confirmationSentOn < input.madeOn) problems.push({ path: 'confirmationSentOn', message: 'must not be before the declaration was made' });
    else if (input.confirmationSentOn > today) problems.push({ path: 'confirmationSentOn', message: 'must not be in the future' });
  }
  return { startOn, problems };
}

// ---------------------------------------------------------------- donor details on a claim line

/** A UK postcode, upper case with one space before the inward code (HMRC's format); null when it cannot be one. */
export function normalisePostcode(value: string | null | undefined): string | null {
  if (!value) return null;
  const compact = value.toUpperCase().replace(/\s+/g, '');
  // Outward code: area letters (never Q, V, X first; never I, J, Z second), district; inward code: sector digit and unit letters (never C, I, K, M, O, V).
  if (!/^([A-PR-UWYZ][A-HK-Y]?[0-9][A-Z0-9]?[0-9][ABD-HJLNP-UW-Z]{2}|GIR0AA)$/.test(compact)) return null;
  return `${compact.slice(0, -3)} ${compact.slice(-3)}`;
}

// HMRC's schedule: title at most 4 characters, first and last names at most 35, house name or number at most 40.
const TITLE = /^[\p{L}][\p{L}.'-]{0,3}$/u;
const NAME = /^[\p{L}][\p{L} .'-]*$/u;
const MAX_NAME = 35;
const MAX_HOUSE = 40;

export interface DonorDetails {
  title: string | null;
  firstName: string | null;
  lastName: string | null;
  houseNameOrNumber: string | null;
  postcode: string | null;
}

export type LineProblem =
  | 'anonymous_gift' | 'title_invalid' | 'first_name_missing' | 'first_name_invalid' | 'last_name_missing' | 'last_name_invalid'
  | 'house_missing' | 'house_invalid' | 'postcode_missing' | 'postcode_invalid'
  | CoverageProblem
  | 'gasds_entry' | 'outside_claim_window' | 'future_gift' | 'fund_not_eligible' | 'refunded' | 'no_basic_rate';

export const LINE_PROBLEM_TEXT: Record<LineProblem, string> = {
  anonymous_gift: 'The gift has no giver, so it cannot carry a declaration',
  title_invalid: 'The title must be at most 4 letters (Mr, Mrs, Ms, Dr, Revd)',
  first_name_missing: "The giver's first name is missing",
  first_name_invalid: `The giver's first name must be letters (at most ${MAX_NAME})`,
  last_name_missing: "The giver's last name is missing",
  last_name_invalid: `The giver's last name must be letters (at most ${MAX_NAME})`,
  house_missing: "The giver's house name or number is missing",
  house_invalid: `The house name or number must be at most ${MAX_HOUSE} characters`,
  postcode_missing: "The giver's postcode is missing",
  postcode_invalid: "The giver's postcode is not a UK postcode",
  no_declaration: 'No Gift Aid declaration covers the gift',
  oral_unconfirmed: 'The oral declaration covering the gift has no written confirmation sent yet',
  declaration_cancelled: 'The declaration was cancelled before the gift',
  outside_declaration_dates: "The gift's date is outside the declaration's start and end dates",
  gasds_entry: 'The gift is a Gift Aid Small Donations Scheme entry',
  outside_claim_window: `The gift is more than ${GIFT_AID_CLAIM_YEARS} years past the end of its tax year`,
  future_gift: 'The gift is dated after the claim',
  fund_not_eligible: 'No part of the gift went to a Gift Aid eligible fund',
  refunded: 'The eligible part of the gift has been refunded',
  no_basic_rate: 'The gift is older than any tax year this claim can cover',
};

export function donorProblems(donor: DonorDetails): LineProblem[] {
  const problems: LineProblem[] = [];
  const title = donor.title?.trim();
  if (title && !TITLE.test(title)) problems.push('title_invalid');
  const first = donor.firstName?.trim();
  if (!first) problems.push('first_name_missing');
  else if (first.length > MAX_NAME || !NAME.test(first)) problems.push('first_name_invalid');
  const last = donor.lastName?.trim();
  if (!last) problems.push('last_name_missing');
  else if (last.length > MAX_NAME || !NAME.test(last)) problems.push('last_name_invalid');
  const house = donor.houseNameOrNumber?.trim();
  if (!house) problems.push('house_missing');
  else if (house.length > MAX_HOUSE) problems.push('house_invalid');
  if (!donor.postcode?.trim()) problems.push('postcode_missing');
  else if (!normalisePostcode(donor.postcode)) problems.push('postcode_invalid');
  return problems;
}

export interface CandidateGift {
  id: string;
  date: string;
  /** The gift's gross in Gift Aid eligible funds, net of refunds to those funds. */
  eligibleGross: number;
  /** The gross in eligible funds before refunds (tells "not eligible" from "refunded"). */
  eligibleBeforeRefunds: number;
  isGasds: boolean;
  anonymous: boolean;
}

/**
 * Every reason a gift cannot be a line of a claim made on `asOf` (all of them, so one pass fixes
 * them all), or the declaration that covers it. HMRC rejects a whole claim for one bad line, so
 * a line goes on a claim only with no problem at all.
 */
export function checkClaimLine(
  gift: CandidateGift, donor: DonorDetails | null, declarations: readonly DeclarationFacts[], asOf: string,
): { declarationId: string; problems: [] } | { declarationId: null; problems: LineProblem[] } {
  const problems: LineProblem[] = [];
  if (gift.isGasds) problems.push('gasds_entry');
  if (gift.eligibleBeforeRefunds <= 0) problems.push('fund_not_eligible');
  else if (gift.eligibleGross <= 0) problems.push('refunded');
  if (gift.date > asOf) problems.push('future_gift');
  if (basicRatePercent(taxYearOf(gift.date)) === null) problems.push('no_basic_rate');
  else if (asOf > giftAidClaimDeadline(gift.date)) problems.push('outside_claim_window');
  let declarationId: string | null = null;
  if (gift.anonymous || !donor) {
    problems.push('anonymous_gift');
  } else {
    problems.push(...donorProblems(donor));
    const found = findCoveringDeclaration(declarations, gift, asOf);
    if ('problem' in found) problems.push(found.problem);
    else declarationId = found.declarationId;
  }
  if (problems.length === 0 && declarationId) return { declarationId, problems: [] };
  return { declarationId: null, problems };
}

// ---------------------------------------------------------------- Gift Aid Small Donations Scheme

/** The largest single small donation (since 6 April 2016; £20 before). */
export const GASDS_MAX_GIFT = 3000;
/** The most small donations a charity may claim on in a tax year (£8,000, a £2,000 top-up) since 2016-17. */
export const GASDS_YEARLY_LIMIT = 800_000;
/** Small donations claimed may be at most this many times the Gift Aid donations claimed in the same tax year. */
export const GASDS_MATCHING_MULTIPLE = 10;
/** Cash, and contactless card payments since 6 April 2019. */
export const GASDS_METHODS = ['cash', 'contactless'] as const;
export type GasdsMethod = (typeof GASDS_METHODS)[number];

export function gasdsGiftProblem(amount: number, method: string): string | null {
  if (!Number.isSafeInteger(amount) || amount <= 0) return 'must be a whole, positive number of pence';
  if (amount > GASDS_MAX_GIFT) return `a small donation is at most ${GASDS_MAX_GIFT} pence (£30); larger gifts need a Gift Aid declaration`;
  if (!(GASDS_METHODS as readonly string[]).includes(method)) return 'only cash and contactless gifts are small donations';
  return null;
}

/**
 * How much more of a tax year's small donations may be claimed: the lower of the yearly limit and
 * 10 × the Gift Aid donations claimed in that year, less what earlier claims took.
 */
export function gasdsAllowance(input: { giftAidGrossInYear: number; gasdsAlreadyClaimed: number }): number {
  const cap = Math.min(GASDS_YEARLY_LIMIT, GASDS_MATCHING_MULTIPLE * Math.max(0, input.giftAidGrossInYear));
  return Math.max(0, cap - Math.max(0, input.gasdsAlreadyClaimed));
}

/** Spreads an allowance over collections in order (oldest first): how much of each this claim takes. */
export function allocateGasds<T extends { id: string; unclaimed: number }>(collections: readonly T[], allowance: number): Array<{ id: string; amount: number }> {
  const taken: Array<{ id: string; amount: number }> = [];
  let left = Math.max(0, allowance);
  for (const collection of collections) {
    if (left <= 0) break;
    const amount = Math.min(left, collection.unclaimed);
    if (amount > 0) taken.push({ id: collection.id, amount });
    left -= amount;
  }
  return taken;
}
