import { z } from 'zod';
import type { MeteredFeature } from '../../../core/billing';
import { cursorInput, cursorOutput, toolsFor } from '../../kit';
import { usageFor } from '../../../kernel/billing';
import { activeVersionOf } from '../../templates/api';
import { CHANNELS, PURPOSES } from './addresses';
import {
  addManualSuppression, listConsents, listSuppressions, recordConsent, removeSuppression, withdrawConsent,
} from './consent';
import { getChannelSettings, updateChannelSettings } from './quiet-hours';
import {
  checkDomainDns, createSender, listSenders, recordDomainCheck, requireEmailSender, senderDnsResolver, type DomainCheck,
} from './senders';
import { checkRecipient, whatsappWindow } from './services';
import { CONSENT_BASES, SUPPRESSION_REASONS } from './store';

const tools = toolsFor('channels', { read: 'channels:read', write: 'channels:send' });

const channel = z.enum(CHANNELS).describe('email, sms or whatsapp');
const purpose = z.enum(PURPOSES).describe('marketing, charitable_purpose (the church\'s own charitable aims: appeals, events) or service (messages the relationship needs: rota, pastoral care)');
const iso = z.string().describe('ISO 8601 date-time');

const consentSchema = z.object({
  id: z.uuid(), contactId: z.uuid(), channel: z.enum(CHANNELS), purpose: z.enum(PURPOSES), basis: z.enum(CONSENT_BASES),
  source: z.string(), wording: z.string(), capturedAt: iso, recordedBy: z.string().nullable(),
  state: z.enum(['active', 'withdrawn', 'superseded']), withdrawnAt: iso.nullable(), withdrawalSource: z.string().nullable(), createdAt: iso,
}).strict();

const suppressionSchema = z.object({
  id: z.uuid(), channel: z.enum(CHANNELS), address: z.string(), reason: z.enum(SUPPRESSION_REASONS), source: z.string(),
  note: z.string().nullable(), createdAt: iso, liftedAt: iso.nullable(), liftEvidence: z.string().nullable(),
}).strict();

const recordCheck = z.object({ name: z.string(), result: z.enum(['pass', 'missing', 'invalid', 'error']), found: z.string().nullable() }).strict();
const senderSchema = z.object({
  id: z.uuid(), channel: z.enum(CHANNELS), kind: z.enum(['domain', 'number', 'alphanumeric']), address: z.string(), label: z.string().nullable(),
  oneWay: z.boolean(), status: z.enum(['unverified', 'pending', 'verified', 'failed', 'active']), dkimSelector: z.string().nullable(),
  lastCheck: z.object({ spf: recordCheck, dkim: recordCheck, dmarc: recordCheck }).strict().nullable(),
  checkedAt: iso.nullable(), verifiedAt: iso.nullable(), createdAt: iso, warnings: z.array(z.string()),
}).strict();

const settingsSchema = z.object({
  quietHours: z.object({ enabled: z.boolean(), start: z.string(), end: z.string() }).strict(),
  timeZone: z.string(), updatedAt: iso.nullable(),
}).strict();

const hhmm = z.string().max(5).regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time as HH:MM (24 hour)');

const consentEvidence = {
  contactId: z.uuid().describe('The contact who consented'),
  purpose,
  basis: z.enum(CONSENT_BASES).default('consent').describe('consent (they opted in; default) or charitable_soft_opt_in (a supporter who gave contact details while giving or asking, was offered an opt-out and did not take it; charitable_purpose by email or SMS only)'),
  source: z.string().trim().min(1).max(200).describe('Where and how it was captured, e.g. "welcome card 2026-11-22", "website form /join"'),
  wording: z.string().trim().min(1).max(2000).describe('The exact wording the person saw and agreed to (or was offered the opt-out under)'),
  capturedAt: z.iso.datetime({ offset: true }).max(40).optional().describe('When they consented (ISO date-time); now when omitted'),
};

const SENDABILITY_REASONS = ['contact_missing', 'crisis_hold', 'no_address', 'suppressed', 'no_consent', 'no_approved_template', 'window_closed', 'allowance', 'quiet_hours'] as const;

