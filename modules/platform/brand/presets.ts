/**
 * The library of brand-voice starter templates: each a complete voice an organisation can adopt
 * as it is (platform_apply_brand_voice_template) and adjust later (platform_set_brand_voice).
 * Every count shown anywhere is this list's length, never a number typed elsewhere.
 */

export const FORMALITIES = ['relaxed', 'warm', 'measured', 'formal'] as const;
export type Formality = (typeof FORMALITIES)[number];

export const EMOJI_USES = ['never', 'sparingly', 'freely'] as const;
export type EmojiUse = (typeof EMOJI_USES)[number];

/** The parts of a voice a writer (person or model) follows; saved profiles have the same fields. */
export interface BrandVoice {
  name: string;
  /** How it should sound, in a sentence or two. */
  tone: string;
  formality: Formality;
  emojiUse: EmojiUse;
  /** Words and habits that fit the voice. */
  vocabularyDo: string[];
  /** Words and habits to avoid. */
  vocabularyDont: string[];
  /** One sentence written in the voice, to imitate. */
  sample: string;
}

export interface BrandVoicePreset extends BrandVoice {
  /** Stable, snake_case: what platform_apply_brand_voice_template takes. */
  id: string;
  /** Who the voice suits, for choosing between presets. */
  suitedTo: string;
}

const preset = (id: string, voice: BrandVoice & { suitedTo: string }): BrandVoicePreset => ({ id, ...voice });

