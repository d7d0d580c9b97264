import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { assertAllowance, usageFor } from '../../../kernel/billing';
import { cursorInput, cursorOutput, toolsFor } from '../../kit';
import type { ToolContext } from '../../tool';
import { PURPOSES, type Channel } from '../audience/addresses';
import { checkRecipient, oneWayOptOutRefusal, senderFor } from '../audience/services';
import { PRICE_CURRENCY, SMS_MAX_CHARACTERS, SMS_MAX_SEGMENTS, UNIT_PRICES } from './pricing';
import { MESSAGE_STATUSES, channelUsageThisPeriod, listMessages, queueMessage, requireMessage, type ChannelMessageView } from './services';

const tools = toolsFor('channels', { read: 'channels:read', write: 'channels:send' });

const money = z.object({ amountMinor: z.number().int(), currency: z.string() }).strict();

export const messageSchema = z.object({
  id: z.uuid(),
  channel: z.enum(['email', 'sms', 'whatsapp']),
  contactId: z.uuid().nullable(),
  purpose: z.enum(PURPOSES),
  status: z.enum(MESSAGE_STATUSES).describe('queued → sending → sent → delivered | undelivered; failed when refused at dispatch or by the provider'),
  recipientAddress: z.string().nullable().describe('The address it went to, filled at dispatch'),
  sender: z.string().nullable(),
  templateId: z.uuid().nullable(),
  templateVersionId: z.uuid().nullable(),
  subject: z.string().nullable(),
  body: z.string().describe('The rendered text exactly as sent (an immutable snapshot)'),
  html: z.string().nullable(),
  whatsappCategory: z.enum(['service', 'utility', 'marketing', 'authentication']).nullable(),
  sms: z.object({ encoding: z.enum(['GSM-7', 'UCS-2']), segments: z.number().int() }).strict().nullable(),
  meteredUnits: z.number().int().describe('Units of the allowance it counts: SMS segments, one WhatsApp message, one email'),
  estimatedCost: money,
  actualCost: money.nullable(),
  providerMessageId: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).strict().nullable().describe('Why it did not go (no_consent, suppressed, window_closed, allowance_exceeded, provider_refused, …)'),
  deferredUntil: z.string().nullable().describe('Quiet hours: when it will be sent'),
  broadcastId: z.uuid().nullable(),
  idempotencyKey: z.string(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
}).strict();

const contactId = z.uuid().describe('The contact to message (one recipient; their current address is used)');
const purpose = z.enum(PURPOSES).describe('Why: marketing (appeals, events), charitable_purpose, or service (rotas, receipts); consent is per purpose');
const templateId = z.uuid().optional().describe('Send this template\'s active version instead of a free-form body');
const variables = z.record(z.string().max(100), z.string().max(2000))
  .refine((values) => Object.keys(values).length <= 50, 'at most 50 variables').meta({ maxProperties: 50 }).optional()
  .describe('Values for the template\'s variables beyond the contact\'s own (first_name, …); a missing one blocks the send');
const idempotencyKey = z.string().trim().min(1).max(200).optional()
  .describe('Repeat-safe key: the same key returns the same message and never sends twice (default: this call)');

const sendOutput = z.object({
  message: messageSchema,
  created: z.boolean().describe('False when the key had already queued this message'),
  deferredUntil: z.string().nullable().describe('Quiet hours in the recipient\'s time zone: it goes at this time'),
}).strict();

function refusal(reason: string, message: string, hint?: string): StewardError {
  const hints: Record<string, string> = {
    no_consent: 'Record consent for this channel and purpose with channels_record_consent first.',
    suppressed: 'The address is suppressed (bounce, complaint, STOP or unsubscribe); channels_list_suppressions shows why.',
    window_closed: 'Outside the 24-hour WhatsApp window only an approved template may be sent: pass templateId of an active WhatsApp template.',
    crisis_hold: 'The contact is on a crisis hold; a pastor clears it before anything is sent.',
    no_address: 'Add the address with people_update_contact.',
  };
  return new StewardError('forbidden', message, { hint: hint ?? hints[reason], details: { reason } });
}

