import { z } from 'zod';
import { toolsFor } from '../kit';
import {
  ACTIVATE_TOOL, AUTOMATION_STATUSES, RUN_STATUSES, activateAutomation, activationNeedsApproval, cancelRun, conditionsSchema, createAutomation, listAutomations, listRuns,
  pauseAutomation, stepsSchema, triggerSchema, updateAutomation,
} from './automations';

const tools = toolsFor('grow', { read: 'grow:read', write: 'grow:write' });

const automationId = z.uuid().describe('The automation (grow_list_automations)');
const runCounts = z.object({ active: z.number().int(), completed: z.number().int(), stopped: z.number().int(), cancelled: z.number().int(), failed: z.number().int() }).strict();
const automationSchema = z.object({
  id: z.uuid(), name: z.string(), status: z.enum(AUTOMATION_STATUSES), version: z.number().int().describe('Edits make a new version; runs keep the one they started with'),
  trigger: z.record(z.string(), z.unknown()), conditions: z.record(z.string(), z.unknown()).nullable(), steps: z.array(z.record(z.string(), z.unknown())),
  allowReentry: z.boolean(), messagesPeople: z.boolean().describe('Emails or texts people: activation needs a person\'s approval'),
  activatedAt: z.string().nullable(), runs: runCounts, createdAt: z.string(), updatedAt: z.string(),
}).strict();
const runSchema = z.object({
  id: z.uuid(), automationId: z.uuid(), version: z.number().int(), contactId: z.uuid(), contactName: z.string().nullable(), entry: z.number().int().describe('1 for the first run of this person'),
  status: z.enum(RUN_STATUSES), step: z.number().int().describe('The step it is at (1-based)'), stepCount: z.number().int(),
  nextAction: z.string().nullable(), nextAt: z.string().nullable().describe('When the next action is due (null: now, or ended)'),
  held: z.boolean().describe('Held because the automation is paused'), stopReason: z.string().nullable().describe('Why it stopped: crisis_hold, no_consent, suppressed, cancelled…'),
  failures: z.number().int(), retrying: z.boolean(), lastError: z.string().nullable(), startedAt: z.string(), finishedAt: z.string().nullable(),
}).strict();

const definition = {
  trigger: triggerSchema.describe('What starts a run for a person: contact_created, first_time_guest, form_submitted (formId), donation_recorded, life_event (eventTypes), missed_group_meetings or birthday'),
  conditions: conditionsSchema.nullable().optional().describe('Segment-like rules the person must meet when the trigger fires (people_list_segment_fields); none when absent'),
  steps: stepsSchema.describe('In order: wait, send_email, send_sms, add_tag, create_task, add_to_group, notify_staff'),
};

const listTool = tools.read('list_automations', {
  title: 'List automations',
  description: 'Automations (automatic sequences of emails, texts, tags and tasks) newest first: trigger, conditions, steps, status (draft, active, paused), current version and how many runs are active, completed, stopped, cancelled or failed.',
  keywords: ['automations', 'automated emails', 'email sequences', 'automatic follow-ups', 'welcome series', 'drip emails', 'nurture journeys', 'what is set up to happen automatically'],
  examples: ['which automations are running', 'show the welcome series automation', 'list our automated journeys for new people', 'our automations', "Zoe's new, so what automatic emails and follow-ups do we have set up?", 'which sequences are paused at the moment'],
  input: z.object({ status: z.enum(AUTOMATION_STATUSES).optional(), limit: z.number().int().min(1).max(100).default(25) }),
  output: z.object({ automations: z.array(automationSchema) }).strict(),
  run: async (ctx, input) => ({ automations: await listAutomations(ctx.db, ctx.org.id, input.status, input.limit) }),
});

const createTool = tools.write('create_automation', {
  title: 'Create an automation',
  description: 'Creates an automation as a draft: a trigger (a contact created, a first-time guest, a form submitted, a gift recorded, a life event, three missed group meetings in a row, or a birthday), optional segment-like conditions over the person, and steps (wait, email, text, add a tag, create a follow-up task, add to a CRM group, notify a staff member). Each person runs once unless allowReentry. Activate it with grow_activate_automation.',
  keywords: ['new automation', 'automatic emails', 'email sequence', 'welcome series', 'drip campaign', 'nurture sequence', 'automatically when someone', 'birthday greeting', 'thank new donors'],
  examples: ['set up a welcome email series for first-time guests', 'when someone fills in the connect card, tag them and create a follow-up task', 'automatically email new visitors a few days after they come', 'send an automatic happy birthday email', 'new automation', "when someone gives for the first time, I'd like a thank-you email and a task for the treasurer", 'set up a reminder email to people who miss three group meetings'],
  input: z.object({ name: z.string().trim().min(1).max(200), ...definition, allowReentry: z.boolean().default(false).describe('Run again for a person on a new trigger once their earlier run has ended') }),
  output: z.object({ automation: automationSchema }).strict(),
  run: async (ctx, input) => ({ automation: await createAutomation(ctx.db, ctx.org.id, { ...input, conditions: input.conditions ?? null }) }),
});