const checkSendabilityTool = tools.read('check_sendability', {
  title: 'Can this person be messaged?',
  description: 'Can we text, email or WhatsApp this person, or have they opted out? Says whether a message to one contact on one channel for one purpose may go now, or the exact reason it may not: crisis_hold, no_address, suppressed (bounce, complaint, STOP, unsubscribe, manual), no_consent, no_approved_template (templateId has no active version for the channel), window_closed (WhatsApp free-form outside 24 h of their last message: use an approved template), allowance (the plan\'s messages are used up) or quiet_hours (it would wait until resumesAt, in the recipient\'s time zone; never dropped). Nothing is sent or recorded. The same checks run again when a message is dispatched.',
  keywords: ['consent check', 'can I text', 'can we text', 'can I email', 'opted out', 'has she opted out', 'unsubscribed', 'allowed to contact', 'permission to message', 'whatsapp window', 'quiet hours'],
  examples: ['is it alright to message Dave about the harvest supper', 'is it ok to email John the Christmas appeal', 'can I WhatsApp Priya now', 'are we allowed to text Mrs Okafor about the Lent course', 'has Jean opted out, or can I send her the appeal email', "before I message Bill, check he hasn't asked us to stop", 'can Sheila be texted right now or is it too late at night', 'ok to email the Gift Day letter to Colin Hughes?', 'check whether we may WhatsApp Femi about choir practice', 'can I text Doris?', "Ray said he doesn't want fundraising messages, so check whether we may email him the appeal", 'are we allowed to WhatsApp Hannah about the youth trip?'],
  input: z.object({
    contactId: z.uuid().describe('The contact'),
    channel, purpose,
    templateId: z.uuid().optional().describe('The template to send; without one a WhatsApp message is free-form text'),
  }),
  output: z.object({
    allowed: z.boolean(),
    reason: z.enum(SENDABILITY_REASONS).nullable().describe('Why not; null when allowed'),
    message: z.string(),
    hint: z.string().nullable(),
    address: z.string().nullable().describe('Where it would go (lower-case email or E.164 phone)'),
    resumesAt: iso.nullable().describe('quiet_hours: when sending resumes'),
    timeZone: z.string().nullable().describe('The zone quiet hours were read in'),
    templateVersionId: z.uuid().nullable(),
  }).strict(),
  run: async (ctx, input) => {
    const now = new Date();
    const refused = (reason: (typeof SENDABILITY_REASONS)[number], message: string, hint?: string | null) =>
      ({ allowed: false, reason, message, hint: hint ?? null, address: null, resumesAt: null, timeZone: null, templateVersionId: null });
    let templateVersionId: string | null = null;
    if (input.templateId) {
      const active = await activeVersionOf(ctx.db, ctx.org.id, input.templateId);
      if (!active || active.channel !== input.channel) {
        return refused('no_approved_template', active ? `Template ${input.templateId} is for ${active.channel}, not ${input.channel}` : `Template ${input.templateId} has no active version`,
          'templates_list_templates shows templates; templates_activate_version makes an approved version active.');
      }
      templateVersionId = active.versionId;
    }
    const check = await checkRecipient(ctx.db, ctx.org.id, {
      contactId: input.contactId, channel: input.channel, purpose: input.purpose, now, freeForm: input.channel === 'whatsapp' && !input.templateId,
    });
    if (!check.ok) return refused(check.reason, check.message, check.hint);
    const feature: MeteredFeature = input.channel === 'email' ? 'email_sends' : 'messaging_credits';
    const usage = await usageFor(ctx.db, ctx.org.id, feature);
    if (usage.remaining !== null && usage.remaining < 1) {
      return refused('allowance', `The plan's ${feature.replace('_', ' ')} for this month are used up (${usage.used} of ${usage.limit})`, 'channels_get_usage shows usage; upgrade the plan or wait for next month.');
    }
    const base = { address: check.address, timeZone: check.timeZone, templateVersionId, hint: null };
    if (check.quietUntil) {
      return {
        ...base, allowed: false, reason: 'quiet_hours' as const, resumesAt: check.quietUntil.toISOString(),
        message: `It is quiet hours for the recipient (${check.timeZone}); a message sent now waits until ${check.quietUntil.toISOString()}`,
        hint: 'Send anyway to have it go out when quiet hours end, or change them with channels_update_settings.',
      };
    }
    return { ...base, allowed: true, reason: null, resumesAt: null, message: 'May be sent now' };
  },
});