/** Queues the message, refuses it now (nothing queued) when it could not go, and hands it to dispatch (the tool's follow-up). */
async function send(ctx: ToolContext, channel: Channel, input: {
  contactId: string; purpose: (typeof PURPOSES)[number]; templateId?: string; variables?: Record<string, string>;
  subject?: string; body?: string; html?: string; idempotencyKey?: string;
}, usageTool: string): Promise<z.input<typeof sendOutput>> {
  const orgId = ctx.org.id;
  const key = input.idempotencyKey ? `caller:${input.idempotencyKey}` : `call:${ctx.workflowId}`;
  const queued = await queueMessage(ctx.db, orgId, {
    contactId: input.contactId, channel, purpose: input.purpose, templateId: input.templateId, variables: input.variables,
    subject: input.subject, body: input.body, html: input.html, idempotencyKey: key, usageTool,
  });
  if (!queued.created) return { message: queued.message, created: false, deferredUntil: queued.message.deferredUntil };
  // Checked now so the caller hears why at once; checked again under locks at every dispatch attempt.
  const check = await checkRecipient(ctx.db, orgId, {
    contactId: input.contactId, channel, purpose: input.purpose, now: new Date(), freeForm: channel === 'whatsapp' && !input.templateId,
  });
  if (!check.ok) throw refusal(check.reason, check.message, check.hint);
  if (channel === 'sms') {
    const noOptOut = oneWayOptOutRefusal(await senderFor(ctx.db, orgId, 'sms'), input.purpose, queued.message.body);
    if (noOptOut) throw refusal(noOptOut.code, noOptOut.message, noOptOut.hint);
  }
  await assertAllowance(ctx.db, orgId, channel === 'email' ? 'email_sends' : 'messaging_credits', queued.message.meteredUnits, { tool: usageTool, purpose: input.purpose });
  return { message: queued.message, created: true, deferredUntil: check.quietUntil ? check.quietUntil.toISOString() : null };
}

export const sendEmailTool = tools.send('send_email', {
  title: 'Send one email',
  description: 'Emails one contact, free-form (subject + text, optional HTML) or from a template\'s active version (merge data HTML-escaped; a missing variable blocks the send). Consent for the purpose and suppression are checked now and again at dispatch; marketing email carries one-click unsubscribe (List-Unsubscribe). Metered once as one email send; repeat-safe with idempotencyKey. Returns the queued message: follow it with channels_get_message.',
  keywords: ['email', 'send email', 'mail a person', 'one-off email'],
  examples: ['email Margaret the rota for Sunday', 'send John the welcome email template', 'drop Jean an email to say the flowers rota has changed', 'email Mrs Harris the minutes from the PCC meeting', 'send one email to the churchwarden about the boiler', 'can you email Derek thanking him for fixing the gutter', 'send Ruth the baptism preparation email template', 'email just Colin the Gift Day letter', 'email Doris', 'Ray missed the PCC meeting, send him a short email with the date of the next one', 'can you email Hannah the youth trip details?'],
  input: z.object({
    contactId, purpose, templateId, variables,
    subject: z.string().trim().min(1).max(998).optional().describe('Free-form subject (needed without a template)'),
    body: z.string().min(1).max(100_000).optional().describe('Free-form plain text (needed without a template)'),
    html: z.string().min(1).max(500_000).optional().describe('Optional HTML alternative of the free-form text'),
    idempotencyKey,
  }),
  output: sendOutput,
  followUp: { kind: 'channels.send_message' },
  run: (ctx, input) => send(ctx, 'email', input, 'channels_send_email'),
});

