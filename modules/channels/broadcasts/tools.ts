import { z } from 'zod';
import { isProposalActionWorkflowId } from '../../../core/approvals';
import { StewardError } from '../../../core/errors';
import { cursorInput, cursorOutput, toolsFor } from '../../kit';
import { channelMessageCosts, channelMessageCounts, MESSAGE_STATUSES } from '../delivery/services';
import { audienceSchema } from './audience';
import { broadcastSchema, CHANNELS, previewSchema, PURPOSES, recipientCountsSchema } from './schemas';
import {
  APPROVAL_RECIPIENT_THRESHOLD, BROADCAST_STATUSES, DEFAULT_RATE_PER_MINUTE, SCHEDULE_TOOL, cancelBroadcast, getBroadcast, getBroadcastPreview, listBroadcasts,
  previewBroadcast, recipientCounts, scheduleBroadcast, scheduleNeedsApproval,
} from './services';

const tools = toolsFor('channels', { read: 'channels:read', write: 'channels:send' });

const broadcastId = z.uuid().describe("The broadcast's id (channels_list_broadcasts)");
const actionSummary = z.string().trim().min(1).max(500).optional()
  .describe('Plain-English summary shown to the person approving (e.g. "Harvest supper invitation to 120 members by SMS")');

/**
 * What the follow-up step reads from a preview or cancel result: which broadcast's workflow to start
 * or stop. The workflow starts with the preview and waits until the broadcast is scheduled (a plain
 * call, or a person's approval of the gated call), since a gated tool has no follow-up of its own.
 */
const broadcastChangeSchema = z.object({ broadcastId: z.uuid(), change: z.enum(['scheduled', 'cancelled']) }).strict()
  .describe('For the durable step after the call: the broadcast whose sending workflow starts (and waits for scheduling) or stops');

export const previewBroadcastTool = tools.write('preview_broadcast', {
  title: 'Preview a broadcast',
  description: 'Dry run of an email, SMS or WhatsApp broadcast to a segment, tag or CRM group: how many people it reaches, how many are excluded and why (no consent for the channel and purpose, suppressed, no address, crisis hold, missing template variables), SMS segments and the estimated cost, and the message rendered for one recipient. Sends nothing and meters nothing; it saves the broadcast as previewed with a previewHash, which channels_schedule_broadcast needs. Pass broadcastId to change and re-preview a previewed broadcast. Give a template (templateId; its active version is used) or free-form content (body, plus subject for email); WhatsApp needs an approved template.',
  keywords: ['bulk message', 'mass email', 'newsletter', 'group text', 'announcement', 'dry run', 'audience', 'cost estimate', 'sms segments'],
  examples: ['how many people would get a text to the youth group', 'preview an email to all members before sending', 'what would an SMS to the volunteers tag cost', "draft an email to the whole congregation and show who'd miss out", 'what would it cost to text everyone on the flower rota', 'try the Gift Day email on the givers list without sending', 'how many of the choir group can we actually WhatsApp', 'show me how the carol service group text looks for one person', 'set up a newsletter to the parish list and check it first', 'preview a group email', "before the Lent course mailing goes to the whole parish, show me who gets it and who's left out", 'how much would a text to all the parents cost?'],
  input: z.object({
    broadcastId: z.uuid().optional().describe('A previewed broadcast to change and preview again; omit to start a new one'),
    name: z.string().trim().min(1).max(200).describe('A name people recognise it by ("Harvest supper invitation")'),
    channel: z.enum(CHANNELS),
    purpose: z.enum(PURPOSES).describe('marketing (fundraising, events to non-members…), charitable_purpose (the church\'s own work with people who gave soft opt-in), service (rota changes, cancellations)'),
    audience: audienceSchema,
    templateId: z.uuid().optional().describe('A template of the same channel (templates_list_templates); its active version is sent, rendered for each person'),
    variables: z.record(z.string().max(64), z.string().max(2000))
      .refine((values) => Object.keys(values).length <= 50, 'at most 50 variables').meta({ maxProperties: 50 })
      .default({}).describe('Template variables shared by every recipient (names come from each contact)'),
    subject: z.string().trim().min(1).max(500).optional().describe('Email subject, with free-form content'),
    body: z.string().trim().min(1).max(10_000).optional().describe('Free-form text, the same for everyone, when no template is used'),
    html: z.string().min(1).max(200_000).optional().describe('Email only: HTML beside the text body'),
    ratePerMinute: z.number().int().min(1).max(100_000).default(DEFAULT_RATE_PER_MINUTE).describe('Messages per minute while sending (throttle)'),
  }),
  output: z.object({ broadcast: broadcastSchema, preview: previewSchema, previewHash: z.string() }).strict(),
  run: async (ctx, input) => {
    const previewed = await previewBroadcast(ctx.db, ctx.org, {
      broadcastId: input.broadcastId, name: input.name, channel: input.channel, purpose: input.purpose, audience: input.audience,
      templateId: input.templateId ?? null, subject: input.subject ?? null, body: input.body ?? null, html: input.html ?? null,
      variables: input.variables, ratePerMinute: input.ratePerMinute, userId: ctx.principal.userId,
    }, new Date(), ctx.progress);
    return previewed;
  },
});

