import { z } from 'zod';
import { hasScope } from '../../../core/principal';
import { SAFEGUARDING_SCOPE } from '../../../core/scopes';
import { AUTOMATION_TYPES, OUTREACH_CHANNELS } from '../../../core/approvals';
import { toolsFor } from '../../kit';
import {
  automationSchema, createAutomation, duplicateAutomation, generateOutreachForAutomation, listAutomations, listWelfareDueContacts,
  removeAutomation, requireAutomation, updateAutomation,
} from '../automations';
import { outreachItemSchema } from '../outreach';
import { getPastoralSettings } from '../pastoral/care/settings';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const automationId = z.uuid().describe('The pastoral automation\'s id');
const automationOutput = z.object({ automation: automationSchema }).strict();

const editable = {
  name: z.string().trim().min(1).max(120),
  channel: z.enum(OUTREACH_CHANNELS),
  subjectTemplate: z.string().trim().min(1).max(200).nullable().describe('Email subject; {{firstName}}, {{name}} and {{organisation}} are filled in'),
  bodyTemplate: z.string().trim().min(1).max(5000).describe('Message text; {{firstName}}, {{name}} and {{organisation}} are filled in'),
  enabled: z.boolean().describe('Disabled automations keep their settings but their schedule is paused'),
  intervalHours: z.number().int().min(1).max(24 * 30).describe('How often it runs'),
  daysWithoutContact: z.number().int().min(1).max(3650).describe('welfare_check: people with no pastoral contact for this many days'),
  targetTag: z.string().trim().min(1).max(100).nullable().describe('Only people with this tag (grief_support defaults to "bereaved")'),
  maxItemsPerRun: z.number().int().min(1).max(500),
};

