/**
 * The crisis rule set: which wording in a counselling referral means a person must be involved now.
 *
 * It is deliberately conservative. Missing a crisis is the failure that matters, so:
 * - each rule is a plain regular expression over normalised text, listed here, so anyone can read
 *   exactly why a referral was flagged (no score, no model);
 * - a negated mention ("she says she is not suicidal", "denies self-harm") is still a signal, marked
 *   `negated`: people in crisis often play it down, and a person, not a rule, decides it is safe;
 * - wording of distress that often comes before a crisis (hopelessness, "can't go on") counts too.
 * The cost of this bias is a hold a person clears; the cost of the other is someone not reached.
 */

export const CRISIS_CATEGORIES = ['self_harm_or_suicide', 'abuse', 'immediate_danger', 'severe_distress'] as const;
export type CrisisCategory = (typeof CRISIS_CATEGORIES)[number];

interface CrisisRule {
  category: CrisisCategory;
  label: string;
  pattern: RegExp;
}

const SELF = '(?:my|him|her|them|your|our)sel(?:f|ves)|myself|oneself';
const PERSON = '(?:me|him|her|them|us|you|the (?:kids|children|baby|child))';
const FAMILY = '(?:husband|wife|partner|boyfriend|girlfriend|ex|dad|father|step-?dad|mum|mom|mother|step-?mum|parents?|carer|son|daughter|brother|sister|uncle|aunt|family)';