const updateTool = tools.write('update_automation', {
  title: 'Update an automation',
  description: 'Changes an automation\'s name, trigger, conditions, steps or re-entry. A change to trigger, conditions or steps makes a new version: runs already going keep their version, new runs take the new one. An active automation that starts emailing or texting people goes back to draft and needs activating (and approving) again.',
  keywords: ['edit automation', 'change automation steps', 'edit email sequence', 'change sequence timing', 'reword automated email', 'send later in the series', 'delay a message'],
  examples: ['add a second email to the welcome series', 'wait five days instead of three in the guest follow-up', 'change the wording or steps of the automatic emails', 'move the next message in the sequence later', 'edit the welcome series', 'the guest follow-up is too pushy, so wait a week before the second email', 'can the birthday automation send a text as well'],
  input: z.object({
    automationId, name: z.string().trim().min(1).max(200).optional(), trigger: definition.trigger.optional(), conditions: definition.conditions, steps: definition.steps.optional(),
    allowReentry: z.boolean().optional(),
  }),
  output: z.object({ automation: automationSchema, newVersion: z.boolean(), backToDraft: z.boolean() }).strict(),
  run: async (ctx, input) => updateAutomation(ctx.db, ctx.org.id, input.automationId, input),
});

const activateTool = tools.send(ACTIVATE_TOOL.slice('grow_'.length), {
  title: 'Activate (turn on) or resume an automation',
  description: 'Activates a draft automation (it starts for people the trigger finds from now on) or resumes a paused one (held runs continue at once). Counts against the plan\'s active automations. An automation that emails or texts people waits for a person\'s approval; every message goes through the channels outbox with consent checked.',
  keywords: ['turn on automation', 'start automation', 'resume automation', 'switch on sequence', 'restart paused automation', 'go live', 'enable sequence', 'start sending the series', 'unpause', 'resume automation', 'turn on automation'],
  examples: ['switch on the welcome series', 'resume the paused guest follow-up', 'turn the birthday automation back on after the break', 'turn the welcome series back on', 'resume the anniversary emails we paused', 'turn on the birthday emails', 'the first-gift thank-you sequence is ready, so start it running', 'can the paused welcome series pick up again'],
  approval: { kind: 'gated', when: { reason: 'the automation emails or texts people', applies: async (args, deps) => activationNeedsApproval(deps.db, deps.orgId, String(args.automationId)) } },
  task: {},
  idempotent: true,
  input: z.object({ automationId, actionSummary: z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver') }),
  output: z.object({ automation: automationSchema, changed: z.boolean() }).strict(),
  followUp: { kind: 'grow.automation_watch' },
  run: async (ctx, input) => activateAutomation(ctx.db, ctx.org.id, input.automationId),
});

const pauseTool = tools.write('pause_automation', {
  title: 'Pause an automation',
  description: 'Pauses (temporarily stops) an active automation or sequence: no new runs start and every run is held before its next step (nothing is deleted; grow_activate_automation resumes them).',
  keywords: ['stop automation', 'hold automation', 'turn off automation', 'pause sequence', 'suspend automatic emails', 'temporarily stop a sequence', 'halt the series for now'],
  examples: ['pause the welcome emails over Christmas', 'put the birthday automation on hold', 'pause the welcome series', "the office is shut over Easter, so hold the guest follow-up emails till we're back", 'can the donor thank-you sequence stop for a fortnight'],
  idempotent: true,
  input: z.object({ automationId }),
  output: z.object({ automation: automationSchema, changed: z.boolean() }).strict(),
  run: async (ctx, input) => pauseAutomation(ctx.db, ctx.org.id, input.automationId),
});

const runsTool = tools.read('list_automation_runs', {
  title: 'List an automation\'s runs',
  description: 'Each person\'s run of an automation, newest first: status, the step it is at, its next action and when, held while paused, why it stopped (crisis hold, consent withdrawn, cancelled), failures and whether a step is being retried.',
  keywords: ['automation progress', 'who is in the automation', 'automation history', 'sequence progress', 'where is each person up to', 'why did the automation stop', 'next email due'],
  examples: ['who is in the welcome series and what happens next for them', 'why did the automation stop for Sarah', 'how far has each newcomer got in the sequence', 'why was the sequence stopped for someone', "who's in the birthday sequence", 'Tom said he got no follow-up email, where has his run got to?', 'which people failed in the welcome series'],
  input: z.object({ automationId, status: z.enum(RUN_STATUSES).optional(), contactId: z.uuid().optional(), limit: z.number().int().min(1).max(100).default(50) }),
  output: z.object({ runs: z.array(runSchema) }).strict(),
  run: async (ctx, input) => ({ runs: await listRuns(ctx.db, ctx.org.id, input) }),
});

const cancelRunTool = tools.write('cancel_automation_run', {
  title: 'Cancel a person\'s automation run',
  description: 'Ends one person\'s run of an automation before its next step; what was already done (emails handed to the outbox, tags) stays. The person does not enter that automation again unless it allows re-entry.',
  keywords: ['remove from automation', 'stop emails for person', 'take someone out of sequence', 'exit automation'],
  examples: ['take John out of the welcome series', 'stop the follow-up automation for this family', 'take Tom out', 'Tom asked us to stop emailing him, so end his welcome series run', 'can Sarah be removed from the donor thank-you sequence'],
  idempotent: true,
  input: z.object({ runId: z.uuid().describe('The run (grow_list_automation_runs)') }),
  output: z.object({ run: runSchema, changed: z.boolean() }).strict(),
  followUp: { kind: 'grow.automation_run_poke' },
  run: async (ctx, input) => cancelRun(ctx.db, ctx.org.id, input.runId),
});

export const growAutomationTools = [listTool, createTool, updateTool, activateTool, pauseTool, runsTool, cancelRunTool];
