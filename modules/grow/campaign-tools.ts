import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { audienceSchema } from '../channels/api';
import { toolsFor } from '../kit';
import {
  AB_VARIABLES, APPROVAL_RECIPIENT_THRESHOLD, CAMPAIGN_STATUSES, SCHEDULE_TOOL, campaignReport, cancelCampaign, createCampaign, listCampaigns, pauseCampaign, pickWinnerByPerson,
  previewCampaign, scheduleCampaign, scheduleNeedsApproval, setAbVariants, updateCampaign, campaignView,
} from './campaigns';

const tools = toolsFor('grow', { read: 'grow:read', write: 'grow:write' });

const campaignId = z.uuid().describe('The campaign (grow_list_campaigns)');
const actionSummary = z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver');

const audienceOut = z.object({ kind: z.enum(['segment', 'tag', 'group']), id: z.string() }).strict();
const campaignSchema = z.object({
  id: z.uuid(), name: z.string(), status: z.enum(CAMPAIGN_STATUSES), audience: audienceOut, purpose: z.string(), subject: z.string(), body: z.string(),
  fromName: z.string().nullable(), replyTo: z.string().nullable(), links: z.array(z.string()).describe('Links tracked through Steward\'s signed redirect'),
  previewHash: z.string().nullable(), totalRecipients: z.number().int(), sendAt: z.string().nullable(),
  abTest: z.object({
    variable: z.string(), testPercent: z.number().int(), waitHours: z.number(),
    variants: z.array(z.object({ position: z.number().int(), subject: z.string(), fromName: z.string().nullable(), body: z.string() }).strict()),
    winner: z.number().int().nullable(), winnerBy: z.string().nullable().describe('clicks, tie_first (a tie keeps the first variant) or person'),
  }).strict().nullable(),
  testSentAt: z.string().nullable(), sentAt: z.string().nullable(), createdAt: z.string(),
}).strict();
const previewSchema = z.object({
  recipients: z.number().int(), excluded: z.array(z.object({ reason: z.string(), count: z.number().int() }).strict()).describe('People left out, by reason (no_consent, suppressed, no_address, crisis_hold…)'),
  sample: z.object({ subject: z.string(), body: z.string() }).strict().nullable(),
}).strict();
const variantReport = z.object({
  variant: z.number().int().describe('-1 for the whole campaign'), recipients: z.number().int(), handed: z.number().int().describe('Taken by the mail provider'), skipped: z.number().int().describe('Not sent: channels would not message them (reasons under excluded)'),
  failed: z.number().int().describe('Not sent and not to be tried again: refused by the mail provider for good, given up after repeated attempts it could not take, refused by channels for a reason other than the person (the plan\'s allowance), or waiting for a person\'s review (reasons under failures)'),
  openedUnique: z.number().int().describe('People who opened (machine opens left out)'), machineOpens: z.number().int().describe('Opens by mail privacy proxies and scanners'),
  clickedUnique: z.number().int(), clicksPerLink: z.array(z.object({ url: z.string(), uniqueClicks: z.number().int() }).strict()), unsubscribed: z.number().int(),
  delivered: z.number().int().describe('The mail provider reported it delivered to the recipient\'s mail server (a later hard bounce counts as the bounce)'),
  hardBounced: z.number().int().describe('The mail provider said the address does not exist (now suppressed)'), softBounced: z.number().int().describe('A temporary failure (a full mailbox), no hard bounce'),
  complained: z.number().int().describe('Marked it as spam (now suppressed)'),
}).strict();

const fields = {
  name: z.string().trim().min(1).max(200),
  audience: audienceSchema,
  purpose: z.enum(['marketing', 'charitable_purpose']).optional().describe('marketing (default) or charitable_purpose (the church\'s own work with people who gave soft opt-in)'),
  subject: z.string().trim().min(1).max(300),
  body: z.string().trim().min(1).max(20_000).describe('The email text; https links in it are tracked'),
  fromName: z.string().trim().min(1).max(100).nullable().optional(),
  replyTo: z.email().max(254).nullable().optional(),
};

const listTool = tools.read('list_campaigns', {
  title: 'List email campaigns',
  description: 'Email campaigns newest first: status (draft, previewed, scheduled, testing, sending, sent, paused, cancelled), audience, content, A/B test and winner.',
  keywords: ['email campaigns', 'newsletters', 'mailchimp', 'email campaigns list', 'mailings'],
  examples: ['what email campaigns have we sent', 'is the Christmas campaign scheduled', 'which email campaigns are scheduled to go out', 'list our email marketing campaigns from this year', 'show draft email campaigns', 'are any campaigns paused or still sending', 'what was the subject of our last campaign', 'which email mailings do we have', 'show all email campaigns sent this autumn', 'list our cancelled and paused email campaigns', 'what email newsletters are still drafts'],
  input: z.object({ status: z.enum(CAMPAIGN_STATUSES).optional(), limit: z.number().int().min(1).max(100).default(25) }),
  output: z.object({ campaigns: z.array(campaignSchema) }).strict(),
  run: async (ctx, input) => ({ campaigns: await listCampaigns(ctx.db, ctx.org.id, input.status, input.limit) }),
});

