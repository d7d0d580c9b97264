import type { RuleSet } from '../segment-rules';

/**
 * Turns a request in everyday words ("young families who came at Christmas and haven't been back")
 * into segment rules over real contact fields, each with the words it came from and what it means,
 * so a person can check the reading before anything is saved. The reading is a fixed, explainable
 * table of phrases (no model decides who is in a segment); words it does not read as a field are
 * kept as free text, searched in notes and interests.
 */
type Rule = RuleSet['rules'][number];

export interface Reading {
  phrase: string;
  meaning: string;
  rules: Rule[];
}

export interface Interpretation {
  rules: RuleSet | null;
  readings: Reading[];
  freeText: string | null;
}

/** The most recent Christmas season (15–31 December) that has begun by `today`. */
function christmasSeason(today: Date): [string, string] {
  const year = today.getUTCMonth() === 11 && today.getUTCDate() >= 15 ? today.getUTCFullYear() : today.getUTCFullYear() - 1;
  return [`${year}-12-15`, `${year}-12-31`];
}

/** Easter Sunday of a year (the Gregorian computus). */
function easterSunday(year: number): Date {
  const a = year % 19, b = Math.floor(year / 100), c = year % 100, d = Math.floor(b / 4), e = b % 4;
  const f = Math.floor((b + 8) / 25), g = Math.floor((b - f + 1) / 3), h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4), k = c % 4, l = (32 + 2 * e + 2 * i - h - k) % 7, m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31), day = ((h + l - 7 * m + 114) % 31) + 1;
  return new Date(Date.UTC(year, month - 1, day));
}

/** Holy Week to the Sunday after Easter, of the most recent Easter that has begun by `today`. */
function easterSeason(today: Date): [string, string] {
  let easter = easterSunday(today.getUTCFullYear());
  if (easter.getTime() - 7 * 86_400_000 > today.getTime()) easter = easterSunday(today.getUTCFullYear() - 1);
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  return [iso(new Date(easter.getTime() - 7 * 86_400_000)), iso(new Date(easter.getTime() + 7 * 86_400_000))];
}

interface Pattern {
  pattern: RegExp;
  read: (match: RegExpExecArray, today: Date) => { meaning: string; rules: Rule[] } | null;
}

const PERIOD_DAYS: Record<string, number> = { day: 1, days: 1, week: 7, weeks: 7, month: 30, months: 30, year: 365, years: 365 };

