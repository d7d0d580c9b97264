import { z } from 'zod';
import { cursorInput, cursorOutput, toolsFor } from '../../../kit';
import type { ToolContext } from '../../../tool';
import { instanceIdSchema, welcomeCardSchema } from '../schemas';
import { getInstance } from '../../../schedule/api';
import { listWelcomeCards, markWelcomeCardSent, sendWelcomeCard, submitWelcomeCard, WELCOME_CHANNELS, WELCOME_PURPOSES, WELCOME_TEMPLATES } from '../welcome-cards';

const tools = toolsFor('guests', { read: 'guests:read', write: 'guests:write' });
const actor = (ctx: ToolContext) => ctx.principal.userId;
const matchField = z.enum(['email', 'phone', 'name']);

export const listWelcomeCardTemplatesTool = tools.read('list_welcome_card_templates', {
  title: 'Welcome card templates',
  description: 'The welcome cards that can be sent to guests (first visit, second visit, family…), with the channels each is written for and its text; {firstName} and {churchName} are filled in when sent.',
  keywords: ['welcome card', 'guest letter', 'thank you for visiting', 'welcome card wording', 'card templates'],
  examples: ['what welcome cards can we send', 'show me the wording of our thank-you-for-visiting letter', 'which newcomer letters do we have', 'what welcome card designs are available', 'show the text of the second-visit card', 'which welcome messages can go by text', 'list our newcomer card wording options', 'do we have a welcome card for families', 'what does the first-visit welcome email say', 'what welcome card options have we got for guests', 'read me the family welcome card text', 'which welcome cards are written for email'],
  input: z.object({}),
  output: z.object({
    templates: z.array(z.object({ key: z.string(), title: z.string(), channels: z.array(z.enum(WELCOME_CHANNELS)), subject: z.string().nullable(), body: z.string() }).strict()),
  }).strict(),
  run: async () => ({ templates: WELCOME_TEMPLATES.map((template) => ({ ...template, channels: [...template.channels] })) }),
});

export const sendWelcomeCardTool = tools.send('send_welcome_card', {
  title: 'Send a guest a welcome card',
  description: 'Sends a newcomer a welcome card from a template, filled in with their name. Email and text go through channels: their consent for the purpose (default charitable_purpose), unsubscribes, bounces and crisis holds are checked now and again when it goes, quiet hours respected, counted once. A card by post needs their postal address and is queued for a person to write and post: the guest\'s follow-up person, the team member named, or the caller. Recorded on the guest\'s journey.',
  keywords: ['welcome card', 'thank you card', 'write to a visitor', 'newcomer letter', 'welcome email'],
  examples: ['send Sam a welcome card by post', 'email the new family a thank-you for coming', 'text the visitor from Sunday a quick welcome', 'send a second-visit card to Priya', 'send the Khans our family welcome card', 'post a welcome card to Ben', 'email Jo the first-visit welcome card', 'text Priya a welcome from the template', 'queue a handwritten welcome card for the new couple', 'send the Okafors a card saying lovely to meet you', 'send the Harpers a welcome card', 'the Nolans visited for the first time on Sunday, email them our welcome card'],
  followUp: { kind: 'channels.send_message' },
  input: z.object({
    contactId: z.uuid().describe('The guest'),
    templateKey: z.string().trim().min(1).max(100).default('first_visit').describe('From guests_list_welcome_card_templates (default first_visit)'),
    channel: z.enum(WELCOME_CHANNELS).default('email'),
    purpose: z.enum(WELCOME_PURPOSES).default('charitable_purpose').describe('Consent purpose for email and text: charitable_purpose (default; needs their consent), service (a reply they asked for), marketing'),
    queueForUserId: z.uuid().optional().describe('For a posted card: the team member who will write it (default: the guest card\'s assignee, else the caller)'),
    personalNote: z.string().trim().min(1).max(1000).optional().describe('A line added at the end'),
  }),
  output: z.object({
    welcomeCard: welcomeCardSchema,
    delivery: z.enum(['channels', 'queued_for_person']),
    message: z.object({ id: z.uuid(), status: z.string(), deferredUntil: z.string().nullable().describe('Quiet hours: when it will go') }).strict().nullable()
      .describe('The channel message (email, text); channels_get_message shows its delivery'),
  }).strict(),
  run: async (ctx, input) => sendWelcomeCard(ctx.db, ctx.org, actor(ctx), input),
});

