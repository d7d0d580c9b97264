/**
 * How tool and route search reads a request. Catalogue text uses the product's own words (contact,
 * tag, outreach, segment, batch); people asking for help use theirs (member, label, text message,
 * mailing list, collection). This module turns a request into weighted index terms: the words as
 * written, plus the product words a church office means by them.
 */

const STOP_WORDS = new Set([
  'a', 'an', 'the', 'of', 'to', 'for', 'in', 'on', 'at', 'by', 'with', 'and', 'or', 'is', 'are', 'be', 'it', 'its',
  'this', 'that', 'these', 'those', 'our', 'my', 'me', 'we', 'i', 'you', 'your', 'their', 'from', 'as', 'into', 'all', 'can',
  'do', 'does', 'how', 'what', 'which', 'who', 'want', 'need', 'please', 'some', 'someone', 'one', 'use', 'when', 'only',
  // Conversational filler: frequent in requests, never what tells one tool from another.
  'us', 'them', 'they', 'he', 'she', 'her', 'his', 'him', 'there', 'here', 'have', 'has', 'had', 'was', 'were', 'been',
  'so', 'if', 'but', 'just', 'could', 'would', 'should', 'will', 'let', 'show', 'tell', 'got', 'any', 'anything',
  'anyone', 'everyone', 'everything', 'again', 'also', 'now', 'still', 'about', 'up', 'over', 'actually', 'yes', 'don',
  'doesn', 'isn', 'haven', 'hasn', 'can\'t', 'll', 've', 're', 'thing', 'things', 'something', 'lately', 'recently', 'soon',
  'mr', 'mrs', 'ms', 'miss', 'dr', 'rev',
]);