export const createPastoralAutomationTool = tools.write('create_pastoral_automation', {
  title: 'Create a pastoral automation',
  description: 'Creates a scheduled pastoral automation (welfare_check, encouragement or grief_support). Each run queues draft messages in the outreach approval queue; it never sends anything itself. Templates default per type.',
  keywords: ['welfare check automation', 'schedule outreach', 'grief support', 'encouragement'],
  examples: ['regularly draft check-in messages for people', 'automatic grief support messages on a schedule', 'set up a monthly welfare check message for the housebound', 'automatically draft encouragement texts every week', 'create a grief support automation for the bereaved', "schedule regular check-in emails to people we haven't seen", 'draft encouragement messages every Monday automatically', 'new recurring welfare check by WhatsApp', 'monthly check-in for the housebound', "we keep forgetting people who've been ill, so set up automatic welfare message drafts each fortnight", 'I need a schedule that drafts encouraging texts to our volunteers'],
  input: z.object({
    name: editable.name, type: z.enum(AUTOMATION_TYPES), channel: editable.channel.default('email'),
    subjectTemplate: editable.subjectTemplate.optional(), bodyTemplate: editable.bodyTemplate.optional(), enabled: editable.enabled.default(true),
    intervalHours: editable.intervalHours.default(24),
    daysWithoutContact: editable.daysWithoutContact.optional().describe('welfare_check: people with no pastoral contact for this many days; default the welfare interval of the pastoral settings (180 unless changed)'),
    targetTag: editable.targetTag.optional(), maxItemsPerRun: editable.maxItemsPerRun.default(25),
  }),
  output: automationOutput,
  followUp: { kind: 'sync_automation_schedule' },
  run: async (ctx, input) => ({ automation: await createAutomation(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

export const setPastoralAutomationTool = tools.write('set_pastoral_automation', {
  title: 'Change a pastoral automation',
  description: 'Changes a pastoral automation; only the fields given change. Setting enabled=false pauses its schedule.',
  keywords: ['edit automation', 'pause automation', 'enable automation'],
  examples: ['change or pause an automation', 'turn a scheduled message automation on or off', 'pause the grief support automation over Christmas', 'change the welfare check automation to run fortnightly', 'switch the encouragement automation back on', 'edit the wording of the monthly check-in automation', 'move the weekly automation to Wednesdays', 'switch the welfare automation from email to SMS', 'pause the grief automation', "Pat's off until Easter and approves these, so hold the welfare automation till then", 'can the encouragement messages automation run monthly instead?'],
  input: z.object({
    automationId, name: editable.name.optional(), type: z.enum(AUTOMATION_TYPES).optional(), channel: editable.channel.optional(),
    subjectTemplate: editable.subjectTemplate.optional(), bodyTemplate: editable.bodyTemplate.optional(), enabled: editable.enabled.optional(),
    intervalHours: editable.intervalHours.optional(), daysWithoutContact: editable.daysWithoutContact.optional(),
    targetTag: editable.targetTag.optional(), maxItemsPerRun: editable.maxItemsPerRun.optional(),
  }),
  output: z.object({ automation: automationSchema, changedFields: z.array(z.string()) }).strict(),
  followUp: { kind: 'sync_automation_schedule' },
  run: async (ctx, input) => {
    const { automationId: id, ...changes } = input;
    return updateAutomation(ctx.db, ctx.org.id, id, changes);
  },
});

export const removePastoralAutomationTool = tools.write('remove_pastoral_automation', {
  title: 'Remove a pastoral automation',
  description: 'Removes a pastoral automation and stops its schedule. Messages it already queued stay in the approval queue.',
  keywords: ['delete automation'],
  examples: ['delete an automation', 'stop and remove a scheduled pastoral message', 'get rid of the monthly encouragement messages automation', 'scrap the welfare check automation altogether', "bin the grief support schedule, we won't use it again", 'permanently delete the old check-in automation', "we don't want that automated text anymore, remove it completely", 'take the birthday encouragement automation off the system for good', 'delete the welfare automation', 'the encouragement texts never got used, remove that automation for good', 'how do I get rid of an automated message schedule completely?'],
  destructive: true,
  input: z.object({ automationId }),
  output: z.object({ automationId: z.uuid(), removed: z.literal(true) }).strict(),
  followUp: { kind: 'sync_automation_schedule' },
  run: async (ctx, input) => {
    await removeAutomation(ctx.db, ctx.org.id, input.automationId);
    return { automationId: input.automationId, removed: true as const };
  },
});

export const duplicatePastoralAutomationTool = tools.write('duplicate_pastoral_automation', {
  title: 'Duplicate a pastoral automation',
  description: 'Copies a pastoral automation with its templates and settings; the copy starts disabled so it can be adjusted first.',
  keywords: ['copy automation', 'clone automation'],
  examples: ['copy an automation to make a variant', 'clone a pastoral automation', 'make a copy of the welfare check automation for the youth', 'duplicate the grief support automation so I can tweak it', 'copy the encouragement texts setup but send by email instead', 'start a new automation based on the existing check-in one', 'clone the monthly messages one for the evening congregation', 'same as our welfare automation but a copy I can edit', 'copy the grief automation', "I want the same welfare check schedule for the Welsh service, so clone it and I'll edit the copy", 'can I make a duplicate of the encouragement automation?'],
  input: z.object({ automationId, name: editable.name.optional() }),
  output: automationOutput,
  followUp: { kind: 'sync_automation_schedule' },
  run: async (ctx, input) => ({ automation: await duplicateAutomation(ctx.db, ctx.org.id, input.automationId, ctx.principal.userId, input.name) }),
});

export const listPastoralAutomationsTool = tools.read('list_pastoral_automations', {
  title: 'Pastoral automations',
  description: 'The organisation\'s pastoral automations with their type, channel, schedule and last run.',
  keywords: ['automations', 'welfare automations'],
  examples: ['which automations do we have', 'scheduled pastoral messages set up', 'what automatic pastoral messages have we got running', 'show all our scheduled check-in automations', 'list the automations and when each last ran', 'do we have a grief support automation set up already?', 'which welfare message schedules are switched on', "what's set to draft messages automatically each week", 'our automations', "I've inherited the pastoral admin, what automatic message schedules are set up", 'have we got anything that drafts welfare messages on its own?'],
  input: z.object({}),
  output: z.object({ automations: z.array(automationSchema) }).strict(),
  run: async (ctx) => ({ automations: await listAutomations(ctx.db, ctx.org.id) }),
});

export const getPastoralAutomationTool = tools.read('get_pastoral_automation', {
  title: 'One pastoral automation',
  description: 'One pastoral automation with its templates and last run.',
  keywords: ['automation details'],
  examples: ['the message templates of one automation', 'details of a pastoral automation', 'show me the wording of the welfare check automation', 'when did the grief support automation last run and what did it do', 'open the encouragement automation and show its settings', 'what text does the monthly check-in automation use', 'full details of the bereavement messages automation', 'which channel and schedule does that one automation use', "the welfare automation's details", "Sue asked what the grief support messages say, show me that automation's templates", 'when did the encouragement automation last run?'],
  input: z.object({ automationId }),
  output: automationOutput,
  run: async (ctx, input) => ({ automation: await requireAutomation(ctx.db, ctx.org.id, input.automationId) }),
});

export const runPastoralGenerationTool = tools.write('run_pastoral_generation', {
  title: 'Run a pastoral automation now',
  description: 'Runs a pastoral automation now instead of waiting for its schedule: queues draft messages for the people it targets in the outreach approval queue (pending_review). Nothing is sent. People who cannot receive the channel, or already have an open message for the same reason, are skipped and listed.',
  keywords: ['generate welfare messages', 'run automation', 'queue outreach'],
  examples: ['run an automation straight away', "draft this week's check-in messages now", 'kick off the grief support automation now rather than waiting', 'generate the welfare check drafts today', 'run the encouragement messages early this week', 'fire the check-in automation now and queue the drafts for review', "produce this month's welfare texts straight away", "trigger the automation so the drafts are ready for Monday's meeting", 'run the welfare check now', "the pastoral team meets tonight so generate this month's check-in drafts now", 'can you make the grief support automation queue its messages today?'],
  input: z.object({ automationId }),
  output: z.object({
    automationId: z.uuid(),
    items: z.array(outreachItemSchema),
    skipped: z.array(z.object({ contactId: z.uuid(), reason: z.string() }).strict()),
  }).strict(),
  followUp: { kind: 'people.start_outreach' },
  run: async (ctx, input) => {
    const automation = await requireAutomation(ctx.db, ctx.org.id, input.automationId);
    const { items, skipped } = await generateOutreachForAutomation(ctx.db, ctx.org, automation, { sourceRun: ctx.workflowId, createdByUserId: ctx.principal.userId });
    return { automationId: automation.id, items, skipped };
  },
});

export const listWelfareDueContactsTool = tools.read('list_welfare_due_contacts', {
  title: 'People due a welfare check',
  description: 'Contacts with no pastoral contact (no note, visit, or pastoral message) for the welfare interval of the pastoral settings (180 days unless changed) or the days given, longest first. Someone never contacted counts from when they were added.',
  keywords: ['welfare', 'not seen', 'lost touch', 'pastoral care gaps', 'check in'],
  examples: ['who have we not been in touch with for months', 'people nobody has contacted in a long time', "who hasn't had a visit, call or note in six months", "parishioners we've not contacted for over 90 days", 'members overdue a welfare check', 'folk with no pastoral contact since last year, longest first', "who's gone the longest without anyone from church checking in", 'welfare checks due', "who's overdue a check-in", "I've got a free afternoon for visits, who hasn't heard from anyone at church for ages", 'have we lost touch with anyone in the last six months?'],
  input: z.object({
    days: z.number().int().min(1).max(3650).optional().describe('Days without pastoral contact; default the welfare interval of the pastoral settings'),
    limit: z.number().int().min(1).max(500).default(50),
  }),
  output: z.object({
    days: z.number().int().describe('The number of days used'),
    contacts: z.array(z.object({
      contactId: z.uuid(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable(),
      lastPastoralContactAt: z.string().nullable(), daysSinceContact: z.number().int(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => {
    const days = input.days ?? (await getPastoralSettings(ctx.db, ctx.org.id)).welfareIntervalDays;
    return { days, contacts: await listWelfareDueContacts(ctx.db, ctx.org.id, { days, limit: input.limit, canSeeRestricted: hasScope(ctx.principal, SAFEGUARDING_SCOPE) }) };
  },
});