const createTool = tools.write('create_campaign', {
  title: 'Create an email campaign',
  description: 'Creates an email campaign as a draft: audience (a people segment, tag or CRM group), purpose, subject and text (its https links are tracked), from-name and reply-to. Preview it next (grow_preview_campaign). Grow sends only through the channels outbox, with each person\'s consent checked.',
  keywords: ['new email campaign', 'email newsletter', 'invitation email', 'new mailing', 'email appeal', 'draft email', 'email everyone'],
  examples: ['write an email campaign inviting the newsletter list to the carol service', 'start an email campaign to the parents tag', 'draft an email to the Alpha interest group about the next course', 'new campaign inviting families to Messy Church', 'create an Easter invitation email to everyone on the newsletter segment', 'write a harvest appeal campaign with reply-to the office', 'set up a Christmas services email campaign for the parish list', 'create an email to the choir group about rehearsals', 'new email campaign for the summer fete', 'write a Lent course invitation to the newcomers tag', 'draft a mailing to all parents about the holiday club', 'write an email to the whole congregation about the gift day'],
  input: z.object(fields),
  output: z.object({ campaign: campaignSchema }).strict(),
  run: async (ctx, input) => ({ campaign: await createCampaign(ctx.db, ctx.org.id, input) }),
});

const updateTool = tools.write('update_campaign', {
  title: 'Update an email campaign',
  description: 'Changes a draft or previewed campaign (audience, subject, text, sender). Any change makes it a draft again: preview it again before scheduling.',
  keywords: ['edit campaign', 'change email subject', 'edit mailing', 'change campaign'],
  examples: ['change the subject of the Christmas email', 'send the campaign to the members tag instead', 'fix the wording in the Alpha email draft', 'change the reply-to on the Easter campaign to the vicar', 'send the Messy Church email to the families segment instead', 'the campaign should come from St Mary\'s Church', 'change the Easter campaign subject to \'You\'re invited this Easter\'', 'edit the summer fete email text', 'change who the Lent email is going to', 'update the sender name on the holiday club campaign', 'reword the opening paragraph of the Pentecost mailing'],
  input: z.object({ campaignId, ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (v as z.ZodType).optional()])) as { [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]> } }),
  output: z.object({ campaign: campaignSchema }).strict(),
  run: async (ctx, input) => ({ campaign: await updateCampaign(ctx.db, ctx.org.id, input.campaignId, input) }),
});

const previewTool = tools.write('preview_campaign', {
  title: 'Preview an email campaign',
  description: 'Resolves the audience now and checks each person as their email will be checked: how many it reaches and who is left out by reason (no consent for the purpose, suppressed, no address, crisis hold). Saves a previewHash that grow_schedule_campaign needs: the approval binds to this audience and content. Sends nothing.',
  keywords: ['campaign audience', 'who will get the email', 'dry run campaign', 'preview email audience', 'check recipients'],
  examples: ['how many people would get the Christmas email', 'preview the campaign and show who is excluded', 'check who\'d miss the Alpha email because they haven\'t consented', 'dry run the Easter campaign before we schedule it', 'how many on the families list can we actually email', 'preview the harvest appeal email audience', 'who\'ll be left out of the Christmas email and why', 'preview the summer fete email', 'who will actually receive the Lent course mailing', 'check the holiday club email audience before it goes', 'how many can we reach with the Pentecost campaign'],
  input: z.object({ campaignId }),
  output: z.object({ campaign: campaignSchema, preview: previewSchema, previewHash: z.string() }).strict(),
  followUp: { kind: 'grow.campaign' },
  run: async (ctx, input) => previewCampaign(ctx.db, ctx.org.id, input.campaignId, new Date(), ctx.progress),
});