/** Each rule matches normalised text: lower case, straight apostrophes, single spaces. */
export const CRISIS_RULES: readonly CrisisRule[] = [
  // Self-harm and suicide.
  { category: 'self_harm_or_suicide', label: 'suicide', pattern: /\bsuicid\w*/ },
  { category: 'self_harm_or_suicide', label: 'kill oneself', pattern: new RegExp(`\\bkill(?:s|ed|ing)? (?:${SELF})\\b`) },
  { category: 'self_harm_or_suicide', label: 'end one\'s life', pattern: /\b(?:end|ending|ended|take|taking|took) (?:my|his|her|their|your|own) (?:own )?li(?:fe|ves)\b/ },
  { category: 'self_harm_or_suicide', label: 'end it all', pattern: /\bend(?:ing)? it all\b|\bend it now\b|\bfinish it all\b/ },
  { category: 'self_harm_or_suicide', label: 'wants to die', pattern: /\b(?:want|wants|wanted|wanting|wish|wishes|wished|going|ready|plan|plans|planning) to die\b|\b(?:wish|wishes|wished) (?:i|he|she|they) (?:was|were|had) (?:dead|never been born)\b/ },
  { category: 'self_harm_or_suicide', label: 'better off dead', pattern: /\bbetter off (?:dead|without (?:me|him|her|them))\b/ },
  { category: 'self_harm_or_suicide', label: 'no reason to live', pattern: /\bno (?:reason|point) (?:in |to )?(?:living|live|go on|going on|carry on|carrying on)\b|\bnothing (?:left )?to live for\b/ },
  { category: 'self_harm_or_suicide', label: 'does not want to live', pattern: /\b(?:do(?:es)?n'?t|do(?:es)? not|did(?:n'?t| not)|never) want(?:s)? to (?:live|be alive|be here|wake up|exist)\b/ },
  { category: 'self_harm_or_suicide', label: 'self-harm', pattern: /\bself[- ]?harm\w*|\bself[- ]?injur\w*|\bcut(?:s|ting)? (?:myself|himself|herself|themselves|themself)\b/ },
  { category: 'self_harm_or_suicide', label: 'hurting oneself', pattern: new RegExp(`\\b(?:hurt|hurts|hurting|harm|harms|harming|injure|injuring) (?:${SELF})\\b`) },
  { category: 'self_harm_or_suicide', label: 'overdose', pattern: /\boverdos\w*|\bod'?d\b|\b(?:took|taken|take|taking|swallowed) (?:too many|a lot of|all (?:my|his|her|their|the)|loads of) (?:pills|tablets|meds|medication|paracetamol)\b/ },
  { category: 'self_harm_or_suicide', label: 'stockpiling medication', pattern: /\b(?:stockpil|hoard|sav|collect)(?:e|es|ed|ing)? (?:up )?(?:(?:my|his|her|their|the) )?(?:pills|tablets|meds|medication|medicine|paracetamol)\b/ },
  { category: 'self_harm_or_suicide', label: 'method of suicide', pattern: new RegExp(`\\b(?:hang|hanging|hanged|drown|drowning|shoot|shooting|gas) (?:${SELF})\\b|\\bjump(?:ing)? (?:off|in front of|from)\\b`) },
  { category: 'self_harm_or_suicide', label: 'goodbye note', pattern: /\b(?:goodbye|suicide|farewell) (?:note|letter|message)s?\b|\bsaying (?:their |his |her |my )?goodbyes?\b|\bgiv(?:e|ing|en) (?:away )?(?:all )?(?:my|his|her|their) (?:things|belongings|possessions) away\b|\bgiving away (?:my|his|her|their) (?:things|belongings|possessions)\b/ },
  { category: 'self_harm_or_suicide', label: 'not being around', pattern: /\b(?:won'?t|will not|wouldn'?t|not going to) be (?:around|here) (?:much longer|for long|anymore|any more)\b|\beveryone would be better off\b/ },

  // Abuse.
  { category: 'abuse', label: 'abuse', pattern: /\babus(?:e|ed|es|er|ers|ing|ive)\b/ },
  { category: 'abuse', label: 'domestic violence', pattern: /\bdomestic (?:violence|abuse)\b|\bcoercive control\w*|\bcontrolling (?:husband|wife|partner|boyfriend|girlfriend|relationship)\b/ },
  { category: 'abuse', label: 'violence by someone', pattern: new RegExp(`\\b(?:hits?|hitting|beat|beats|beating|beaten|punch(?:es|ed|ing)?|kick(?:s|ed|ing)?|slap(?:s|ped|ping)?|chok(?:es|ed|ing)|strangl(?:es|ed|ing)|push(?:es|ed)|shov(?:es|ed)) ${PERSON}\\b`) },
  { category: 'abuse', label: 'sexual abuse or assault', pattern: /\brap(?:e|ed|es|ing|ist)\b|\bsexual(?:ly)? (?:assault\w*|abus\w*|exploit\w*|harass\w*)|\bmolest\w*|\bgroom(?:ed|ing)\b|\bindecent\w*|\btouch(?:ed|es|ing)? (?:me|him|her|them) (?:inappropriately|sexually)\b/ },
  { category: 'abuse', label: 'afraid of a family member', pattern: new RegExp(`\\b(?:afraid|scared|frightened|terrified) of (?:my|his|her|their) ${FAMILY}\\b|\\b(?:afraid|scared|frightened|terrified) to go home\\b`) },
  { category: 'abuse', label: 'neglect or exploitation', pattern: /\bneglect(?:ed|ing)?\b|\bexploit(?:ed|ation|ing)\b|\btraffick\w*|\bmodern slavery\b|\bfinancial abuse\b/ },
  { category: 'abuse', label: 'child at risk', pattern: /\bchild(?:ren)? (?:at risk|in danger|protection)\b|\bsafeguarding (?:concern|issue|referral|disclosure)\w*|\bdisclos(?:ed|ure|ing) (?:abuse|that)\b/ },

  // Immediate danger.
  { category: 'immediate_danger', label: 'threat to kill or hurt', pattern: new RegExp(`\\bthreat(?:en|ens|ened|ening)? (?:to )?(?:kill|hurt|harm|stab|shoot)\\b|\\b(?:going|gonna|plans?|planning|about) to (?:kill|hurt|harm|stab|shoot) ${PERSON}\\b|\\bthreat(?:en|ens|ened|ening) ${PERSON}\\b`) },
  { category: 'immediate_danger', label: 'weapon', pattern: /\b(?:has|had|with|got|holding|carrying|bought) (?:a |an )?(?:gun|knife|knives|weapon|blade|rope)\b/ },
  { category: 'immediate_danger', label: 'not safe', pattern: /\bnot safe\b|\bunsafe\b|\bin danger\b|\bfear(?:s|ed|ing)? for (?:my|his|her|their) (?:life|lives|safety)\b|\bcan'?t (?:get|keep) (?:away|safe)\b|\blocked (?:me|him|her|them) in\b/ },
  { category: 'immediate_danger', label: 'emergency now', pattern: /\bemergency\b|\bcall(?:ed|ing)? (?:the )?(?:police|ambulance|999|911|112)\b|\b(?:999|911)\b|\bunconscious\b|\bnot breathing\b|\bbleeding (?:heavily|badly|a lot)\b/ },
  { category: 'immediate_danger', label: 'missing person', pattern: /\bmissing (?:since|from|person)\b|\bhas gone missing\b|\bcan'?t (?:find|reach|contact) (?:him|her|them) and\b/ },

  // Severe distress that often comes before a crisis.
  { category: 'severe_distress', label: 'hopelessness', pattern: /\bhopeless\w*|\bno way out\b|\bno hope\b|\bgiv(?:e|en|ing) up on (?:life|everything)\b|\btrapped\b/ },
  { category: 'severe_distress', label: 'cannot go on', pattern: /\bcan'?t (?:go on|carry on|cope (?:anymore|any more|any longer)|take (?:it|this) (?:anymore|any more|any longer)|do this (?:anymore|any more))\b|\bcannot (?:go on|carry on|cope (?:anymore|any more|any longer))\b/ },
  { category: 'severe_distress', label: 'burden to others', pattern: /\b(?:a|such a) burden (?:to|on) (?:everyone|everybody|others|(?:my|his|her|their) family)\b/ },
  { category: 'severe_distress', label: 'psychosis or losing touch', pattern: /\bhearing voices\b|\bvoices (?:telling|tell) (?:me|him|her|them)\b|\bpsychot\w*|\bpsychosis\b/ },
];

/** Words that, shortly before a match, say it is denied; the signal stays, marked negated (see above). */
const NEGATION_BEFORE = /\b(?:not|no|never|denies|denied|deny|without|isn'?t|wasn'?t|aren'?t|don'?t|doesn'?t|didn'?t|no longer|ruled out|free of)\b[^.!?]{0,25}$/;

export interface CrisisSignal {
  category: CrisisCategory;
  label: string;
  /** The words that matched, from the normalised text. */
  matched: string;
  /** A negation came just before it; still counted (see the rule set's comment). */
  negated: boolean;
}

export function normaliseReferralText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\u2018\u2019\u02bc`´]/g, "'").replace(/[\u201c\u201d]/g, '"').replace(/\s+/g, ' ').trim();
}

/** Every rule that matches, once each, in rule order. */
export function findCrisisSignals(text: string): CrisisSignal[] {
  const normalised = normaliseReferralText(text);
  const signals: CrisisSignal[] = [];
  for (const rule of CRISIS_RULES) {
    const match = rule.pattern.exec(normalised);
    if (!match) continue;
    const before = normalised.slice(Math.max(0, match.index - 40), match.index);
    signals.push({ category: rule.category, label: rule.label, matched: match[0], negated: NEGATION_BEFORE.test(before) });
  }
  return signals;
}