const recordConsentTool = tools.write('record_consent', {
  title: 'Record consent',
  description: 'Records that a contact consented to messages on one channel for one purpose, as evidence: basis, source, the wording they saw and when. A newer consent supersedes the older one for the same channel and purpose; nothing is overwritten. It does not lift a suppression (use channels_remove_suppression). The contact\'s email status and WhatsApp flag follow.',
  keywords: ['opt in', 'subscribe', 'marketing consent', 'whatsapp consent', 'gdpr', 'pecr', 'sign up to newsletter'],
  examples: ['Margaret ticked the box to get our newsletter by email', 'record that Tom agreed to WhatsApp messages', 'Joan said yes to getting the parish news by text', 'note that the Harrises are happy to be emailed about fundraising', 'Pete signed the form agreeing to WhatsApp updates on 3 March', "log Ruth's permission to text her church notices", 'she opted in to appeal emails at the welcome desk today', 'put down that Mr Singh agreed on the phone to get our newsletter', 'Doris opted in to emails', 'Ray filled in the newsletter sign-up card at the welcome desk on Sunday, record his consent', 'can you note that Hannah agreed to get texts from us?'],
  input: z.object({ ...consentEvidence, channel }),
  output: z.object({ consent: consentSchema, addressSuppressed: z.boolean().describe('true: the address is still suppressed, so nothing will go until the suppression is lifted') }).strict(),
  run: async (ctx, input) => recordConsent(ctx.db, ctx.org.id, input, ctx.principal.userId),
});