export const BRAND_VOICE_PRESETS: readonly BrandVoicePreset[] = [
  preset('warm_pastoral', {
    name: 'Warm pastoral', suitedTo: 'Most local churches: care, notices and invitations from people who know each other',
    tone: 'Kind, personal and unhurried; writes as a friend who is glad to hear from you and means it.', formality: 'warm', emojiUse: 'sparingly',
    vocabularyDo: ['use first names', 'we would love to see you', 'thinking of you', 'short sentences', 'one clear next step'],
    vocabularyDont: ['jargon from church meetings', 'guilt ("we missed you again")', 'capital letters for emphasis', 'long paragraphs'],
    sample: 'It was lovely to see you on Sunday, Sarah; we are holding you in our prayers this week and would love to catch up over coffee.',
  }),
  preset('formal_anglican', {
    name: 'Formal Anglican', suitedTo: 'Parish churches with a traditional liturgical life',
    tone: 'Courteous, measured and rooted in the seasons of the Church year; dignified without being distant.', formality: 'formal', emojiUse: 'never',
    vocabularyDo: ['the Parish of', 'Holy Communion', 'the Revd', 'seasons such as Advent and Lent', 'complete sentences'],
    vocabularyDont: ['slang', 'exclamation marks', 'emoji', 'abbreviations such as "pls" or "thx"'],
    sample: 'You are warmly invited to the Parish Eucharist on Advent Sunday at 10 o\'clock, followed by refreshments in the church hall.',
  }),
  preset('cathedral_heritage', {
    name: 'Cathedral and heritage', suitedTo: 'Cathedrals, minsters and abbeys welcoming worshippers and visitors alike',
    tone: 'Confident and gracious; proud of a long story while making a first-time visitor feel expected.', formality: 'formal', emojiUse: 'never',
    vocabularyDo: ['Choral Evensong', 'visitors and pilgrims', 'centuries of prayer', 'precise times and places'],
    vocabularyDont: ['casual contractions in notices', 'marketing superlatives', 'assuming insider knowledge'],
    sample: 'Choral Evensong is sung daily at 5.30pm; all are welcome to join the choir and congregation in this ancient place of prayer.',
  }),
  preset('youth_friendly', {
    name: 'Youth-friendly', suitedTo: 'Youth groups and messages to teenagers (and their parents in copy)',
    tone: 'Upbeat, direct and honest; respects young people\'s intelligence and never tries too hard.', formality: 'relaxed', emojiUse: 'freely',
    vocabularyDo: ['short punchy lines', 'what, when, where up front', 'bring a mate', 'say what food there is'],
    vocabularyDont: ['slang that will date by next month', 'talking down', 'walls of text', 'guilt'],
    sample: 'Friday night is back 🎉 7pm in the hall: pizza, games and a proper chat about the big questions. Bring a mate!',
  }),
  preset('charity_fundraising', {
    name: 'Charity fundraising', suitedTo: 'Appeals and donor updates for charities and church projects',
    tone: 'Hopeful and concrete; shows what a gift does, thanks generously and never pressures.', formality: 'warm', emojiUse: 'sparingly',
    vocabularyDo: ['your gift', 'what £10 makes possible', 'thank you', 'real stories shared with consent', 'one clear ask'],
    vocabularyDont: ['shock imagery in words', 'false urgency', 'guilt', 'vague impact claims'],
    sample: 'Your gift of £20 keeps our warm space open for one more evening this winter; thank you for standing with your neighbours.',
  }),
  preset('contemporary_evangelical', {
    name: 'Contemporary evangelical', suitedTo: 'Modern, Bible-centred churches with a strong welcome and small-group life',
    tone: 'Energetic, warm and confident in the good news; invites people to take a next step.', formality: 'relaxed', emojiUse: 'sparingly',
    vocabularyDo: ['church family', 'next steps', 'life groups', 'we would love you to join us', 'Bible references in full'],
    vocabularyDont: ['in-house acronyms', 'insider worship jargon', 'pressure to commit'],
    sample: 'This Sunday we start a new series in Mark\'s Gospel; come along at 10.30, grab a coffee and find a seat with friends.',
  }),
  preset('catholic_parish', {
    name: 'Catholic parish', suitedTo: 'Roman Catholic parishes and their schools and societies',
    tone: 'Reverent and familial; clear about Mass times and sacraments, warm towards families.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['Mass', 'Father (for the parish priest)', 'the sacraments', 'feast days', 'parish family'],
    vocabularyDont: ['terms from other traditions (Communion service, minister)', 'casual treatment of the sacraments'],
    sample: 'Mass for the Solemnity of All Saints will be celebrated at 7pm on Friday; families from the school are especially welcome.',
  }),
  preset('methodist_circuit', {
    name: 'Methodist circuit', suitedTo: 'Methodist churches and circuits with shared ministers and local preachers',
    tone: 'Friendly, practical and socially engaged; speaks of faith lived out in the community.', formality: 'warm', emojiUse: 'sparingly',
    vocabularyDo: ['the circuit', 'local preacher', 'fellowship', 'all are welcome', 'practical details'],
    vocabularyDont: ['assuming everyone knows the preaching plan', 'heavy formality'],
    sample: 'Our local preacher this week is Margaret Hughes; after the service the fellowship lunch raises funds for the night shelter.',
  }),
  preset('baptist_fellowship', {
    name: 'Baptist fellowship', suitedTo: 'Baptist and independent free churches run by their members',
    tone: 'Warm, straightforward and participatory; members are partners in decisions.', formality: 'warm', emojiUse: 'sparingly',
    vocabularyDo: ['church members\' meeting', 'fellowship', 'believers\' baptism', 'together we decided'],
    vocabularyDont: ['hierarchical language', 'unexplained acronyms'],
    sample: 'Please join us for the church members\' meeting on Thursday, where together we will pray and decide on the hall project.',
  }),
  preset('pentecostal_celebration', {
    name: 'Pentecostal celebration', suitedTo: 'Pentecostal and charismatic churches with lively worship',
    tone: 'Joyful, expectant and faith-filled; celebrates what God is doing and invites everyone in.', formality: 'relaxed', emojiUse: 'freely',
    vocabularyDo: ['celebrate', 'praise and worship', 'we are believing for', 'testimonies', 'come expectant'],
    vocabularyDont: ['promises of healing or prosperity', 'pressure to give'],
    sample: 'Sunday\'s celebration starts at 11 with praise and worship 🙌 come expectant and bring your family and friends!',
  }),
  preset('reformed_teaching', {
    name: 'Reformed and teaching-led', suitedTo: 'Presbyterian, reformed and expository-preaching churches',
    tone: 'Thoughtful, clear and doctrinally careful; prizes accuracy and plain explanation.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['Scripture references', 'sermon series', 'plain explanation', 'elders'],
    vocabularyDont: ['hype', 'exclamation marks', 'vague spiritual language'],
    sample: 'On Sunday evening we continue our series in Romans, considering chapter 5 and what it means to have peace with God.',
  }),
  preset('quaker_plain', {
    name: 'Plain speaking', suitedTo: 'Quaker meetings and communities who value simplicity',
    tone: 'Simple, honest and gentle; says what is needed and no more, and avoids titles.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['Friends', 'meeting for worship', 'plain dates', 'first names without titles'],
    vocabularyDont: ['honorifics', 'superlatives', 'persuasion techniques'],
    sample: 'Meeting for worship is held each Sunday at 10.30; anyone is welcome to sit with us in silence.',
  }),
  preset('orthodox_liturgical', {
    name: 'Orthodox liturgical', suitedTo: 'Orthodox parishes and communities keeping the liturgical calendar',
    tone: 'Reverent, traditional and hospitable; grounded in the feasts and fasts of the year.', formality: 'formal', emojiUse: 'never',
    vocabularyDo: ['Divine Liturgy', 'feast', 'fast', 'Vespers', 'Father'],
    vocabularyDont: ['informal shorthand', 'language of other traditions'],
    sample: 'The Divine Liturgy for the Feast of the Nativity will be served at 9am, preceded by Matins.',
  }),
  preset('rural_village', {
    name: 'Rural village', suitedTo: 'Village and multi-parish benefice churches at the heart of small communities',
    tone: 'Neighbourly and down to earth; church news as part of village life.', formality: 'warm', emojiUse: 'sparingly',
    vocabularyDo: ['the village', 'the benefice', 'harvest', 'everyone welcome, churchgoer or not', 'parking and access notes'],
    vocabularyDont: ['city assumptions', 'jargon', 'long notices'],
    sample: 'The harvest supper is in the village hall on Saturday at 6; everyone in the village is welcome, churchgoer or not.',
  }),
  preset('urban_multicultural', {
    name: 'Urban multicultural', suitedTo: 'City congregations of many nations, languages and backgrounds',
    tone: 'Inclusive, clear and celebratory of difference; uses plain English that translates well.', formality: 'warm', emojiUse: 'sparingly',
    vocabularyDo: ['plain English', 'all nations', 'translation available', 'short sentences'],
    vocabularyDont: ['idioms that do not translate', 'assumed cultural references', 'stereotypes'],
    sample: 'This Sunday we pray in many languages; headsets with translation are available at the door.',
  }),
  preset('church_plant', {
    name: 'New church plant', suitedTo: 'Young churches meeting in schools, homes or cafés',
    tone: 'Fresh, honest about being new, and eager to meet the neighbourhood.', formality: 'relaxed', emojiUse: 'sparingly',
    vocabularyDo: ['we are new here', 'meet us', 'come as you are', 'exact venue directions'],
    vocabularyDont: ['assuming people know where you meet', 'church jargon'],
    sample: 'We are a new church meeting at Oakfield Primary on Sundays at 10.30; come as you are and meet us over breakfast.',
  }),
  preset('children_families', {
    name: 'Children and families', suitedTo: 'Children\'s ministry, toddler groups and messages to parents',
    tone: 'Cheerful, reassuring and practical; parents know exactly what happens and that children are safe.', formality: 'relaxed', emojiUse: 'sparingly',
    vocabularyDo: ['what to bring', 'pick-up times', 'safely', 'ages named clearly', 'fun'],
    vocabularyDont: ['children\'s names or photos without consent', 'vague safeguarding promises'],
    sample: 'Messy Church is on Saturday from 3 to 5: crafts, a story and tea for children aged 3 to 11 with their grown-ups.',
  }),
  preset('students_campus', {
    name: 'Students and campus', suitedTo: 'Student ministry, chaplaincies and university churches',
    tone: 'Friendly, smart and low-pressure; respects busy schedules and curious questions.', formality: 'relaxed', emojiUse: 'sparingly',
    vocabularyDo: ['free food', 'drop in', 'questions welcome', 'term dates'],
    vocabularyDont: ['pressure', 'long commitments up front', 'insider language'],
    sample: 'Free lunch and honest questions every Wednesday in term, 12 to 2 at the chaplaincy; drop in whenever suits you.',
  }),
  preset('older_people', {
    name: 'Older people', suitedTo: 'Lunch clubs, home communion and messages to older members',
    tone: 'Respectful, patient and clear; practical help offered without condescension.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['clear dates and times', 'a phone number to call', 'lifts available', 'full words rather than abbreviations'],
    vocabularyDont: ['"the elderly"', 'patronising phrasing', 'links as the only way to respond'],
    sample: 'The Tuesday lunch club meets at noon in the church hall; if you would like a lift, please ring Jean on 01632 960123.',
  }),
  preset('bereavement_care', {
    name: 'Bereavement care', suitedTo: 'Funeral follow-up, memorial services and grief support',
    tone: 'Gentle, quiet and patient; makes room for grief and offers help without expecting a reply.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['the person\'s name', 'remembering', 'no need to reply', 'whenever you are ready'],
    vocabularyDont: ['platitudes ("everything happens for a reason")', 'exclamation marks', 'promotional content'],
    sample: 'We are remembering David with you today; there is no need to reply, but we are here whenever you would like to talk.',
  }),
  preset('food_bank', {
    name: 'Food bank and community support', suitedTo: 'Food banks, pantries and community cupboards',
    tone: 'Respectful and dignity-first; practical information for guests, straightforward asks for donors.', formality: 'warm', emojiUse: 'never',
    vocabularyDo: ['guests', 'neighbours', 'what we need this week', 'opening times', 'no questions asked where true'],
    vocabularyDont: ['"the needy"', 'photos or stories that could identify guests', 'pity'],
    sample: 'This week we are short of tinned fish, UHT milk and toiletries; donations can be left at the church porch any morning.',
  }),
  preset('homelessness_outreach', {
    name: 'Homelessness outreach', suitedTo: 'Night shelters, street teams and drop-in centres',
    tone: 'Human, non-judgemental and safety-minded; speaks of people, not problems.', formality: 'warm', emojiUse: 'never',
    vocabularyDo: ['people experiencing homelessness', 'guests', 'volunteer shifts', 'safeguarding first'],
    vocabularyDont: ['"the homeless"', 'identifying details', 'rescue language'],
    sample: 'The shelter opens on 1 December; we need two more volunteers for the Tuesday overnight shift to keep our guests safe and warm.',
  }),
  preset('mission_partners', {
    name: 'Mission partners', suitedTo: 'Mission agencies and churches supporting partners overseas',
    tone: 'Partnership-minded and respectful; tells partners\' stories with their voice and consent.', formality: 'measured', emojiUse: 'sparingly',
    vocabularyDo: ['partners', 'in their words', 'prayer points', 'specific places and people (with consent)'],
    vocabularyDont: ['saviour narratives', '"the poor" as a group', 'images of need without dignity'],
    sample: 'Our partners in Kisumu ask us to pray for the new clinic\'s first month; in their words, "every visit is a small miracle".',
  }),
  preset('grant_trust', {
    name: 'Grant-making trust', suitedTo: 'Foundations and trusts writing to applicants and trustees',
    tone: 'Precise, fair and courteous; clear criteria, deadlines and decisions.', formality: 'formal', emojiUse: 'never',
    vocabularyDo: ['criteria', 'deadline', 'the trustees', 'we are pleased to confirm', 'reference numbers'],
    vocabularyDont: ['ambiguous commitments', 'casual tone in decisions'],
    sample: 'The trustees are pleased to confirm a grant of £5,000 towards the youth project, payable on receipt of the signed conditions.',
  }),
  preset('hospice_care', {
    name: 'Hospice and care charity', suitedTo: 'Hospices and health-related charities',
    tone: 'Compassionate, calm and trustworthy; honest about care and grateful to supporters.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['care', 'patients and families', 'thank you', 'your support means'],
    vocabularyDont: ['medical claims', 'euphemisms that confuse', 'pressure'],
    sample: 'Your support means our nurses can sit with patients and families through the night; thank you for making that care possible.',
  }),
  preset('volunteer_recruitment', {
    name: 'Volunteer recruitment', suitedTo: 'Rotas, serving teams and calls for helpers',
    tone: 'Encouraging and specific; says exactly what the role involves and how long it takes.', formality: 'warm', emojiUse: 'sparingly',
    vocabularyDo: ['the role in one line', 'how much time it takes', 'training provided', 'who to ask'],
    vocabularyDont: ['vague "we need help"', 'guilt', 'overselling'],
    sample: 'Could you give one Sunday a month to welcome people at the door? It takes an hour, training is provided, and Tom can tell you more.',
  }),
  preset('capital_appeal', {
    name: 'Building and capital appeal', suitedTo: 'Roof, organ, hall and accessibility appeals',
    tone: 'Purposeful and transparent; shows the target, progress and what the building makes possible.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['target and progress', 'what the building will make possible', 'Gift Aid adds 25%', 'thank you'],
    vocabularyDont: ['unexplained totals', 'pressure', 'fear of closure as a tactic'],
    sample: 'We have raised £48,000 of the £60,000 needed for the new accessible entrance; Gift Aid adds 25% to every eligible gift.',
  }),
  preset('ecumenical_partnership', {
    name: 'Ecumenical partnership', suitedTo: 'Churches Together groups, local ecumenical partnerships and joint events',
    tone: 'Generous and even-handed; honours each tradition and speaks of what is shared.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['together', 'each tradition named correctly', 'the churches of the town', 'shared event details'],
    vocabularyDont: ['one tradition\'s jargon as if everyone used it', 'comparisons between churches'],
    sample: 'The churches of the town invite you to the Good Friday walk of witness, leaving the Methodist church at 10am.',
  }),
  preset('clear_administrative', {
    name: 'Clear and administrative', suitedTo: 'Notices, rotas, receipts and anything people need to act on',
    tone: 'Plain, brief and exact; the facts first, kindly put.', formality: 'measured', emojiUse: 'never',
    vocabularyDo: ['dates as "Sunday 7 December"', 'bullet points for steps', 'who to contact', 'deadlines'],
    vocabularyDont: ['padding', 'metaphors', 'burying the action in the last line'],
    sample: 'The rota for December is attached; please tell Anne by Friday 28 November if you cannot make your date.',
  }),
];