/** A deliberately small stemmer: enough that "notes" finds "note" and "birthdays" finds "birthday". */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('es') && /(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Index-side term processing: lower case, no possessive, no stop word, stemmed. */
export function processTerm(term: string): string | null {
  const word = term.toLowerCase().replace(/'s$/, '');
  if (word.length < 2 || STOP_WORDS.has(word)) return null;
  return stem(word);
}

/** Splits catalogue text (names with underscores, paths with slashes) into words. */
export function tokenize(text: string): string[] {
  return text.split(/[\s_\-/,.;:()'"?!{}]+/);
}

/**
 * The domain thesaurus: on the left, what people say (a phrase, or a single word matched after
 * stemming); on the right, the product's words it stands for. Verbs first (the operation), then
 * the nouns of each area. Only meanings, never tool names, so it holds as modules arrive.
 */
const THESAURUS: ReadonlyArray<readonly [string[], string]> = [
  // Taking things away.
  [['get rid of', 'wipe', 'erase', 'bin', 'scrap', 'drop', 'scrub', 'ditch', 'purge', 'disband', 'throw away', 'take off', 'take out', 'strike off'], 'delete remove'],
  [['forgotten', 'forget me', 'right to be forgotten'], 'erase gdpr delete'],
  [['turn down', 'refuse', 'say no', 'knock back', 'veto', 'don\'t send', 'do not send', 'shouldn\'t go'], 'decline reject'],
  [['okay', 'ok', 'sign off', 'go ahead', 'green light', 'accept', 'approve', 'looks good'], 'approve'],
  [['amend', 'fix', 'correct', 'reword', 'tweak', 'modify', 'alter', 'misspelt', 'misspelled', 'typo', 'new number', 'new address', 'moved house'], 'update edit change'],
  [['set up', 'start', 'launch', 'register', 'put into', 'sign up', 'make', 'enter', 'new starter'], 'create add new'],
  [['look up', 'look someone up', 'is there anyone', 'track down', 'called', 'find', 'look for', 'locate'], 'search find'],
  [['manually', 'by hand', 'whatever the rules'], 'hand'],
  [['pull up', 'bring up', 'open up', 'details of'], 'get'],
  [['on hold', 'suspend', 'freeze', 'pause', 'halt', 'hold off'], 'pause status'],
  [['kill', 'revoke', 'deactivate', 'disable', 'cut off'], 'revoke delete remove'],
  [['how often', 'less often', 'more often', 'frequency', 'every day', 'every week'], 'interval schedule'],
  [['recent', 'latest', 'newest', 'lately'], 'newest'],
  [['came to', 'add up to', 'what it made', 'how much was'], 'total'],
  [['restart', 'start again', 'pick up again', 'unpause'], 'resume'],
  [['for good', 'withdraw', 'call off', 'pull', 'stop', 'scrap'], 'cancel'],
  [['combine', 'dedupe', 'de-duplicate', 'in twice', 'duplicate', 'same person'], 'merge duplicate'],
  [['upload', 'bring in', 'load in'], 'import csv'],
  // A spreadsheet or Excel file says the format, not the direction: "upload this spreadsheet", "a spreadsheet of members".
  [['spreadsheet', 'excel'], 'csv'],
  [['download', 'extract', 'dump'], 'export csv'],
  [['tick off', 'done', 'finished', 'dealt with', 'went well', 'completed'], 'complete'],
  [['connect', 'link up', 'add that', 'related to'], 'link family relationship'],
  [['split up', 'separated', 'divorced', 'undo it', 'by mistake'], 'unlink remove'],
  [['give back', 'return', 'returned', 'reverse', 'repay', 'money back', 'disputed', 'chargeback'], 'refund'],
  [['retire', 'shelve', 'mothball', 'wind down', 'no longer use', 'don\'t use'], 'archive'],
  [['recalculate', 'rerun', 'rebuild', 'refresh', 'up to date'], 'refresh'],
  [['copy', 'clone'], 'duplicate copy'],
  [['run now', 'rather than waiting', 'right away', 'straight away'], 'run now'],
  [['send off', 'file', 'lodge', 'submit'], 'submit'],
  [['finalise', 'finalize', 'bank it', 'banked', 'close off', 'lock'], 'commit'],
  [['key in', 'type in', 'enter', 'log'], 'record add entry'],
  [['on the system', 'onto the system', 'on our books', 'on the books', 'on file'], 'contact add'],
  // People and their records.
  [['member', 'person', 'people', 'attender', 'folk', 'parishioner', 'congregant', 'congregation', 'somebody', 'individual', 'directory', 'database', 'system', 'profile'], 'contact person'],
  [['husband', 'wife', 'spouse', 'dad', 'mum', 'mom', 'mother', 'father', 'son', 'daughter', 'kid', 'children', 'child',
    'parent', 'grandmother', 'grandfather', 'grandma', 'grandpa', 'grandparent', 'sibling', 'brother', 'sister', 'relative',
    'married', 'aunt', 'uncle', 'nephew', 'niece', 'cousin', 'in-law', 'partner', 'relation', 'related'], 'family relationship relative'],
  [['household', 'roof', 'same address', 'lives with', 'live with', 'living with', 'home', 'under one roof'], 'household'],
  [['surname', 'family name', 'maiden name', 'last name', 'first name', 'forename', 'misspelt', 'spelling'], 'name'],
  [['mobile', 'cell', 'phone number', 'landline', 'telephone number'], 'phone'],
  [['label', 'badge', 'flag'], 'tag'],
  [['heading', 'grouping of tags', 'tag group'], 'category'],
  [['audience', 'smart list', 'mailing list', 'saved list', 'dynamic list', 'filter list'], 'segment'],
  [['would reach', 'actually reach', 'would get it', 'would receive', 'who\'d be missed', 'would be missed', 'how many would get'], 'preview audience broadcast'],
  [['catch', 'would match', 'would include', 'before saving', 'what would', 'would we', 'what if', 'if we', 'try out', 'dry run'], 'preview'],
  [['filter on', 'criteria', 'conditions'], 'field rule operator'],
  [['ready-made', 'ready made', 'starting point', 'preset'], 'template'],
  [['team', 'crew', 'rota', 'choir', 'band', 'ministry', 'department', 'committee', 'squad', 'serves', 'serve', 'volunteers'], 'crm group team ministry'],
  [['rota', 'schedule', 'roster'], 'schedule volunteer'],
  // The organisation's own team: the staff and volunteers who sign in to Steward.
  [['team member', 'staff member', 'colleague', 'staff', 'user', 'sign in', 'log in', 'access'], 'team member staff user invite access'],
  [['step down', 'stepping down', 'leave', 'leaving', 'left', 'has left', 'quit', 'shouldn\'t be able', 'no longer be able'], 'remove leave'],
  [['demote', 'promote', 'lesser role', 'more access', 'less access', 'make her an admin', 'make him an admin', 'admin rights'], 'role update change'],
  [['hand over', 'hand to', 'pass to', 'pass on to', 'put in charge', 'responsible for', 'in charge of'], 'assign owner'],
  [['who looks after', 'who serves', 'who is on', 'who is in', 'who belongs'], 'members'],
  [['kids church', 'kids\' church', 'children\'s church', 'sunday school', 'creche', 'crèche'], 'check-in children'],
  [['visitor', 'newcomer', 'first time', 'first-time', 'first timer', 'guest', 'got in touch', 'joined us'], 'visitor welcome newcomer'],
  [['postcode', 'post code', 'zip', 'town', 'city'], 'postcode'],
  [['extra field', 'profile field', 'attribute', 'custom field'], 'custom field definition'],
  [['birthday', 'turning', 'turns', 'birthday card', 'how old'], 'birthday'],
  [['stopped getting', 'opted out', 'opt out', 'unsubscribed'], 'unsubscribe'],
  [['said yes', 'agreed', 'consented', 'permission'], 'consent opt'],
  // Pastoral care and messages.
  [['talked about', 'conversation', 'jot down', 'written about', 'wrote', 'jot'], 'note'],
  [['visited'], 'note visit'],
  [['history', 'what happened', 'what has happened', 'everything that'], 'timeline history'],
  [['message', 'text', 'sms', 'email', 'letter', 'wording', 'queued', 'drafted', 'draft'], 'outreach message'],
  [['check on', 'check in on', 'wellbeing', 'welfare', 'slipped through', 'through the cracks', 'not seen', 'haven\'t seen', 'lost touch', 'pastoral contact', 'no contact'], 'welfare'],
  [['bereavement', 'grief', 'mourning', 'grieving', 'loss', 'funeral'], 'grief bereavement'],
  [['automatic', 'automatically', 'automation', 'recurring message', 'every month', 'every quarter', 'monthly check'], 'automation schedule'],
  [['calls to make', 'call to make', 'overdue', 'due this week', 'to do'], 'follow-up due'],
  [['reminder', 'reminders', 'said i would', 'promised to', 'chase up', 'get back to'], 'followup follow-up'],
  [['passed away', 'died', 'death', 'baby', 'born', 'wedding', 'engaged', 'engagement', 'new job', 'job change', 'lost his job',
    'lost her job', 'redundant', 'moved house', 'moving house', 'surgery', 'operation', 'diagnosis', 'diagnosed', 'baptised', 'christened',
    'christening', 'retired', 'retirement', 'big things', 'milestone'], 'life event'],
  [['went to see', 'popped in', 'popped round', 'called round', 'called on', 'dropped in', 'home visit', 'hospital visit', 'sat with'], 'visit pastoral'],
  [['pray', 'praying', 'prayed', 'pray for', 'prayer need'], 'prayer request'],
  [['dbs', 'background check', 'criminal record check', 'vetting', 'pvg', 'disclosure check', 'certificate'], 'safeguarding check'],
  [['child protection', 'vulnerable adults', 'safeguarding procedure'], 'safeguarding policy'],
  [['end her life', 'end his life', 'end their life', 'suicidal', 'self harm', 'self-harm', 'harm herself', 'harm himself', 'in danger',
    'being abused', 'abuse', 'disclosure', 'crisis', 'distress', 'at risk'], 'crisis counseling referral'],
  // Words of someone at risk of taking their own life. As phrases, "kill" in them is never the "kill" of
  // revoking a key, which would put team and key removal above the one tool that helps.
  [['kill herself', 'kill himself', 'kill themselves', 'kill themself', 'kill myself', 'killing herself', 'killing himself',
    'killing themselves', 'ending her life', 'ending his life', 'ending their life', 'ending my life', 'end my life',
    'take her own life', 'take his own life', 'take their own life', 'taking her own life', 'taking his own life',
    'taking their own life', 'own life', 'wants to die', 'want to die', 'end it all', 'ending it all', 'hurt herself',
    'hurt himself', 'hurting herself', 'hurting himself', 'suicide', 'overdose'], 'crisis counseling referral'],
  [['helpline', 'hotline', 'samaritans', 'where to turn', 'support line'], 'counseling resource'],
  [['paused because', 'on hold', 'held back', 'messages can go', 'can go again'], 'crisis hold'],
  [['pastoral team', 'care team', 'visiting team', 'visitor team', 'looks after him', 'looks after her'], 'care team'],
  [['pastoral visitor', 'looking after', 'look after', 'keeps an eye on', 'keep an eye on'], 'care team member assignment'],
  [['might need', 'may need', 'need support soon', 'heading for', 'going downhill', 'warning signs'], 'care prediction'],
  // Giving.
  [['offering', 'tithe', 'gift', 'donation', 'contribution', 'give', 'given', 'giving', 'donated', 'gave'], 'donation gift'],
  [['collection', 'plate', 'envelope', 'cheque', 'cash', 'takings', 'deposit'], 'batch donation'],
  [['donor', 'giver', 'supporter', 'benefactor', 'contributor', 'generous', 'biggest'], 'giver donor'],
  [['appeal', 'fundraiser', 'fundraising', 'capital campaign', 'drive'], 'campaign pledge appeal'],
  [['promise', 'promised', 'commitment', 'committed to give'], 'pledge'],
  [['not finalised', 'haven\'t finalised', 'not yet banked', 'still open', 'unfinished', 'not committed', 'in progress'], 'uncommitted open'],
  [['has given', 'have given', 'has donated', 'have donated', 'has gave', 'given so far'], 'giving history'],
  [['how near'], 'progress goal'],
  [['target', 'goal', 'how close', 'how far'], 'progress goal'],
  [['standing order', 'direct debit', 'regular gift', 'regular giving', 'monthly donation', 'subscription', 'regular'], 'recurring gift'],
  [['tax receipt', 'annual receipt', 'donation receipt', 'receipt', 'year-end letter'], 'statement'],
  [['taxman', 'tax man', 'hmrc', 'tax back', 'reclaim', 'inland revenue'], 'gift aid claim hmrc'],
  [['gift aid form', 'taxpayer', 'pays uk tax', 'pay tax', 'uk tax'], 'gift aid declaration'],
  [['over the phone', 'by phone', 'oral', 'verbal', 'telephone'], 'oral declaration confirm'],
  [['small donations', 'loose cash', 'loose change', 'gasds'], 'gasds small donations'],
  [['thank', 'thank-you', 'most generous', 'top', 'biggest donors', 'major'], 'top givers thank'],
  [['envelope number', 'giving number', 'donor number'], 'giver reference'],
  [['by fund', 'per fund', 'each fund', 'this quarter', 'breakdown', 'broken down'], 'summary total fund'],
  [['how much came in', 'compared with', 'compared to', 'total', 'totals', 'income', 'takings', 'how much did we'], 'summary total'],
  [['sign-off limit', 'threshold', 'needs sign-off', 'treasurer approval', 'above which'], 'approval threshold settings'],
  [['currency', 'pounds or dollars'], 'currency settings'],
  [['stripe', 'bank statement', 'card processor', 'payouts', 'bank file'], 'import csv'],
  // Channels: sending to people who agreed to hear from us.
  [['text', 'texts', 'texting', 'text message', 'sms'], 'sms'],
  [['mailout', 'mail-out', 'mailshot', 'mass text', 'mass email', 'bulk email', 'bulk text', 'blast', 'whole congregation', 'whole church', 'round robin'], 'broadcast'],
  [['no more texts', 'no more emails', 'no more messages', 'ever again', 'never again', 'never be contacted'], 'suppression block'],
  [['replied stop', 'texted stop', 'sent stop', 'block list', 'blocked', 'bounced', 'do not contact'], 'suppression'],
  [['send from', 'sending domain', 'from address', 'sender id', 'our number'], 'sender'],
  [['spf', 'dkim', 'dmarc', 'dns'], 'sender domain verify'],
  [['late at night', 'quiet hours', 'at night', 'too early', 'too late'], 'quiet hours settings'],
  [['messaged us', 'messaged yesterday', 'reply on whatsapp', '24 hours', 'conversation window'], 'whatsapp window'],
  // Templates: wordings kept for reuse, in versions.
  [['wording', 'wordings', 'saved wording', 'reusable', 'standard letter', 'stock reply', 'boilerplate'], 'template version'],
  [['will look', 'look like', 'how it looks', 'see how', 'sample'], 'preview render'],
  [['start using', 'go live', 'switch over', 'use the new', 'make it live'], 'activate'],
  [['ready to use', 'any problems', 'proofread', 'check the wording', 'sanity check'], 'validate lint'],
  [['what changed', 'changes between', 'compare versions', 'difference between'], 'diff version'],
  // Sunday operations: services, check-in, guests and attendance.
  [['service times', 'regular services', 'weekly service', 'every sunday', 'sunday service', 'morning service', 'evening service', 'each week'], 'series service'],
  [['coming up', 'next few weeks', 'upcoming', 'next sunday', 'this sunday'], 'upcoming instance service'],
  [['calendar file', 'ical', 'ics', 'outlook calendar', 'google calendar'], 'ical export calendar'],
  [['check in', 'checking in', 'checked in', 'signed in', 'sign the children in', 'sign in the', 'arrived', 'arrival', 'drop off', 'dropped off', 'register at the door'], 'check checkin'],
  [['collecting', 'collect', 'pick up', 'picking up', 'picked up', 'going home', 'here for', 'come for', 'home time'], 'check-out child code'],
  [['room', 'rooms', 'hall', 'crèche', 'creche', 'nursery', 'toddler room'], 'location room'],
  [['adult for every', 'adults per', 'ratio', 'places', 'how many fit', 'capacity'], 'location ratio capacity'],
  [['kiosk', 'ipad', 'tablet', 'self check-in', 'check-in desk'], 'station check checkin'],
  [['headcount', 'counted', 'turnout', 'how many came', 'numbers at', 'attendance'], 'attendance headcount'],
  [['follow-up stages', 'stages', 'steps', 'journey', 'assimilation', 'newcomers moving', 'next steps'], 'pipeline stage'],
  [['connect card', 'welcome card', 'visitor card', 'contact card', 'filled in a card', 'card at the door'], 'welcome card submission'],
  [['welcome team', 'door team', 'stewards', 'welcomers', 'sidespeople', 'greeters', 'on duty'], 'volunteer schedule welcome'],
  // Events with tickets, rooms and buildings.
  [['ceilidh', 'barn dance', 'quiz night', 'concert', 'gig', 'gala', 'dinner dance', 'ticketed', 'tickets', 'seats'], 'ticket event'],
  [['booked for', 'bought tickets', 'who is coming to', 'who\'s coming to', 'guest list', 'attendee list'], 'order ticket'],
  [['hall hire', 'hire the hall', 'hiring', 'hirer'], 'booking room'],
  [['clash', 'clashes', 'double booked', 'double-booked', 'overlap'], 'conflict'],
  // The shop.
  [['bookstall', 'bookshop', 'merch', 'merchandise'], 'store shop product'],
  [['in stock', 'stock level', 'sold out', 'restock', 'stocktake'], 'inventory'],
  // Services: plans and streams.
  [['order of service', 'running order', 'service sheet', 'setlist', 'set list', 'worship songs'], 'plan item song'],
  [['can\'t make it', 'unavailable', 'on holiday', 'away that', 'blocked out'], 'blockout'],
  [['on air', 'streaming', 'livestream', 'live stream', 'youtube', 'facebook live', 'online service'], 'stream live'],
  // Campaigns, forms and pages.
  [['newsletter', 'email campaign', 'mailchimp', 'open rate', 'click rate', 'opened it', 'clicked'], 'campaign'],
  [['sign-up form', 'signup form', 'web form', 'online form', 'enquiry form', 'registration form'], 'form'],
  [['web page', 'microsite', 'page on the website'], 'landing page'],
  // Media.
  // Not "recording" (its stem is record, as in recording a gift) nor "talk" (talk to the vicar).
  [['sermon audio', 'podcast', 'sermon recording', 'audio recording'], 'media episode audio'],
  [['captions', 'subtitles'], 'transcript'],
  // The organisation's own plan, and the trail of changes.
  [['subscription', 'our plan', 'invoice', 'upgrade', 'downgrade', 'pay steward'], 'billing plan'],
  [['text credits', 'sms credits', 'message credits', 'text message credits'], 'messaging credits usage'],
  [['who changed', 'who did', 'who edited', 'who deleted', 'paper trail', 'audit trail', 'history of changes'], 'audit event'],
  // Not "mass": in a church it is a service.
  [['en masse', 'all at once', 'in one go', 'mass tagging', 'mass update'], 'bulk'],
  // The platform and its agents.
  [['bot', 'assistant', 'ai', 'robot', 'autopilot'], 'agent'],
  [['notice board', 'on the board', 'goes up', 'go up', 'waiting for me to check', 'before it goes'], 'moderation queue post'],
  [['suggestion', 'suggested', 'recommendation', 'proposed', 'sign off on', 'waiting on me'], 'proposal'],
  [['acting on its own', 'on its own', 'only suggest', 'switch off', 'turn off', 'switch on', 'turn on'], 'autonomy mode agent'],
  [['key', 'login', 'token', 'credential', 'allowed', 'permitted', 'let me touch', 'access'], 'session scope permission'],
  [['limit', 'left on our plan', 'run out', 'quota', 'allowance', 'remaining'], 'usage allowance'],
  [['endpoint', 'url', 'web endpoint', 'raw api', 'admin screens', 'dashboard'], 'dashboard api route'],
  [['photo', 'picture', 'image', 'pic', 'snap', 'graphic', 'poster', 'logo', 'artwork', 'slides'], 'media library image file'],
  [['album', 'gallery'], 'media folder'],
  [['worry', 'worried', 'needs attention', 'attention', 'heads up', 'warning', 'warnings', 'red flags', 'look at first', 'going wrong'], 'alert'],
  [['missing tool', 'developers', 'feature request', 'cannot do', 'can\'t do', 'not possible', 'wish list', 'was missing'], 'capability gap report'],
  [['sound', 'tone', 'style', 'house style', 'writing style', 'voice'], 'brand voice'],
  [['card statement', 'card statements', 'statement descriptor', 'trading name', 'bank statement name', 'shows on statements'], 'public display name'],
  [['big picture', 'at a glance', 'how we are doing', 'how the church is doing', 'state of things'], 'overview snapshot'],
  [['your functions', 'your tools', 'abilities', 'what can you do', 'what can you actually do', 'capabilities'], 'tool search list'],
  [['parameters', 'expects', 'arguments', 'input'], 'schema inspect'],
  [['by giving its name', 'by its name', 'not in your menu', 'by name'], 'execute tool name'],
];

// Ways of asking that carry no meaning of their own ("give me", "can you"); taken out before reading.
const FILLER = / (give me|show me|tell me|let me|can you|could you|i want to|i need to|i'd like to|please) /g;

/**
 * Phrasal verbs whose parts people split ("take the newcomer label off", "sign Rachel up"): the verb,
 * up to three words, then the particle.
 */
const PHRASAL_VERBS: ReadonlyArray<readonly [string, string, string]> = [
  ['take', 'off|out|away', 'remove delete'],
  ['pop|stick', 'on|in|onto|into', 'add'],
  ['pick', 'up', 'collect check-out child'],
  ['cross|strike', 'off|out', 'remove delete'],
  ['sign|sign-', 'up|on', 'add join'],
  ['put|bring', 'in|into|on|onto', 'add'],
  ['pull|bring', 'up', 'get'],
  ['turn', 'down', 'decline reject'],
  ['call', 'off', 'cancel'],
  ['switch|turn', 'off', 'off pause'],
];

const PHRASAL = PHRASAL_VERBS.map(([verbs, particles, meaning]) => ({
  pattern: new RegExp(` (${verbs})( [a-z0-9'-]+){0,3} (${particles}) `),
  expansion: { said: `${verbs.split('|')[0]} … ${particles.split('|')[0]}`, terms: meaning.split(' ').map(stem) },
}));

interface Expansion {
  /** What the person wrote that the thesaurus recognised. */
  said: string;
  terms: string[];
}

// "Margaret's record", "her record": the noun (a person's record), not the verb ("record a gift"). "Our records"
// are the organisation's data as a whole, not one person's profile, so "our" is not among them.
const RECORD_NOUN = /('s|\b(?:her|his|their|the|this|that|my|your)) records?\b/g;
const OUR_RECORDS = /\bour records\b/g;
// "How close are we": nearness, not closing anything.
const CLOSE_ADJECTIVE = /\bhow close\b/g;
// "the mailings we've set up", "which services are set up": what exists already, not an order to create one.
const SET_UP_STATE = /\b(we've|we have|i've|i have|they've|have|has|had|is|are|was|were|been|already|got) set up\b/g;

const normalise = (text: string) => ` ${text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[’`]/g, '\'').replace(RECORD_NOUN, '$1 profile').replace(OUR_RECORDS, 'our data').replace(CLOSE_ADJECTIVE, 'how near').replace(SET_UP_STATE, '$1').replace(/'s\b/g, '')
  .replace(/[^a-z0-9'-]+/g, ' ').trim()} `;

// The stemmer leaves "finalise" but cuts "finalised" to "finalis": a final e is dropped for thesaurus look-ups only.
const lookupKey = (word: string) => stem(word).replace(/e$/, '');

/** Phrases (several words) are matched in the text; single words after stemming. */
function buildThesaurus() {
  const phrases: Array<{ phrase: string; expansion: Expansion }> = [];
  const words = new Map<string, Expansion[]>();
  for (const [said, meaning] of THESAURUS) {
    const terms = meaning.split(' ').map(stem);
    for (const form of said) {
      const expansion = { said: form, terms };
      if (/[\s]/.test(form)) phrases.push({ phrase: normalise(form), expansion });
      else words.set(lookupKey(form), [...(words.get(lookupKey(form)) ?? []), expansion]);
    }
  }
  return { phrases, words };
}

const { phrases: PHRASES, words: WORDS } = buildThesaurus();

/** Weight of a thesaurus term against a word the person wrote (1). */
export const EXPANSION_WEIGHT = 0.5;

/** Words that ask for a change; their presence makes a request a write even when phrased as a question. */
const WRITE_VERBS = new Set(['create', 'add', 'new', 'delete', 'remove', 'update', 'edit', 'change', 'rename', 'approve', 'decline', 'reject',
  'cancel', 'pause', 'resume', 'merge', 'import', 'complete', 'link', 'unlink', 'refund', 'archive', 'refresh', 'record', 'send',
  'commit', 'submit', 'mark', 'tag', 'run', 'enter', 'put', 'duplicate', 'copy', 'adjust', 'confirm', 'stop', 'close'].map(stem));

// How a request asks to read: a question, or an order to show.
const READ_FORMS = /^\s*(what|which|who|whose|how many|how much|how close|how far|show|list|is there|are there|any|when|where|has|have|did|does|do we|are we|can i see|see)\b/;

export type QueryIntent = 'read' | 'write' | undefined;

/**
 * Kinds of change, each with the verbs that name it in tool names and in requests. A request that
 * asks to take something away should prefer a remove tool over an add tool on the same thing.
 */
const OPERATIONS: Readonly<Record<string, readonly string[]>> = {
  add: ['create', 'add', 'new', 'record', 'register', 'link', 'enter', 'log', 'join', 'import', 'generate', 'start', 'invite'],
  change: ['update', 'edit', 'change', 'set', 'rename', 'adjust', 'modify', 'correct', 'upsert', 'refresh'],
  remove: ['delete', 'remove', 'unlink', 'erase', 'untag'],
  approve: ['approve', 'accept', 'confirm', 'commit', 'submit'],
  refuse: ['decline', 'reject', 'refuse'],
  stop: ['cancel', 'stop', 'withdraw', 'pause', 'close', 'archive'],
  resume: ['resume', 'activate', 'reactivate', 'unpause', 'reopen'],
};

const OPERATION_OF = new Map(Object.entries(OPERATIONS).flatMap(([operation, verbs]) => verbs.map((verb) => [stem(verb), operation] as const)));

/** The kind of change a tool's name starts with ("remove" for people_remove_contact_tags), if any. */
export function operationOfName(nameWords: string): string | undefined {
  return OPERATION_OF.get(stem(nameWords.split(' ')[0] ?? ''));
}

/**
 * Whether the request reads or changes something, when the wording says so. A question reads unless
 * it names a change in so many words ("can you add…"); an order writes when any of its words, or what
 * the thesaurus made of them ("get rid of"), is a change.
 */
function intentOf(normalised: string, written: ReadonlySet<string>, meant: ReadonlySet<string>): QueryIntent {
  const says = (terms: ReadonlySet<string>) => [...terms].some((term) => WRITE_VERBS.has(term));
  if (READ_FORMS.test(normalised)) return says(written) ? undefined : 'read';
  return says(written) || says(meant) ? 'write' : undefined;
}

export interface AnalysedQuery {
  intent: QueryIntent;
  /** The kinds of change the request asks for, from its verbs and what the thesaurus made of them. */
  operations: Set<string>;
  /** Index terms with their weights: written words 1, thesaurus terms EXPANSION_WEIGHT. */
  weights: Map<string, number>;
  /** For each thesaurus term, what the person said that brought it in (for the why of a hit). */
  origins: Map<string, string>;
}

function addTerm(query: AnalysedQuery, term: string, weight: number, origin?: string) {
  if (term.length < 2 || STOP_WORDS.has(term)) return;
  if ((query.weights.get(term) ?? 0) >= weight) return;
  query.weights.set(term, weight);
  if (origin) query.origins.set(term, origin);
  else query.origins.delete(term);
}

/** Reads a request: the words written (stemmed, stop words out) and what the thesaurus adds. */
export function analyseQuery(text: string): AnalysedQuery {
  const query: AnalysedQuery = { intent: undefined, operations: new Set(), weights: new Map(), origins: new Map() };
  const normalised = normalise(text);
  const matchedPhrases = PHRASES.filter(({ phrase }) => normalised.includes(phrase));
  const expansions: Expansion[] = [
    ...matchedPhrases.map(({ expansion }) => expansion),
    ...PHRASAL.filter(({ pattern }) => pattern.test(normalised)).map(({ expansion }) => expansion),
  ];
  // A word inside a recognised phrase means what the phrase means ("the big picture" is not a photo).
  const wordsOfPhrases = new Set(matchedPhrases.flatMap(({ phrase }) => phrase.trim().split(' ')));
  // Filler goes after the phrases are read, so "what can you do" still reads as a question about tools.
  for (const word of normalised.replace(FILLER, ' ').replace(FILLER, ' ').trim().split(/[\s-]+/)) {
    const term = processTerm(word);
    if (!term) continue;
    if (!wordsOfPhrases.has(word)) expansions.push(...(WORDS.get(lookupKey(word)) ?? []));
    addTerm(query, term, 1);
  }
  query.intent = intentOf(normalised, new Set(query.weights.keys()), new Set(expansions.flatMap((e) => e.terms)));
  for (const { said, terms } of expansions) {
    for (const term of terms) addTerm(query, term, EXPANSION_WEIGHT, said);
  }
  for (const term of query.weights.keys()) {
    const operation = OPERATION_OF.get(term);
    if (operation) query.operations.add(operation);
  }
  return query;
}