const withdrawConsentTool = tools.write('withdraw_consent', {
  title: 'Withdraw consent',
  description: 'Someone no longer wants our emails, texts or WhatsApp messages (newsletters, appeals, fundraising): records that a contact withdrew consent on a channel, for one purpose or (omitting purpose) all. The consent records stay, stamped withdrawn, as evidence. Messages not yet sent stop at dispatch.',
  keywords: ['opt out', 'opted out', 'unsubscribe', 'stop marketing', 'no more emails', 'no longer wants', 'stop emailing', 'fundraising emails', 'mailing list', 'remove from newsletter'],
  examples: ['take Ben off the mailing list, he rang to opt out', 'Priya asked us to stop WhatsApp messages', "Jean doesn't want any more fundraising emails", 'stop sending Derek the newsletter, he asked us to', 'unsubscribe Gary from the appeal emails', 'Colin rang: no more WhatsApps from the church please', 'Ann has had enough of the Gift Day emails, take her off', 'Mrs Patel no longer wants our notices by text or email', 'Doris opted out of texts', "Ray emailed to say he's had enough of appeal emails, so take him off", 'can you stop sending Hannah the newsletter?'],
  idempotent: true,
  input: z.object({
    contactId: z.uuid().describe('The contact'), channel,
    purpose: z.enum(PURPOSES).optional().describe('Only this purpose; every purpose on the channel when omitted'),
    source: z.string().trim().min(1).max(200).default('staff').describe('How they withdrew, e.g. "phone call to the office"'),
  }),
  output: z.object({ withdrawn: z.array(consentSchema), count: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const withdrawn = await withdrawConsent(ctx.db, ctx.org.id, input);
    return { withdrawn, count: withdrawn.length };
  },
});

const listConsentsTool = tools.read('list_consents', {
  title: 'Consent records',
  description: 'Consent records, newest first: a contact\'s (contactId), or the organisation\'s, on one channel or all; active ones only unless includeHistory (then withdrawn and superseded too, with dates: the evidence trail).',
  keywords: ['consent history', 'opt in evidence', 'who consented', 'consent records', 'permission to contact'],
  examples: ['what has Margaret agreed to', 'show the consent history for Tom', 'what permissions has Jean given us for messages', 'has Derek ever agreed to texts, and when', 'show the opt-in evidence for Ruth including withdrawn ones', 'which channels is Pete signed up to hear from us on', 'when did Femi say yes to WhatsApp and how', 'list who has agreed to fundraising emails', 'is Aisha opted in to SMS', 'show me when Colin unsubscribed and what he had agreed to before', 'what marketing permissions does the church hold', 'which channels has Pam given consent on'],
  input: z.object({
    contactId: z.uuid().optional().describe('Only this contact'),
    channel: z.enum(CHANNELS).optional().describe('Only this channel'),
    includeHistory: z.boolean().default(false).describe('Include withdrawn and superseded records'),
    ...cursorInput,
  }),
  output: z.object({ consents: z.array(consentSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listConsents(ctx.db, ctx.org.id, input),
});

const listSuppressionsTool = tools.read('list_suppressions', {
  title: 'Suppressed addresses',
  description: 'The do-not-contact list: numbers that texted STOP, email addresses that bounced or complained, people who unsubscribed. Addresses that must not be messaged on a channel and why (hard_bounce, complaint, stop_keyword, unsubscribe, manual), newest first; includeLifted adds lifted ones with the consent evidence that lifted them.',
  keywords: ['suppression list', 'bounced', 'blocked numbers', 'STOP', 'replied stop', 'texted stop', 'do not contact', 'opted out numbers', 'unsubscribed addresses'],
  examples: ['who has asked us never to text them', 'show email addresses that bounce', 'which numbers have replied STOP', 'show our blocked email addresses', 'who is on the do not text list and why', 'list the addresses that complained about our emails', 'any bounced emails this month we should sort out', "blocked addresses including the ones we've since lifted", 'do not contact list', "half of last week's mailing bounced, show me which email addresses are blocked and why", 'which numbers have texted STOP to us?'],
  input: z.object({
    channel: z.enum(CHANNELS).optional(), reason: z.enum(SUPPRESSION_REASONS).optional(),
    address: z.string().trim().min(3).max(320).optional().describe('One address (email or phone)'),
    includeLifted: z.boolean().default(false), ...cursorInput,
  }),
  output: z.object({ suppressions: z.array(suppressionSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listSuppressions(ctx.db, ctx.org.id, input),
});

const addSuppressionTool = tools.write('add_suppression', {
  title: 'Suppress an address',
  description: 'Stops every message to an address on a channel (reason manual), e.g. a number someone asked by phone never to text. An address already suppressed keeps its record (created false). Phones must be E.164 or national in the organisation\'s country.',
  keywords: ['block', 'do not contact', 'never text', 'never email'],
  examples: ['never text +447700900123 again', 'block this email address', 'Mrs Baker rang, never text her mobile again', 'block 07700 900456 from all our texts', 'put jean.w@example.com on the do not email list', "that number isn't Dave's any more, stop texting it for good", 'add this WhatsApp number to the never-contact list', 'someone asked us to stop messaging 07911 123456, block it', 'block 07700 900321', "Ray's old mobile now belongs to someone else who complained, so never text that number again", 'can you put this email address on the do-not-contact list?'],
  idempotent: true,
  input: z.object({ channel, address: z.string().trim().min(3).max(320).describe('Email address or phone number'), note: z.string().trim().max(1000).optional() }),
  output: z.object({ suppression: suppressionSchema, created: z.boolean() }).strict(),
  run: async (ctx, input) => addManualSuppression(ctx.db, ctx.org.id, input, ctx.principal.userId),
});

const removeSuppressionTool = tools.write('remove_suppression', {
  title: 'Lift a suppression',
  description: 'Lifts a suppression only on fresh consent evidence: the consent of the contact holding that address, captured after it was suppressed (e.g. they texted START or signed up again). The consent is recorded, the suppression stays on record as lifted with that evidence.',
  keywords: ['unblock', 'resubscribe', 'opt back in'],
  examples: ['Margaret signed up again, lift the block on her email', 'Bill texted START, unblock his number', 'Jean signed up again yesterday, let our emails reach her', "take Peter's mobile off the blocked list now he's opted back in", 'Ruth has fixed her inbox and agreed again, unblock her email', "lift the STOP on Femi's number, he signed the form on Sunday", 'Mrs Patel has resubscribed, undo the block on her texts', "unblock Doris's email", 'Hannah texted STOP by accident and signed up again on Sunday, lift the block on her number', "can Ray's address receive emails again now he's opted back in?"],
  input: z.object({
    suppressionId: z.uuid().describe('From channels_list_suppressions'),
    consent: z.object(consentEvidence).describe('The new consent (the channel is the suppression\'s)'),
  }),
  output: z.object({ suppression: suppressionSchema, consent: consentSchema }).strict(),
  run: async (ctx, input) => removeSuppression(ctx.db, ctx.org.id, input, ctx.principal.userId),
});

const getWhatsappWindowTool = tools.read('get_whatsapp_window', {
  title: 'WhatsApp window',
  description: 'Whether free-form WhatsApp text may go to a contact: open for 24 hours after their last message to us, with when it closes. Outside it only an approved template may be sent.',
  keywords: ['24 hour window', 'customer service window', 'whatsapp session'],
  examples: ['can I reply to Priya on WhatsApp without a template', 'has Grace messaged us on WhatsApp in the last 24 hours', 'is the WhatsApp chat with Tom still open', 'when does my chance to reply freely to Femi close', 'do I need an approved template to answer Ruth on WhatsApp', "is Priya's WhatsApp session still live", "how long have I got to reply to Joan's WhatsApp", "Ray's WhatsApp window", 'Doris messaged us on WhatsApp this morning, can I still answer her freely this evening?', 'is the 24 hour WhatsApp window open with Hannah?'],
  input: z.object({ contactId: z.uuid().describe('The contact') }),
  output: z.object({
    contactId: z.uuid(), address: z.string().nullable(), open: z.boolean(), lastInboundAt: iso.nullable(), closesAt: iso.nullable(),
  }).strict(),
  run: async (ctx, input) => {
    const window = await whatsappWindow(ctx.db, ctx.org.id, input.contactId, new Date());
    return { ...window, lastInboundAt: window.lastInboundAt?.toISOString() ?? null, closesAt: window.closesAt?.toISOString() ?? null };
  },
});

const listSendersTool = tools.read('list_senders', {
  title: 'Senders',
  description: 'Which email domains, phone numbers and sender names we send from. The organisation\'s senders: email domains with their verification status and last DNS check, SMS numbers and alphanumeric ids (one-way, flagged), WhatsApp numbers.',
  keywords: ['sending domain', 'from number', 'sender id'],
  examples: ['what name do our texts show as coming from', 'is our email domain verified yet', 'which email addresses and domains do we send from', 'what number do our texts come from', 'list our WhatsApp numbers', "show the sending domains we've set up", "is our text sender a name people can't reply to", 'when was our mail domain last checked', 'our senders', 'the IT volunteer is checking our setup, which email domains and text numbers do we send from?', 'what sender name shows on our texts?'],
  input: z.object({ channel: z.enum(CHANNELS).optional(), ...cursorInput }),
  output: z.object({ senders: z.array(senderSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listSenders(ctx.db, ctx.org.id, input),
});

const createSenderTool = tools.write('create_sender', {
  title: 'Add a sender',
  description: 'Adds an email domain (unverified until channels_verify_sender_domain finds its SPF, DKIM and DMARC records), an SMS number or alphanumeric sender id (up to 11 letters and digits; one-way, so recipients cannot reply STOP), or a WhatsApp number. A number belongs to one organisation.',
  keywords: ['add domain', 'sender id', 'add number'],
  examples: ['we send email from mail.stanne.org.uk', 'add our SMS sender name STANNE', 'add our new WhatsApp number +447700900789', 'we want emails to come from stmarys-church.org.uk', 'make our texts show as STMARYS instead of a number', 'register the new church mobile for sending texts', 'set up the parish office domain so we can send newsletters from it', 'add the sender name HOLYTRIN for our SMS', 'add a sending domain', "we've bought the domain stlukes.church and want our newsletters to come from it", 'can we text from the name STLUKES?'],
  input: z.object({
    channel,
    address: z.string().trim().min(1).max(253).describe('Domain (email), E.164 number, or alphanumeric id (SMS only)'),
    label: z.string().trim().max(200).optional(),
    dkimSelector: z.string().max(63).regex(/^[a-z0-9][a-z0-9._-]{0,62}$/).optional().describe('Email only: the DKIM selector published in DNS; default "steward"'),
  }),
  output: z.object({ sender: senderSchema }).strict(),
  run: async (ctx, input) => ({ sender: await createSender(ctx.db, ctx.org.id, input) }),
});

const verifySenderDomainTool = tools.write('verify_sender_domain', {
  title: 'Verify an email domain',
  description: 'Checks an email sender domain\'s DNS: SPF (v=spf1 … all at the domain), DKIM (a key at <selector>._domainkey) and DMARC (v=DMARC1; p=… at _dmarc). verified when all three pass; pending when some pass or a lookup failed (DNS may still be propagating: check again later); failed when none does. Each record\'s result is returned and kept.',
  keywords: ['spf', 'dkim', 'dmarc', 'dns', 'domain verification'],
  examples: ['is our email domain set up properly', 'check the DNS for mail.stanne.org.uk', "I've added the SPF and DKIM records, check them now", 'our emails keep going to spam, check the domain DNS records', 'has the DMARC record gone through yet', 'recheck the domain now the IT chap has updated the DNS', 'run the domain check for stmarys-church.org.uk again', 'are SPF, DKIM and DMARC all passing for our email', 'verify our domain', 'Ray updated the DNS for stlukes.church yesterday, check whether the domain passes now', 'is our email domain verified yet?'],
  input: z.object({ senderId: z.uuid().describe('The email domain sender, from channels_list_senders') }),
  output: z.object({ sender: senderSchema }).strict(),
  // DNS is asked before the transaction opens, so none is held while waiting on the network.
  prepare: async (input, { db, org }): Promise<DomainCheck> => {
    const sender = await requireEmailSender(db, org.id, input.senderId);
    return checkDomainDns(senderDnsResolver(), sender.address, sender.dkim_selector ?? 'steward');
  },
  run: async (ctx, input) => ({ sender: await recordDomainCheck(ctx.db, ctx.org.id, input.senderId, ctx.prepared as DomainCheck) }),
});

const getSettingsTool = tools.read('get_settings', {
  title: 'Channel settings',
  description: 'Quiet hours (off by default; 21:00–08:00 when turned on without times) and the time zone they are read in. Messages due in quiet hours wait until they end; none is dropped.',
  keywords: ['quiet hours', 'do not disturb', 'time zone', 'messaging settings', 'night time sending'],
  examples: ['what time do our texts stop in the evening', 'are quiet hours switched on', 'when are we not allowed to send texts at night', 'what time zone do our messages go by', 'do we hold messages back overnight', 'show our do-not-disturb hours', 'will a text sent at 11pm go straight away', 'what are the current quiet hours', 'are we set up not to text people overnight', 'what are the quiet hours for messages', 'which timezone are our quiet hours in', 'check our messaging quiet hours settings'],
  input: z.object({}),
  output: z.object({ settings: settingsSchema }).strict(),
  run: async (ctx) => ({ settings: await getChannelSettings(ctx.db, ctx.org.id) }),
});

const updateSettingsTool = tools.write('update_settings', {
  title: 'Change quiet hours',
  description: 'Turns quiet hours on or off and sets their start and end (HH:MM, local to the recipient; may span midnight) and the organisation\'s time zone (IANA, e.g. Europe/London). Only the fields given change.',
  keywords: ['quiet hours', 'no texts at night', 'time zone'],
  examples: ['no messages after 9pm or before 8am', 'turn quiet hours off', 'stop texts going out after 8 in the evening', 'switch on quiet hours with the usual times', 'nothing to go out before 9am please', 'set our messaging time zone to Europe/London', 'change the night-time cut-off to 10pm', 'let messages go at any time of day', 'quiet hours 9pm to 8am', 'people complained about a text at 10:30pm, so stop messages going out late at night', 'can we turn off the night-time message block?'],
  idempotent: true,
  input: z.object({
    quietHours: z.object({ enabled: z.boolean().optional(), start: hhmm.optional(), end: hhmm.optional() }).optional(),
    timeZone: z.string().min(1).max(64).optional().describe('IANA time zone'),
  }),
  output: z.object({ settings: settingsSchema }).strict(),
  run: async (ctx, input) => ({ settings: await updateChannelSettings(ctx.db, ctx.org.id, input) }),
});

export const audienceTools = [
  checkSendabilityTool, recordConsentTool, withdrawConsentTool, listConsentsTool, listSuppressionsTool, addSuppressionTool,
  removeSuppressionTool, getWhatsappWindowTool, listSendersTool, createSenderTool, verifySenderDomainTool, getSettingsTool, updateSettingsTool,
];