// Order matters: longer, more specific phrases are read first and their words taken out.
const PATTERNS: Pattern[] = [
  {
    pattern: /\b(?:(?:have ?n[o']t|haven't|hasn't|has not|have not|did ?n[o']t|didn't|never) (?:been|come|came|returned|visited)(?: back| again)?|not (?:been|come) back|never (?:came )?back|not returned|(?:only|just) (?:came|visited|been) once)\b/,
    read: () => ({ meaning: 'no return visit recorded: membership stage is still first-time visitor', rules: [{ field: 'membershipStatus', operator: 'equals', value: 'first_time_visitor' }] }),
  },
  {
    pattern: /\byoung famil(?:y|ies)\b/,
    read: () => ({ meaning: 'in a household whose youngest member is under 12', rules: [{ field: 'youngestInHouseholdAge', operator: 'less_than', value: 12 }] }),
  },
  {
    pattern: /\b(?:families|family|households?|parents)(?: with (?:young |small )?(?:children|kids))?\b/,
    read: (match) => /children|kids/.test(match[0])
      ? { meaning: 'in a household with someone under 18', rules: [{ field: 'youngestInHouseholdAge', operator: 'less_than', value: 18 }] }
      : { meaning: 'in a household of two or more people', rules: [{ field: 'householdSize', operator: 'greater_than', value: 1 }] },
  },
  {
    pattern: /\b(?:(?:came|come|visited|first came|joined us|started coming)\s+)?(?:at|over|for|around)\s+christmas\b|\bchristmas (?:visitors?|guests?|newcomers?)\b/,
    read: (_m, today) => {
      const [from, to] = christmasSeason(today);
      return { meaning: `first visit between ${from} and ${to} (the last Christmas season)`, rules: [{ field: 'firstVisitDate', operator: 'between', value: [from, to] }] };
    },
  },
  {
    pattern: /\b(?:(?:came|come|visited|first came)\s+)?(?:at|over|for|around)\s+easter\b|\beaster (?:visitors?|guests?)\b/,
    read: (_m, today) => {
      const [from, to] = easterSeason(today);
      return { meaning: `first visit between ${from} and ${to} (the last Easter)`, rules: [{ field: 'firstVisitDate', operator: 'between', value: [from, to] }] };
    },
  },
  {
    pattern: /\b(?:first[- ]time visitors?|newcomers?|new visitors?)\b/,
    read: () => ({ meaning: 'membership stage is first-time visitor', rules: [{ field: 'membershipStatus', operator: 'equals', value: 'first_time_visitor' }] }),
  },
  {
    pattern: /\b(?:lapsed|inactive|drifted away|stopped coming)\b/,
    read: () => ({ meaning: 'membership stage is inactive', rules: [{ field: 'membershipStatus', operator: 'equals', value: 'inactive' }] }),
  },
  {
    pattern: /\b(?:regulars?|regular attenders?)\b/,
    read: () => ({ meaning: 'membership stage is regular attender', rules: [{ field: 'membershipStatus', operator: 'equals', value: 'regular_attender' }] }),
  },
  {
    pattern: /\b(?:visitors?|guests?)\b/,
    read: () => ({ meaning: 'membership stage is first-time or returning visitor', rules: [{ field: 'membershipStatus', operator: 'in', value: ['first_time_visitor', 'returning_visitor'] }] }),
  },
  {
    pattern: /\bmembers\b/,
    read: () => ({ meaning: 'membership stage is member', rules: [{ field: 'membershipStatus', operator: 'equals', value: 'member' }] }),
  },
  {
    pattern: /\b(?:over|older than|above|aged over)\s+(\d{1,3})\b/,
    read: (m) => ({ meaning: `older than ${m[1]}`, rules: [{ field: 'age', operator: 'greater_than', value: Number(m[1]) }] }),
  },
  {
    pattern: /\b(?:under|younger than|below|aged under)\s+(\d{1,3})\b/,
    read: (m) => ({ meaning: `younger than ${m[1]}`, rules: [{ field: 'age', operator: 'less_than', value: Number(m[1]) }] }),
  },
  {
    pattern: /\bin their (\d)0s\b/,
    read: (m) => ({ meaning: `aged ${m[1]}0 to ${m[1]}9`, rules: [{ field: 'age', operator: 'between', value: [Number(m[1]) * 10, Number(m[1]) * 10 + 9] }] }),
  },
  {
    pattern: /\b(?:young adults?|young people|twenty-?somethings)\b/,
    read: () => ({ meaning: 'aged 18 to 30', rules: [{ field: 'age', operator: 'between', value: [18, 30] }] }),
  },
  {
    pattern: /\b(?:teen(?:ager)?s|youth)\b/,
    read: () => ({ meaning: 'aged 13 to 19', rules: [{ field: 'age', operator: 'between', value: [13, 19] }] }),
  },
  {
    pattern: /\b(?:elderly|older people|seniors?|pensioners?|retired)\b/,
    read: () => ({ meaning: 'older than 65', rules: [{ field: 'age', operator: 'greater_than', value: 65 }] }),
  },
  {
    pattern: /\b(?:women|ladies|female)\b/,
    read: () => ({ meaning: 'gender is female', rules: [{ field: 'gender', operator: 'equals', value: 'female' }] }),
  },
  {
    pattern: /\b(?:men|gents|male)\b/,
    read: () => ({ meaning: 'gender is male', rules: [{ field: 'gender', operator: 'equals', value: 'male' }] }),
  },
  {
    pattern: /\b(?:unsubscribed|opted out)\b/,
    read: () => ({ meaning: 'consent status is unsubscribed', rules: [{ field: 'status', operator: 'equals', value: 'unsubscribed' }] }),
  },
  {
    pattern: /\b(?:subscribed|on the mailing list|get(?:s|ting)? the newsletter)\b/,
    read: () => ({ meaning: 'consent status is subscribed', rules: [{ field: 'status', operator: 'equals', value: 'subscribed' }] }),
  },
  {
    pattern: /\b(?:on whatsapp|whatsapp consent|opted in to whatsapp)\b/,
    read: () => ({ meaning: 'has consented to WhatsApp', rules: [{ field: 'whatsappConsent', operator: 'is_true' }] }),
  },
  {
    pattern: /\b(?:no|without|missing)(?: an?)? (email|phone)(?: address| number)?\b/,
    read: (m) => ({ meaning: `has no ${m[1]}`, rules: [{ field: m[1] === 'email' ? 'email' : 'phone', operator: 'is_empty' }] }),
  },
  {
    pattern: /\b(?:not|never been|un)\s?baptised\b/,
    read: () => ({ meaning: 'no baptism date recorded', rules: [{ field: 'baptismDate', operator: 'is_empty' }] }),
  },
  {
    pattern: /\bbaptised\b/,
    read: () => ({ meaning: 'a baptism date is recorded', rules: [{ field: 'baptismDate', operator: 'is_not_empty' }] }),
  },
  {
    pattern: /\b(?:added|joined|new)(?: to the crm)? in the (?:last|past) (\d{1,3}) (days?|weeks?|months?|years?)\b/,
    read: (m) => {
      const days = Math.min(Number(m[1]) * PERIOD_DAYS[m[2]!]!, 36_500);
      return { meaning: `added to the CRM in the last ${days} days`, rules: [{ field: 'createdAt', operator: 'within_last_days', value: days }] };
    },
  },
  {
    pattern: /\b(?:living|who live|based|from) in ([a-z][a-z' -]{1,40}?)(?=$|[,.;]| who | and | with | that )/,
    read: (m) => ({ meaning: `town or city is ${m[1]!.trim()}`, rules: [{ field: 'addressCity', operator: 'equals', value: m[1]!.trim() }] }),
  },
  {
    pattern: /\b(?:tagged|with the tag) ["']?([a-z0-9][a-z0-9 _-]{0,60}?)["']?(?=$|[,.;]| who | and | with | that )/,
    read: (m) => ({ meaning: `tagged ${m[1]!.trim()}`, rules: [{ field: 'tag', operator: 'includes', value: m[1]!.trim() }] }),
  },
  {
    pattern: /\bin the ["']?([a-z0-9][a-z0-9 _-]{0,60}?)["']? (?:crm )?group\b/,
    read: (m) => ({ meaning: `in the CRM group ${m[1]!.trim()}`, rules: [{ field: 'crmGroup', operator: 'includes', value: m[1]!.trim() }] }),
  },
];

const STOPWORDS = new Set(('a an and or the who whom whose which that this those these with without of in at on for to from by about as is are was were be been being have has had '
  + 'do does did not no our my your their his her its it they them we us me i you all any some every everyone everybody people person persons contacts contact folk folks '
  + 'ones one show find list give get me please can could would like want who\'ve who\'re also still yet just only really very interested interest into keen love loves likes like').split(/\s+/));

/** Reads the request; `today` fixes the seasons (Christmas, Easter) it refers to. */
export function interpretRequest(request: string, today: Date = new Date()): Interpretation {
  let rest = ` ${request.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim()} `;
  const readings: Reading[] = [];
  for (const { pattern, read } of PATTERNS) {
    const match = pattern.exec(rest);
    if (!match) continue;
    const reading = read(match, today);
    if (!reading) continue;
    readings.push({ phrase: match[0].trim(), ...reading });
    rest = `${rest.slice(0, match.index)} ${rest.slice(match.index + match[0].length)}`;
  }
  const words = rest.split(/[^a-z0-9'-]+/).map((word) => word.replace(/^['-]+|['-]+$/g, '')).filter((word) => word.length > 1 && !STOPWORDS.has(word));
  const rules = readings.flatMap((reading) => reading.rules);
  return { rules: rules.length > 0 ? { match: 'all', rules } : null, readings, freeText: words.length > 0 ? words.join(' ') : null };
}