// Declared by its full name's tail: the bare verb would read as a tool of the schedule module.
export const scheduleBroadcastTool = tools.send(SCHEDULE_TOOL.slice('channels_'.length), {
  title: 'Schedule a broadcast',
  description: `Schedules a previewed broadcast to send now or at sendAt. Needs the previewHash channels_preview_broadcast gave: if the audience or the content changed since, it is refused with conflict (preview again). More than ${APPROVAL_RECIPIENT_THRESHOLD} recipients, or any marketing purpose, waits for a person's approval (the call answers approval_required with a proposal id; platform_approve_proposal). Sending is throttled, pauses for quiet hours, and checks each person's consent and suppression as their message goes, so someone who replies STOP meanwhile gets nothing more. A template broadcast sends the version its preview showed, even if another is activated before it goes. Sending starts within seconds of scheduling (or of the approval). Follow it with channels_get_broadcast.`,
  keywords: ['send broadcast', 'send newsletter', 'bulk sms', 'mass email', 'schedule send'],
  examples: ['send the harvest supper invitation tomorrow at 9', 'send the previewed text to the youth group now', 'send the Christmas newsletter on Friday at 8am', 'go ahead and send that group text now', 'the preview looks fine, send it to the choir', 'schedule the Gift Day mailout for Sunday afternoon', 'release the mass email to all parishioners tonight at 7', 'queue the youth group WhatsApp to go out Saturday morning', 'send the mailing now', 'the Lent course preview looks right, schedule it for Monday at 7am', 'can you send the newsletter to everyone on Friday morning?'],
  approval: {
    kind: 'gated',
    when: {
      reason: `the broadcast goes to more than ${APPROVAL_RECIPIENT_THRESHOLD} people or is for marketing`,
      applies: async (args, deps) => scheduleNeedsApproval(deps.db, deps.orgId, String(args.broadcastId), String(args.previewHash)),
    },
  },
  input: z.object({
    broadcastId,
    previewHash: z.string().max(64).regex(/^[0-9a-f]{64}$/).describe('previewHash from the latest channels_preview_broadcast of this broadcast'),
    sendAt: z.iso.datetime({ offset: true }).max(40).optional().describe('When to start sending (ISO 8601); omit to send now'),
    actionSummary,
  }),
  output: z.object({ broadcast: broadcastSchema, followUp: broadcastChangeSchema }).strict(),
  // Once the broadcast is scheduled (by this call, or by the approved proposal's run of it), the follow-up starts its sending workflow.
  followUp: { kind: 'channels.broadcast' },
  run: async (ctx, input) => {
    const sendAt = input.sendAt ? new Date(input.sendAt) : null;
    if (sendAt && sendAt.getTime() > Date.now() + 366 * 86_400_000) {
      throw new StewardError('validation_failed', 'sendAt is more than a year away', { issues: [{ path: 'sendAt', message: 'at most a year ahead' }] });
    }
    const broadcast = await scheduleBroadcast(ctx.db, ctx.org.id, {
      broadcastId: input.broadcastId, previewHash: input.previewHash, sendAt, approved: isProposalActionWorkflowId(ctx.org.id, ctx.workflowId),
    }, ctx.progress);
    return { broadcast, followUp: { broadcastId: broadcast.id, change: 'scheduled' as const } };
  },
});

export const cancelBroadcastTool = tools.write('cancel_broadcast', {
  title: 'Cancel a broadcast',
  description: 'Stops a broadcast: messages not yet sent are cancelled (one being handed to the provider at that moment still goes); messages already sent stay sent. Works on previewed, scheduled and sending broadcasts; cancelling a cancelled one changes nothing. A pending approval for it can then no longer be carried out.',
  keywords: ['stop broadcast', 'abort send', 'cancel newsletter'],
  examples: ['stop the text going out to the youth group', 'cancel tomorrow\'s newsletter', "don't send the Gift Day email after all", "halt the newsletter, there's a typo in it", 'scrap the group text to the choir', 'pull the Christmas mailout before it goes', 'stop the mass email midway, it has the wrong date', 'call off the scheduled WhatsApp to the youth parents', 'cancel the mailing', "the Lent course date in Monday's mass email is wrong, stop it before it goes", "can we call off the group text that's scheduled?"],
  input: z.object({ broadcastId, reason: z.string().trim().min(1).max(1000).optional() }),
  output: z.object({ broadcast: broadcastSchema, cancelledRecipients: z.number().int(), followUp: broadcastChangeSchema }).strict(),
  followUp: { kind: 'channels.broadcast' },
  run: async (ctx, input) => {
    const result = await cancelBroadcast(ctx.db, ctx.org.id, { broadcastId: input.broadcastId, reason: input.reason ?? null });
    return { ...result, followUp: { broadcastId: input.broadcastId, change: 'cancelled' as const } };
  },
});

const FUNNEL_STAGES = ['audience', 'recipients', 'sent', 'delivered'] as const;

/**
 * Each stage a subset of the one before: the audience as previewed, those it may reach (the
 * preview's eligible people, or the recipients written at dispatch), the messages handed to the
 * provider, and those the provider confirmed delivered.
 */