/** The voice used when the organisation has saved none: the one most local churches start from. */
export const FALLBACK_TEMPLATE_ID = 'warm_pastoral';

export const PRESET_IDS = BRAND_VOICE_PRESETS.map((p) => p.id) as [string, ...string[]];

export function presetById(id: string): BrandVoicePreset | undefined {
  return BRAND_VOICE_PRESETS.find((p) => p.id === id);
}

/**
 * Words in an organisation's name that point to a preset, most specific first: a denomination
 * or kind of work named outright beats the general "parish" or "charity".
 */
const NAME_CUES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bcathedral\b|\bminster\b|\babbey\b/i, 'cathedral_heritage'],
  [/\bcatholic\b|\bour lady\b|\bsacred heart\b|\boratory\b/i, 'catholic_parish'],
  [/\borthodox\b/i, 'orthodox_liturgical'],
  [/\bmethodist\b|\bcircuit\b/i, 'methodist_circuit'],
  [/\bbaptist\b/i, 'baptist_fellowship'],
  [/\bpentecostal\b|\belim\b|\bassembl(y|ies) of god\b|\bapostolic\b|\bredeemed\b/i, 'pentecostal_celebration'],
  [/\bpresbyterian\b|\breformed\b|\bfree church\b/i, 'reformed_teaching'],
  [/\bquakers?\b|\bfriends meeting\b|\bmeeting house\b/i, 'quaker_plain'],
  [/\bchurches together\b|\becumenical\b/i, 'ecumenical_partnership'],
  [/\bhospice\b/i, 'hospice_care'],
  [/\bfood ?bank\b|\bpantry\b|\bcommunity (cupboard|larder|fridge)\b/i, 'food_bank'],
  [/\bhomeless|\bnight ?shelter\b|\bshelter\b/i, 'homelessness_outreach'],
  [/\bmission(s|ary)?\b/i, 'mission_partners'],
  [/\byouth\b|\bteens?\b/i, 'youth_friendly'],
  [/\bstudents?\b|\buniversity\b|\bcampus\b|\bchaplaincy\b/i, 'students_campus'],
  [/\bfoundation\b|\btrust\b/i, 'grant_trust'],
  [/\bappeal\b|\bcharity\b|\bfund\b/i, 'charity_fundraising'],
  [/\bparish\b|\banglican\b|\bchurch of england\b|\bbenefice\b|\bst\.? \w+|\bsaint \w+|\ball saints\b|\bholy trinity\b|\bchrist church\b/i, 'formal_anglican'],
];

/** A preset that fits what is known of the organisation (its name), with the reason in words. */
export function suggestTemplate(org: { name: string }): { templateId: string; reason: string } {
  for (const [cue, templateId] of NAME_CUES) {
    const match = cue.exec(org.name);
    if (match) return { templateId, reason: `The organisation's name contains "${match[0].trim()}".` };
  }
  return { templateId: FALLBACK_TEMPLATE_ID, reason: 'Nothing in the organisation\'s name points elsewhere, so the voice most local churches start from.' };
}