const abTool = tools.write('add_ab_variants', {
  title: 'Add A/B variants to a campaign',
  description: 'Makes the campaign an A/B test of one variable (subject, from_name or content): the campaign\'s own value is variant 0 and these are the others (two to five in all). A random, equal-sized test group (10–50 %) gets the variants; after waitHours the variant with the most clicks (never opens) goes to the rest; a tie keeps the first. Preview again afterwards.',
  keywords: ['ab test', 'split test', 'subject line test', 'ab variants', 'test versions'],
  examples: ['A/B test two subject lines for the Christmas invitation', 'try a different from name on 20% first', 'split test the Easter email with three different subjects', 'try two versions of the Alpha email text on 30% of people', 'test \'St Mary\'s\' versus \'Rev Jo\' as the sender', 'A/B the harvest appeal subject and pick the winner after 4 hours', 'see which subject gets more clicks before sending to everyone', 'test two subject lines on the summer fete email', 'split the Lent course email: 25% get version B first', 'try three different openings of the holiday club email', 'A/B the sender name on the Pentecost mailing'],
  input: z.object({
    campaignId, variable: z.enum(AB_VARIABLES), values: z.array(z.string().trim().min(1).max(20_000)).min(1).max(4).describe('The other variants\' values'),
    testPercent: z.number().int().min(10).max(50).default(20), waitHours: z.number().min(0.0003).max(168).default(4).describe('How long the test group has before the winner is chosen'),
  }),
  output: z.object({ campaign: campaignSchema }).strict(),
  run: async (ctx, input) => {
    if (input.variable !== 'content' && input.values.some((v) => v.length > 300)) throw new StewardError('validation_failed', 'A subject or from name is at most 300 characters', { issues: [{ path: 'values', message: 'too long' }] });
    return { campaign: await setAbVariants(ctx.db, ctx.org.id, input.campaignId, input) };
  },
});

const scheduleTool = tools.send(SCHEDULE_TOOL.slice('grow_'.length), {
  title: 'Schedule an email campaign',
  description: `Schedules a previewed campaign now or at sendAt with the previewHash grow_preview_campaign gave (refused as stale if the audience or content changed since). A new audience (none sent to before) or more than ${APPROVAL_RECIPIENT_THRESHOLD} recipients waits for a person's approval. Each email is queued in the channels outbox, which checks consent and suppression again as it leaves and adds one-click unsubscribe.`,
  keywords: ['send campaign', 'schedule email', 'send newsletter', 'send mailing', 'schedule mailing'],
  examples: ['send the Christmas campaign on Friday at 8', 'schedule the previewed email now', 'send the Alpha invitation email Tuesday at 9am', 'the Easter campaign is approved, send it out now', 'schedule the harvest appeal campaign for Sunday evening', 'queue the Messy Church email to go tomorrow morning', 'send the campaign to the families segment now', 'send the summer fete email on Saturday at 7am', 'schedule the Lent course mailing for Monday morning', 'the holiday club email is previewed, send it now', 'set the Pentecost campaign to go out on Thursday'],
  approval: { kind: 'gated', when: { reason: `the campaign goes to a new audience or to more than ${APPROVAL_RECIPIENT_THRESHOLD} people`, applies: async (args, deps) => scheduleNeedsApproval(deps.db, deps.orgId, String(args.campaignId), String(args.previewHash)) } },
  task: {},
  input: z.object({
    campaignId, previewHash: z.string().max(64).regex(/^[0-9a-f]{64}$/), sendAt: z.iso.datetime({ offset: true }).max(40).optional().describe('When to send (default now)'), actionSummary,
  }),
  output: z.object({ campaign: campaignSchema }).strict(),
  followUp: { kind: 'grow.campaign' },
  run: async (ctx, input) => ({ campaign: await scheduleCampaign(ctx.db, ctx.org.id, input.campaignId, input.previewHash, input.sendAt ? new Date(input.sendAt) : null, ctx.progress) }),
});

const pauseTool = tools.write('pause_campaign', {
  title: 'Pause or resume a campaign',
  description: 'Pauses a scheduled or sending campaign (nothing more is handed to the outbox until it resumes) or resumes it (resume: true).',
  keywords: ['pause email', 'hold campaign', 'resume campaign', 'pause mailing', 'resume mailing', 'halt campaign', 'hold email'],
  examples: ['pause the Christmas email', 'resume the paused campaign', 'hold the Easter email, there\'s a mistake in it', 'stop the Alpha campaign sending for now', 'carry on sending the paused harvest appeal', 'put the Messy Church campaign on hold until Monday', 'restart the Christmas campaign', 'pause the summer fete email for now', 'hold off the Lent mailing until we check the date', 'resume the holiday club email campaign', 'temporarily stop the Pentecost campaign sending', 'stop the newsletter for now, there is a mistake in it'],
  idempotent: true,
  input: z.object({ campaignId, resume: z.boolean().default(false) }),
  output: z.object({ campaign: campaignSchema, changed: z.boolean() }).strict(),
  followUp: { kind: 'grow.campaign_poke' },
  run: async (ctx, input) => pauseCampaign(ctx.db, ctx.org.id, input.campaignId, input.resume),
});