function deliveryFunnel(totalRecipients: number, preview: { total: number; eligible: number } | null, messages: Record<(typeof MESSAGE_STATUSES)[number], number>) {
  const audience = Math.max(preview?.total ?? 0, totalRecipients);
  const recipients = Math.min(audience, preview ? preview.eligible : totalRecipients);
  const sent = Math.min(recipients, messages.sent + messages.delivered + messages.undelivered);
  const delivered = Math.min(sent, messages.delivered);
  return [
    { stage: 'audience' as const, count: audience },
    { stage: 'recipients' as const, count: recipients },
    { stage: 'sent' as const, count: sent },
    { stage: 'delivered' as const, count: delivered },
  ];
}

export const getBroadcastTool = tools.read('get_broadcast', {
  title: 'Get a broadcast',
  description: 'One broadcast with where it stands: its status (previewed, pending_approval with the proposal id, approved, scheduled, sending, completed, partially_failed, cancelled), recipients by status (sent, skipped, failed, waiting), the people skipped at dispatch by reason (e.g. suppressed after a STOP, consent withdrawn), failures by reason, its messages by delivery status (queued, sent, delivered, undelivered, failed), their estimated cost and the actual cost providers reported (by currency; unpriced messages counted apart), and the preview it was scheduled from (excluded counts by reason, cost).',
  keywords: ['broadcast status', 'delivery report', 'how many were sent'],
  examples: ['how did the newsletter go', 'how many texts have gone out so far', 'how many people actually got the Christmas newsletter', 'has the group text to the choir finished sending', 'why were some people skipped from the Gift Day email', 'is the newsletter still waiting for approval', 'how many of the youth group texts failed and why', 'what did the carol service mailout end up costing', 'mailing status', 'Ray says the parish newsletter never reached him, how did that broadcast go and who was skipped?', 'has the Lent course mailing finished sending?'],
  input: z.object({ broadcastId }),
  output: z.object({
    broadcast: broadcastSchema,
    recipients: recipientCountsSchema,
    messages: z.object(Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, z.number().int()])) as Record<(typeof MESSAGE_STATUSES)[number], z.ZodNumber>).strict()
      .describe('Messages of the broadcast by delivery status (channels_list_messages with broadcastId lists them)'),
    cost: z.object({
      estimated: z.object({ amountMinor: z.number().int(), currency: z.string() }).strict().describe('The estimate of the messages queued so far, in minor units'),
      actual: z.array(z.object({ amountMinor: z.number().int(), currency: z.string(), messages: z.number().int() }).strict())
        .describe('What the providers reported charging, in minor units, one entry per currency billed; messages: how many reported a price'),
      messagesWithoutActualCost: z.number().int().describe('Messages no provider has priced yet: their actual cost is unknown, not zero'),
    }).strict().describe('Estimated and, where a provider reported it in a status callback, actual cost'),
    preview: previewSchema.nullable(),
    funnel: z.array(z.object({ stage: z.enum(FUNNEL_STAGES), count: z.number().int() }).strict())
      .describe('The delivery funnel, each stage a subset of the one before: audience (everyone the audience held at preview), recipients (those left after exclusions), sent (handed to the provider), delivered (confirmed by the provider)'),
  }).strict(),
  run: async (ctx, input) => {
    const broadcast = await getBroadcast(ctx.db, ctx.org.id, input.broadcastId);
    const messages = await channelMessageCounts(ctx.db, ctx.org.id, broadcast.id);
    const preview = await getBroadcastPreview(ctx.db, ctx.org.id, broadcast.id);
    return {
      broadcast,
      recipients: await recipientCounts(ctx.db, ctx.org.id, broadcast.id),
      messages,
      cost: await channelMessageCosts(ctx.db, ctx.org.id, broadcast.id),
      preview,
      funnel: deliveryFunnel(broadcast.totalRecipients, preview, messages),
    };
  },
});

export const listBroadcastsTool = tools.read('list_broadcasts', {
  title: 'List broadcasts',
  description: 'Broadcasts newest first, optionally only those in one status; page with nextCursor. channels_get_broadcast shows one with its counts.',
  keywords: ['broadcasts', 'newsletters sent', 'bulk messages', 'mailouts', 'group messages'],
  examples: ['which mass emails have we sent this month', 'newsletters waiting to go out', 'list all our group texts', 'what mailouts have gone out since Easter', 'show the newsletters we cancelled', 'which bulk emails are scheduled to send', 'past mass messages to the congregation', 'any group messages still pending approval', "list the broadcasts we've sent", 'which broadcasts failed or were cancelled', 'show the group texts waiting to be sent', 'what bulk messages went out last week'],
  input: z.object({ status: z.enum(BROADCAST_STATUSES).optional(), ...cursorInput }),
  output: z.object({ broadcasts: z.array(broadcastSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listBroadcasts(ctx.db, ctx.org.id, input),
});

export const broadcastTools = [previewBroadcastTool, scheduleBroadcastTool, cancelBroadcastTool, getBroadcastTool, listBroadcastsTool];