export const sendSmsTool = tools.send('send_sms', {
  title: 'Send one SMS',
  description: `Texts one contact at their phone number (E.164), free-form or from a template's active SMS version. Segments are counted exactly (GSM-7 160/153, UCS-2 70/67; one emoji switches the whole text to UCS-2); at most ${SMS_MAX_SEGMENTS} segments / ${SMS_MAX_CHARACTERS} characters. Metered once by its segments (refused before sending if the messaging allowance would be exceeded). Consent and suppression (STOP) are checked now and at dispatch; quiet hours defer it. Repeat-safe with idempotencyKey.`,
  keywords: ['sms', 'text message', 'text someone', 'send text'],
  examples: ['text Peter that the youth group is cancelled tonight', 'send an SMS reminder to Ruth', 'text Jean that choir is off tonight', 'send Derek a quick text: the key is under the mat', "text Ruth's mobile to remind her she's on the rota", 'text the churchwarden that the boiler man comes at 2', "ping Mr Okafor a text reminding him of Sunday's reading", 'send Sue a text saying thanks for the cakes', 'text Doris', "Ray's reading at 9:30 tomorrow and might forget, send him a reminder text", 'can you send Hannah a text to say the minibus leaves at 8?'],
  input: z.object({
    contactId, purpose, templateId, variables,
    body: z.string().min(1).max(20_000).optional().describe('Free-form text (needed without a template)'),
    idempotencyKey,
  }),
  output: sendOutput,
  followUp: { kind: 'channels.send_message' },
  run: (ctx, input) => send(ctx, 'sms', input, 'channels_send_sms'),
});

export const sendWhatsAppTool = tools.send('send_whatsapp', {
  title: 'Send one WhatsApp message',
  description: 'Sends one contact a WhatsApp message: free-form text only within 24 hours of their last message to us (the session window, see channels_get_whatsapp_window); otherwise an approved template (templateId) is required and a free-form send is refused with that hint. Metered once as one WhatsApp message by category (free-form service, template utility or marketing). Consent and suppression checked now and at dispatch. Repeat-safe with idempotencyKey.',
  keywords: ['whatsapp', 'message on whatsapp', 'wa message'],
  examples: ['WhatsApp Grace to say thanks for her reply', 'send the event reminder template on WhatsApp to Tom', 'WhatsApp Femi the address for house group', "send Joan a WhatsApp to say we're praying for her", 'reply to Tom on WhatsApp: yes, see you at 7', 'message Grace on WhatsApp with the rota reminder template', 'WhatsApp the youth leader that the minibus is booked', 'send Ruth the Sunday notices template over WhatsApp', 'WhatsApp Doris', "Ray just asked on WhatsApp what time the quiz starts, reply to him that it's 7:30", 'can you message Hannah on WhatsApp with the rota template?'],
  input: z.object({
    contactId, purpose, templateId, variables,
    body: z.string().min(1).max(4096).optional().describe('Free-form text (only inside the 24-hour window)'),
    idempotencyKey,
  }),
  output: sendOutput,
  followUp: { kind: 'channels.send_message' },
  run: (ctx, input) => send(ctx, 'whatsapp', input, 'channels_send_whatsapp'),
});

export const getMessageTool = tools.read('get_message', {
  title: 'One sent message',
  description: 'One email, SMS or WhatsApp message: its status (queued, sending, sent, delivered, undelivered, failed with the reason), the exact text sent, segments, metered units, estimated cost and provider id.',
  keywords: ['message status', 'was it delivered', 'delivery status'],
  examples: ['did the text to Peter arrive', 'why did that message fail', 'was the email to Jean delivered', 'what exactly did the text to Derek say', 'did my WhatsApp to Grace go through', 'how much did that one text to Ruth cost', 'has the reminder to Colin gone yet or is it still queued', 'why did the email to Mrs Harris bounce', "status of Doris's text", 'Ray says he never got the reminder I emailed him on Monday, what happened to it?', 'was my text to Hannah delivered?'],
  input: z.object({ messageId: z.uuid().describe('The message') }),
  output: z.object({ message: messageSchema }).strict(),
  run: async (ctx, input) => ({ message: await requireMessage(ctx.db, ctx.org.id, input.messageId) }),
});

