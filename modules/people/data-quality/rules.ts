import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { normaliseUkPostcode } from '../postcodes';

/**
 * Data quality's rules as pure functions: what each check finds in one contact, what each fix
 * would write, and how the six category scores are computed from the counts (so a person can
 * check every number by hand). The scan (scan.ts) and the fixes (fixes.ts) only apply them.
 */

/** The columns of a contact the rules read (snake_case, as the database holds them). */
export interface ContactRow {
  id: string;
  first_name: string | null;
  last_name: string | null;
  preferred_name: string | null;
  email: string | null;
  phone: string | null;
  date_of_birth: string | null;
  address_line1: string | null;
  address_city: string | null;
  address_county: string | null;
  address_postcode: string | null;
  address_country: string | null;
  status: string;
  whatsapp_consent: boolean;
  updated_at: Date | string;
  custom_fields?: Record<string, unknown> | null;
}

export const CATEGORIES = ['completeness', 'validity', 'duplicates', 'consistency', 'freshness', 'contactability'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Every check a scan runs: its key, its category, what it means and the fix that mends it (if any). */
export const CHECKS = [
  { key: 'missing_name', category: 'completeness', title: 'No first or last name', fix: 'split_full_name' },
  { key: 'missing_contact_route', category: 'completeness', title: 'Neither an email nor a phone number', fix: null },
  { key: 'missing_postcode', category: 'completeness', title: 'No postcode', fix: null },
  { key: 'missing_date_of_birth', category: 'completeness', title: 'No date of birth', fix: null },
  { key: 'invalid_email', category: 'validity', title: 'Email address that cannot be one (or two addresses in one field)', fix: 'move_second_email' },
  { key: 'email_domain_typo', category: 'validity', title: 'Email domain with a known typo (gmial.com, hotmial.com…)', fix: 'email_format' },
  { key: 'invalid_phone', category: 'validity', title: 'Phone number that cannot be read in the organisation\'s country', fix: null },
  { key: 'invalid_postcode', category: 'validity', title: 'UK address whose postcode is not shaped like a UK postcode', fix: null },
  { key: 'implausible_date_of_birth', category: 'validity', title: 'Date of birth in the future or before 1900', fix: null },
  { key: 'duplicate_email', category: 'duplicates', title: 'Shares an email address with another contact', fix: null },
  { key: 'duplicate_phone', category: 'duplicates', title: 'Shares a phone number with another contact', fix: null },
  { key: 'possible_duplicate', category: 'duplicates', title: 'Likely the same person as another contact (fuzzy match, confidence 70+)', fix: null },
  { key: 'name_case', category: 'consistency', title: 'Name written all in capitals or all in lower case', fix: 'name_case' },
  { key: 'phone_format', category: 'consistency', title: 'Phone number not stored in E.164 form (+447700900123)', fix: 'phone_e164' },
  { key: 'postcode_format', category: 'consistency', title: 'UK postcode not written in its standard form (SW1A 1AA)', fix: 'uk_postcode' },
  { key: 'address_missing_town', category: 'consistency', title: 'UK postcode given but the town or county it implies is missing', fix: 'uk_postcode' },
  { key: 'email_case', category: 'consistency', title: 'Email address with capitals or spaces', fix: 'email_format' },
  { key: 'stale_record', category: 'freshness', title: 'Record not updated for two years', fix: null },
  { key: 'not_contactable', category: 'contactability', title: 'No way to reach them with consent (no subscribed email, no WhatsApp consent)', fix: null },
] as const satisfies ReadonlyArray<{ key: string; category: Category; title: string; fix: string | null }>;
export type CheckKey = (typeof CHECKS)[number]['key'];

export const FIXES = ['name_case', 'phone_e164', 'uk_postcode', 'email_format'] as const;
export type FixKind = (typeof FIXES)[number];
export const SPECIAL_FIXES = ['split_full_name', 'move_second_email'] as const;
export type SpecialFixKind = (typeof SPECIAL_FIXES)[number];

/** How long a fix can be undone, and a preview applied. */
export const UNDO_DAYS = 30;
export const PREVIEW_HOURS = 24;
/** A record not updated for this long is stale. */
export const STALE_DAYS = 730;

// ---------------------------------------------------------------- values

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

/** Misspelt domains of the big providers, and what they mean. */
export const EMAIL_DOMAIN_TYPOS: Readonly<Record<string, string>> = Object.freeze({
  'gmial.com': 'gmail.com', 'gmai.com': 'gmail.com', 'gmal.com': 'gmail.com', 'gmaill.com': 'gmail.com', 'gnail.com': 'gmail.com',
  'gmail.co': 'gmail.com', 'gmail.con': 'gmail.com', 'gmail.cm': 'gmail.com', 'gmail.co.uk': 'gmail.com', 'googlemail.con': 'googlemail.com',
  'hotmial.com': 'hotmail.com', 'hotmai.com': 'hotmail.com', 'hotmal.com': 'hotmail.com', 'hotmail.con': 'hotmail.com', 'hotmail.co': 'hotmail.co.uk',
  'hotmial.co.uk': 'hotmail.co.uk', 'hotmail.co.uk.': 'hotmail.co.uk', 'yahooo.com': 'yahoo.com', 'yaho.com': 'yahoo.com', 'yahoo.con': 'yahoo.com',
  'yahoo.co.uk.': 'yahoo.co.uk', 'outlok.com': 'outlook.com', 'outlook.con': 'outlook.com', 'outloo.com': 'outlook.com', 'iclod.com': 'icloud.com',
  'icloud.con': 'icloud.com', 'btinternet.con': 'btinternet.com', 'btinternt.com': 'btinternet.com', 'live.co.uk.': 'live.co.uk',
});

/** Two addresses typed into one field ("a@x.org; b@y.org"): both, in order; undefined for one or none. */
export function twoEmails(raw: string | null): [string, string] | undefined {
  if (!raw) return undefined;
  const parts = raw.split(/[;,/\s]+/).map((part) => part.trim()).filter(Boolean);
  if (parts.length !== 2 || !parts.every((part) => EMAIL.test(part))) return undefined;
  return [parts[0], parts[1]];
}

/** The email as it should be stored: trimmed, lower-cased, a known typo in its domain corrected. Undefined when it cannot be an address. */
export function fixedEmail(raw: string | null): string | undefined {
  if (!raw) return undefined;
  const email = raw.trim().toLowerCase();
  if (!EMAIL.test(email)) return undefined;
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1);
  const corrected = EMAIL_DOMAIN_TYPOS[domain];
  return corrected ? `${email.slice(0, at)}@${corrected}` : email;
}