export const markWelcomeCardSentTool = tools.write('mark_welcome_card_sent', {
  title: 'Mark a welcome card sent',
  description: 'Records that a person sent a queued welcome card (posted, emailed or texted it). Only a queued card can be marked.',
  keywords: ['welcome card sent', 'posted card', 'card posted', 'welcome card done'],
  examples: ['I posted Sam\'s welcome card', 'the handwritten card for the Lees went in the post today', 'the card to the Khans has been posted', "I hand-delivered Ben's welcome card", "mark Jo's welcome card as sent", "Anna wrote and posted the Okafors' card", "Priya's card went out second class today", 'tick off the welcome card for the new couple', "I've emailed the welcome card to Isla", "Leo's welcome card has been posted through the door", "record that the Hassans' card went out today", "Mark's card is written and sent, mark it off"],
  input: z.object({ welcomeCardId: z.uuid() }),
  output: z.object({ welcomeCard: welcomeCardSchema }).strict(),
  run: async (ctx, input) => ({ welcomeCard: await markWelcomeCardSent(ctx.db, ctx.org.id, actor(ctx), input.welcomeCardId) }),
});

export const listWelcomeCardsTool = tools.read('list_welcome_cards', {
  title: 'Welcome cards',
  description: 'Welcome cards prepared for guests, newest first, with who they are queued for and whether they were sent.',
  keywords: ['welcome cards', 'cards to send', 'queued cards', 'cards sent'],
  examples: ['which welcome cards still need sending', 'what welcome letters went out this month', 'has the new family had a card yet', 'welcome cards waiting to be written', 'did Ben get a welcome card', 'list the cards queued for posting', 'which newcomers were sent a card last week', 'show welcome cards emailed this month', 'who still needs a handwritten card', 'which welcome cards are still queued', 'have the Hassans been sent a welcome card', 'list welcome cards sent since September'],
  input: z.object({ contactId: z.uuid().optional(), status: z.enum(['queued', 'dispatched', 'sent', 'cancelled']).optional(), ...cursorInput }),
  output: z.object({ welcomeCards: z.array(welcomeCardSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => {
    const page = await listWelcomeCards(ctx.db, ctx.org.id, input);
    return { welcomeCards: page.cards, nextCursor: page.nextCursor };
  },
});

export const submitWelcomeCardTool = tools.write('submit_welcome_card', {
  title: 'Record a filled-in welcome card',
  description: 'Records a welcome (connect) card a guest filled in: finds them among contacts by email, phone or full name (reported, strongest match used) or adds them, and opens their guest pipeline card. A guest never gets a second card: a repeat submission reports the card they have.',
  keywords: ['connect card', 'visitor card', 'new guest form', 'welcome card submission', 'visitor form'],
  examples: ['Sam Green filled in a welcome card: sam@example.com, heard about us from a friend', 'enter the visitor cards from this morning', 'a new family left their details in the foyer box', 'type in the connect card from Jo Bell, 07700 900111', 'log the visitor slips from the evening service', 'new visitor card: Priya Shah, priya@example.com, just moved here', 'record the details the Khans wrote on their card', 'a couple filled in a welcome form today, add them', "process this morning's connect cards", 'enter a connect card', 'Tom Harper filled in a card this morning: tom@example.org, found us online, record it', 'can you add the details from the visitor card in the box?'],
  input: z.object({
    firstName: z.string().trim().min(1).max(100),
    lastName: z.string().trim().min(1).max(100).optional(),
    email: z.email().max(320).optional(),
    phone: z.string().trim().min(6).max(40).optional(),
    instanceId: instanceIdSchema.optional().describe('The service they came to'),
    howHeard: z.string().trim().min(1).max(500).optional(),
    interests: z.array(z.string().trim().min(1).max(100)).max(20).optional(),
    message: z.string().trim().min(1).max(2000).optional().describe('Anything they wrote (a question, a prayer request)'),
  }),
  output: z.object({
    submissionId: z.uuid(), contactId: z.uuid(), contactOutcome: z.enum(['created', 'matched']), matchedOn: z.array(matchField),
    otherCandidates: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), matchedOn: z.array(matchField) }).strict()).describe('Other contacts that looked like the same person, for a person to check'),
    cardId: z.uuid(), cardCreated: z.boolean(),
  }).strict(),
  run: async (ctx, input) => {
    if (input.instanceId) await getInstance(ctx.db, ctx.org.id, input.instanceId);
    return submitWelcomeCard(ctx.db, ctx.org, actor(ctx), input);
  },
});

export const welcomeTools = [listWelcomeCardTemplatesTool, sendWelcomeCardTool, markWelcomeCardSentTool, listWelcomeCardsTool, submitWelcomeCardTool];