const cancelTool = tools.write('cancel_campaign', {
  title: 'Cancel a campaign',
  description: 'Cancels a campaign before it is sent: recipients whose email nothing is sending get nothing (an email queued, or waiting to be tried again, is withdrawn from the outbox). An email being sent at that moment is finished, once, and counted by what became of it; one already sent stays sent.',
  keywords: ['stop campaign', 'cancel email', 'cancel mailing', 'abandon campaign'],
  examples: ['cancel the Christmas campaign', 'do not send the appeal email after all', 'scrap the Easter email campaign, we won\'t send it', 'cancel the scheduled Alpha campaign', 'don\'t send the rest of the harvest appeal', 'call off the Messy Church email before it goes', 'the scheduled campaign is wrong, stop it for good', 'cancel the summer fete email altogether', "we're not sending the Lent course mailing, cancel it", 'scrap the holiday club campaign for good', 'the event is off, cancel the Pentecost email permanently'],
  idempotent: true,
  input: z.object({ campaignId }),
  output: z.object({ campaign: campaignSchema, cancelledRecipients: z.number().int() }).strict(),
  followUp: { kind: 'grow.campaign_poke' },
  run: async (ctx, input) => cancelCampaign(ctx.db, ctx.org.id, input.campaignId),
});

const pickTool = tools.write('pick_ab_winner', {
  title: 'Pick the A/B winner',
  description: 'A person picks the A/B test\'s winning variant before the timer does; the rest of the audience then gets it.',
  keywords: ['choose winner', 'ab winner', 'pick winner', 'winning variant'],
  examples: ['send variant B to everyone else', 'pick the second subject line as the winner', 'the shorter subject line is clearly winning, use it for the rest', 'choose variant A for the Easter campaign', 'we\'ve seen enough, send the winning version now', 'end the split test on the harvest appeal with version 2', 'go with the \'from Rev Jo\' version for everyone', 'pick the winning subject on the summer fete email', 'version A won, send it to the rest of the list', 'end the Lent email A/B test now and use variant 1', 'choose the winning sender name for the holiday club email'],
  input: z.object({ campaignId, variant: z.number().int().min(0).max(4) }),
  output: z.object({ campaign: campaignSchema }).strict(),
  followUp: { kind: 'grow.campaign_poke' },
  run: async (ctx, input) => ({ campaign: await pickWinnerByPerson(ctx.db, ctx.org.id, input.campaignId, input.variant) }),
});

const reportTool = tools.read('get_campaign_report', {
  title: 'Campaign report',
  description: 'A campaign\'s numbers, computed from its recipients and tracking events: taken by the mail provider, skipped and failed by reason, unique opens (machine opens apart), unique clicks and clicks per link, unsubscribed, delivered, hard and soft bounces and complaints (from the mail provider\'s events, through channels), per A/B variant.',
  keywords: ['open rate', 'click rate', 'campaign stats', 'email report', 'campaign results', 'email stats'],
  examples: ['how did the Christmas email do', 'which subject line won the A/B test', 'how many people clicked the link', 'open and click numbers for the Easter campaign', 'how many unsubscribed after the harvest appeal', 'which link got clicked most in the Alpha email', 'how many were skipped for no consent on the last campaign', 'results for the summer fete email', 'how many opened the Lent course mailing', 'bounces and complaints on the holiday club campaign', 'how did the Pentecost email perform'],
  input: z.object({ campaignId }),
  output: z.object({
    campaign: campaignSchema, totals: variantReport, variants: z.array(variantReport),
    excluded: z.array(z.object({ reason: z.string(), count: z.number().int() }).strict()).describe('Skipped recipients by reason (no_consent, suppressed…)'),
    failures: z.array(z.object({ reason: z.string(), count: z.number().int() }).strict()).describe('Failed recipients by reason (delivery_refused…)'),
  }).strict(),
  run: async (ctx, input) => campaignReport(ctx.db, ctx.org.id, input.campaignId),
});

const getTool = tools.read('get_campaign', {
  title: 'Get a campaign',
  description: 'One email campaign with its status, audience, content, preview hash and A/B test.',
  keywords: ['campaign details', 'one campaign', 'campaign content'],
  examples: ['show the Christmas campaign', 'what audience is the Easter campaign going to', 'who is the Alpha invitation campaign from', 'is the harvest appeal campaign scheduled or still a draft', 'show the text and subject of the Advent email campaign', 'what\'s in the Alpha email campaign', 'does the Christmas campaign have an A/B test', 'open the Pentecost email campaign', "what's the subject line on the Lent course email", 'who is the Advent campaign going to', 'show me the carol service email campaign in full'],
  input: z.object({ campaignId }),
  output: z.object({ campaign: campaignSchema }).strict(),
  run: async (ctx, input) => ({ campaign: await campaignView(ctx.db, ctx.org.id, input.campaignId) }),
});

export const growCampaignTools = [listTool, getTool, createTool, updateTool, previewTool, abTool, scheduleTool, pauseTool, cancelTool, pickTool, reportTool];