export function hasDomainTypo(raw: string | null): boolean {
  if (!raw) return false;
  const email = raw.trim().toLowerCase();
  return EMAIL.test(email) && EMAIL_DOMAIN_TYPOS[email.slice(email.lastIndexOf('@') + 1)] !== undefined;
}

/** A name written all in capitals or all in lower case (and long enough to tell: "JO" is left alone if two letters or fewer). */
export function badNameCase(name: string | null): boolean {
  if (!name) return false;
  const letters = name.replace(/[^\p{L}]/gu, '');
  if (letters.length < 2) return false;
  return letters === letters.toLowerCase() || (letters === letters.toUpperCase() && letters.length > 2);
}

/** "MARY-JANE o'neill" → "Mary-Jane O'Neill"; "mcdonald" → "McDonald". */
export function titleCase(name: string): string {
  const lower = name.trim().replace(/\s+/g, ' ').toLowerCase();
  const cased = lower.replace(/(^|[\s\-'’])(\p{L})/gu, (_m, sep: string, letter: string) => sep + letter.toUpperCase());
  return cased.replace(/\bMc(\p{L})/gu, (_m, letter: string) => `Mc${letter.toUpperCase()}`);
}

/** The phone number in E.164 for the organisation's country; undefined when it cannot be read. */
export function phoneE164(raw: string | null, country: string): string | undefined {
  if (!raw || !raw.trim()) return undefined;
  const parsed = parsePhoneNumberFromString(raw.trim(), { defaultCountry: country.toUpperCase() as CountryCode });
  if (!parsed || !parsed.isPossible()) return undefined;
  return /^\+[1-9]\d{6,14}$/.test(parsed.number) ? parsed.number : undefined;
}

const UK_COUNTRIES = new Set(['', 'uk', 'gb', 'united kingdom', 'great britain', 'england', 'scotland', 'wales', 'northern ireland']);

/** Whether an address is read as a UK one: its country says so, or it says nothing and the organisation is in the UK. */
export function isUkAddress(country: string | null, orgCountry: string): boolean {
  const value = (country ?? '').trim().toLowerCase();
  if (value === '') return orgCountry.toUpperCase() === 'GB';
  return UK_COUNTRIES.has(value);
}

export { normaliseUkPostcode };

/** A full name typed into one name field: [first, last] (the last word is the surname); undefined when there is nothing to split. */
export function splitFullName(row: Pick<ContactRow, 'first_name' | 'last_name'>): { firstName: string; lastName: string } | undefined {
  const first = row.first_name?.trim() ?? '';
  const last = row.last_name?.trim() ?? '';
  const whole = first && !last ? first : !first && last ? last : undefined;
  if (!whole) return undefined;
  const words = whole.split(/\s+/);
  if (words.length < 2) return undefined;
  return { firstName: words.slice(0, -1).join(' '), lastName: words[words.length - 1] };
}

// ---------------------------------------------------------------- checks of one contact

function blank(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.trim() === '';
}

/** The checks one contact fails (duplicates are found across contacts, in scan.ts), with a short detail each. */
export function checksOf(row: ContactRow, orgCountry: string, now: Date): Array<{ key: CheckKey; detail: string | null }> {
  const hits: Array<{ key: CheckKey; detail: string | null }> = [];
  const hit = (key: CheckKey, detail: string | null = null) => hits.push({ key, detail });
  if (blank(row.first_name) || blank(row.last_name)) hit('missing_name', blank(row.first_name) ? 'no first name' : 'no last name');
  if (blank(row.email) && blank(row.phone)) hit('missing_contact_route');
  if (blank(row.address_postcode)) hit('missing_postcode');
  if (!row.date_of_birth) hit('missing_date_of_birth');

  if (!blank(row.email)) {
    if (!fixedEmail(row.email)) hit('invalid_email', twoEmails(row.email) ? 'two addresses in one field' : 'not an email address');
    else if (hasDomainTypo(row.email)) hit('email_domain_typo', `${row.email!.trim().toLowerCase().split('@').pop()} → ${fixedEmail(row.email)!.split('@').pop()}`);
    if (fixedEmail(row.email) && row.email !== row.email!.trim().toLowerCase()) hit('email_case');
  }
  const e164 = blank(row.phone) ? undefined : phoneE164(row.phone, orgCountry);
  if (!blank(row.phone)) {
    if (!e164) hit('invalid_phone');
    else if (e164 !== row.phone) hit('phone_format', e164);
  }
  if (!blank(row.address_postcode) && isUkAddress(row.address_country, orgCountry)) {
    const postcode = normaliseUkPostcode(row.address_postcode!);
    if (!postcode) hit('invalid_postcode');
    else {
      if (postcode !== row.address_postcode) hit('postcode_format', postcode);
      if (blank(row.address_city) || blank(row.address_county)) hit('address_missing_town', postcode);
    }
  }
  if (row.date_of_birth) {
    const dob = String(row.date_of_birth).slice(0, 10);
    if (dob > now.toISOString().slice(0, 10) || dob < '1900-01-01') hit('implausible_date_of_birth', dob);
  }
  if (badNameCase(row.first_name) || badNameCase(row.last_name) || badNameCase(row.preferred_name)) hit('name_case');
  const updated = new Date(row.updated_at).getTime();
  if (now.getTime() - updated > STALE_DAYS * 86_400_000) hit('stale_record', new Date(row.updated_at).toISOString().slice(0, 10));
  const emailReach = row.status === 'subscribed' && fixedEmail(row.email) !== undefined;
  const whatsappReach = row.whatsapp_consent && e164 !== undefined;
  if (!emailReach && !whatsappReach) hit('not_contactable', blank(row.email) && blank(row.phone) ? 'no email or phone' : 'no consent recorded');
  return hits;
}

/** What one contact contributes to the validity denominator: the values present that validity checks read. */
export function presentValues(row: ContactRow, orgCountry: string): number {
  let present = 0;
  if (!blank(row.email)) present++;
  if (!blank(row.phone)) present++;
  if (!blank(row.address_postcode) && isUkAddress(row.address_country, orgCountry)) present++;
  if (row.date_of_birth) present++;
  return present;
}

// ---------------------------------------------------------------- scores

export interface CategoryScore {
  score: number;
  formula: string;
  /** The figures the formula uses, by name. */
  figures: Record<string, number>;
  explanation: string;
}

/** The figures a scan counted, from which every score follows. */
export interface ScanFigures {
  contacts: number;
  /** Completeness: failures of the four completeness checks, summed. */
  missingFields: number;
  /** Validity: values present (email, phone, UK postcode, date of birth) and how many of them failed a validity check. */
  presentValues: number;
  invalidValues: number;
  /** Contacts in at least one undismissed exact group or fuzzy pair of confidence 70+. */
  duplicateContacts: number;
  /** Contacts with at least one consistency issue. */
  inconsistentContacts: number;
  staleContacts: number;
  contactableContacts: number;
}

const pct = (value: number) => Math.max(0, Math.min(100, Math.round(value)));

/** The six category scores and the overall score (their plain average), each with its formula and figures. */
export function scoresOf(f: ScanFigures): { score: number; categories: Record<Category, CategoryScore> } {
  const n = f.contacts;
  const ratio = (num: number, den: number) => (den === 0 ? 0 : num / den);
  const categories: Record<Category, CategoryScore> = {
    completeness: {
      score: n === 0 ? 100 : pct(100 * (1 - ratio(f.missingFields, 4 * n))),
      formula: `100 × (1 − missing fields ÷ (4 × contacts)) = 100 × (1 − ${f.missingFields} ÷ ${4 * n})`,
      figures: { missingFields: f.missingFields, contacts: n },
      explanation: 'Each contact should have a name (first and last), a way to reach them (email or phone), a postcode and a date of birth: four fields each.',
    },
    validity: {
      score: f.presentValues === 0 ? 100 : pct(100 * (1 - ratio(f.invalidValues, f.presentValues))),
      formula: `100 × (1 − invalid values ÷ values present) = 100 × (1 − ${f.invalidValues} ÷ ${f.presentValues})`,
      figures: { invalidValues: f.invalidValues, presentValues: f.presentValues },
      explanation: 'Of the emails, phone numbers, UK postcodes and dates of birth present, the share that fail a validity check.',
    },
    duplicates: {
      score: n === 0 ? 100 : pct(100 * (1 - ratio(f.duplicateContacts, n))),
      formula: `100 × (1 − contacts in a duplicate group or likely pair ÷ contacts) = 100 × (1 − ${f.duplicateContacts} ÷ ${n})`,
      figures: { duplicateContacts: f.duplicateContacts, contacts: n },
      explanation: 'Contacts sharing an email or phone with another, or in a likely pair of confidence 70 or more; dismissed groups and pairs are not counted.',
    },
    consistency: {
      score: n === 0 ? 100 : pct(100 * (1 - ratio(f.inconsistentContacts, n))),
      formula: `100 × (1 − contacts with a formatting issue ÷ contacts) = 100 × (1 − ${f.inconsistentContacts} ÷ ${n})`,
      figures: { inconsistentContacts: f.inconsistentContacts, contacts: n },
      explanation: 'Names in all capitals or all lower case, phones not in E.164, postcodes not in standard form or missing the town they imply, emails with capitals.',
    },
    freshness: {
      score: n === 0 ? 100 : pct(100 * (1 - ratio(f.staleContacts, n))),
      formula: `100 × (1 − contacts not updated for ${STALE_DAYS} days ÷ contacts) = 100 × (1 − ${f.staleContacts} ÷ ${n})`,
      figures: { staleContacts: f.staleContacts, contacts: n },
      explanation: `A record nobody has updated for ${STALE_DAYS} days (two years) is stale.`,
    },
    contactability: {
      score: n === 0 ? 100 : pct(100 * ratio(f.contactableContacts, n)),
      formula: `100 × contactable contacts ÷ contacts = 100 × ${f.contactableContacts} ÷ ${n}`,
      figures: { contactableContacts: f.contactableContacts, contacts: n },
      explanation: 'Contactable: a valid email with status subscribed, or a readable phone number with WhatsApp consent.',
    },
  };
  const score = pct(CATEGORIES.reduce((sum, key) => sum + categories[key].score, 0) / CATEGORIES.length);
  return { score, categories };
}

/** The overall formula, for the summary and README. */
export const OVERALL_FORMULA = 'score = (completeness + validity + duplicates + consistency + freshness + contactability) ÷ 6, rounded';

// ---------------------------------------------------------------- fuzzy pairs

/**
 * Fuzzy pairs are looked for among contacts whose surnames sound alike (soundex) and whose first
 * names are alike (the same, one edit apart, two apart when both have six letters or more, or half their trigrams shared), with whole
 * names at least FUZZY_MIN_SIMILARITY alike. A pair's confidence: 70 × the trigram similarity of "first last" (pg_trgm), plus 20 when
 * both have the same date of birth, plus 10 when both have the same postcode; at most 100. A pair
 * whose dates of birth are both known and differ is not a pair (namesakes).
 */
export function fuzzyConfidence(nameSimilarity: number, sameDob: boolean, samePostcode: boolean): number {
  return Math.min(100, Math.round(70 * nameSimilarity) + (sameDob ? 20 : 0) + (samePostcode ? 10 : 0));
}
export const FUZZY_MIN_SIMILARITY = 0.5;
export const FUZZY_MIN_CONFIDENCE = 50;
/** Pairs at or above this are counted in the duplicates score and put in the review queue. */
export const FUZZY_COUNTED_CONFIDENCE = 70;