export const listMessagesTool = tools.read('list_messages', {
  title: 'Sent messages',
  description: 'Email, SMS and WhatsApp messages newest first, filtered by channel, status, contact, purpose or broadcast, one cursor page at a time.',
  keywords: ['message log', 'sent messages', 'outbox', 'failed messages'],
  examples: ['which texts failed this week', 'messages we sent to Margaret', "show everything we've sent Jean this month", 'all the emails that went out yesterday', "list the WhatsApps that didn't get through", 'which messages went out for the Gift Day appeal', 'texts still waiting in the queue', 'history of texts and emails to the Patel family', 'sent messages log', 'the office manager wants every email and text we sent Ray this year', 'which messages failed to send yesterday?'],
  input: z.object({
    channel: z.enum(['email', 'sms', 'whatsapp']).optional(),
    status: z.enum(MESSAGE_STATUSES).optional(),
    contactId: z.uuid().optional().describe('Only messages to this contact'),
    purpose: z.enum(PURPOSES).optional(),
    broadcastId: z.uuid().optional().describe('Only the messages of this broadcast'),
    ...cursorInput,
  }),
  output: z.object({ messages: z.array(messageSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => {
    const page = await listMessages(ctx.db, ctx.org.id, input);
    return { messages: page.items satisfies ChannelMessageView[], nextCursor: page.nextCursor };
  },
});

const allowance = z.object({ used: z.number().int(), limit: z.number().int().nullable(), remaining: z.number().int().nullable() }).strict();

export const getUsageTool = tools.read('get_usage', {
  title: 'Messaging usage this month',
  description: 'This month\'s email sends, SMS segments and WhatsApp messages by category, with the estimated cost and the plan\'s allowances (email_sends, messaging_credits: SMS segments plus WhatsApp messages) and unit prices.',
  keywords: ['sms credits', 'messaging allowance', 'how many texts left', 'email quota'],
  examples: ['how many SMS credits have we got left', 'what have we spent on texts this month', 'how many texts have we sent this month', "what's the messaging bill looking like so far", 'how close are we to our email sending limit', 'how many WhatsApp messages have we used this month', 'cost of SMS and WhatsApp so far this month', 'are we running low on text credits', 'texting costs this month', 'the treasurer is asking what messaging has cost us since the 1st, with email and SMS counts', 'how many text credits have we left this month?'],
  input: z.object({}),
  output: z.object({
    periodStart: z.string(),
    email: z.object({ sends: z.number().int() }).strict(),
    sms: z.object({ messages: z.number().int(), segments: z.number().int() }).strict(),
    whatsapp: z.object({ messages: z.number().int(), byCategory: z.record(z.string(), z.number().int()) }).strict(),
    estimatedCost: money,
    allowances: z.object({ emailSends: allowance, messagingCredits: allowance }).strict(),
    unitPrices: z.object({
      currency: z.string(), emailMinor: z.number().int(), smsSegmentMinor: z.number().int(), whatsappMinorByCategory: z.record(z.string(), z.number().int()),
    }).strict(),
  }).strict(),
  run: async (ctx) => {
    const usage = await channelUsageThisPeriod(ctx.db, ctx.org.id);
    const pick = ({ used, limit, remaining }: { used: number; limit: number | null; remaining: number | null }) => ({ used, limit, remaining });
    return {
      ...usage,
      allowances: {
        emailSends: pick(await usageFor(ctx.db, ctx.org.id, 'email_sends')),
        messagingCredits: pick(await usageFor(ctx.db, ctx.org.id, 'messaging_credits')),
      },
      unitPrices: { currency: PRICE_CURRENCY, emailMinor: UNIT_PRICES.email, smsSegmentMinor: UNIT_PRICES.sms, whatsappMinorByCategory: { ...UNIT_PRICES.whatsapp } },
    };
  },
});

export const deliveryTools = [sendEmailTool, sendSmsTool, sendWhatsAppTool, getMessageTool, listMessagesTool, getUsageTool];
