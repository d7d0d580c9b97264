import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { OUTREACH_CHANNELS, OUTREACH_STATUSES } from '../../../core/approvals';
import { StewardError } from '../../../core/errors';
import type { ToolTask } from '../../tool';
import { toolsFor } from '../../kit';
import { mergeContacts, MERGEABLE_FIELDS } from '../merge';
import { createOutreachItem, listOutreach, outreachItemSchema, requireOutreachItem } from '../outreach';
import { crisisHoldError, isOnCrisisHold } from '../pastoral/care/crisis';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

/** An item's content version counts its edits; no item is edited anywhere near this often. */
const MAX_CONTENT_VERSION = 1_000_000;

const outreachId = z.uuid().describe('The outreach item\'s id');
const itemOutput = z.object({ item: outreachItemSchema }).strict();

/** Decision tools are carried out by the item's workflow (a Temporal update); the API routes them there by their `approval`. */
function decidedByWorkflow(): never {
  throw new StewardError('internal_error', 'This tool is carried out by the item\'s approval workflow, not as a plain tool call');
}

/**
 * Queuing a message as an MCP task: the task is the item's approval workflow.
 * It is followed with tasks/get, which reads the item and so needs people:read.
 * As a task the call waits for nothing (awaitDecision with no time to wait), so
 * it answers approval_required naming the item.
 */
const outreachTask: ToolTask = {
  followScope: 'people:read',
  argsForTask: (args) => ({ ...args, awaitDecision: true }),
  pendingOf: (result) => {
    const id = (result as { item?: { id?: unknown } } | null)?.item?.id;
    return typeof id === 'string' ? { outreachId: id } : undefined;
  },
};

export const createOutreachTool = tools.write('create_outreach', {
  title: 'Queue a pastoral message for approval',
  description: 'Drafts a pastoral message (email, SMS or WhatsApp) to one contact and puts it in the approval queue as pending_review. Nothing is sent until a staff member approves the exact content (people_approve_outreach). Refused up front when the contact cannot receive the channel: no email to unsubscribed contacts, no WhatsApp without consent, no SMS without a phone. Set awaitDecision to wait (within the call\'s time budget) for the decision; otherwise the item id comes back at once.',
  keywords: ['welfare', 'check in', 'message', 'pastoral outreach', 'draft email', 'draft sms', 'whatsapp', 'approval queue'],
  examples: ['write a message to someone for approval before it goes', 'prepare an email or text to check on someone', "draft a text to Jean asking how she's getting on", 'write an email to Ken checking in after his operation, for approval', 'prepare a WhatsApp to the Browns to see how they are', "queue a message to Dennis saying we're thinking of him", 'compose a welfare check email to Mrs Patel', "draft a note to Sam saying we've missed him, don't send yet", 'draft a check-in to Hilda', "Colin hasn't been since his wife's op, can you prepare a text to him for me to approve", "I need a WhatsApp drafted to Gwen asking if she'd like a visit"],
  listed: true,
  input: z.object({
    contactId: z.uuid(),
    channel: z.enum(OUTREACH_CHANNELS).default('email'),
    subject: z.string().trim().min(1).max(200).optional().describe('Required for email'),
    body: z.string().trim().min(1).max(10000),
    reason: z.string().trim().max(500).optional().describe('Why this person is being contacted; shown to the approver'),
    awaitDecision: z.boolean().default(false).describe('Wait for a person to decide; returns approval_required with the id if the wait runs out'),
  }),
  output: itemOutput,
  followUp: { kind: 'people.start_outreach' },
  task: outreachTask,
  run: async (ctx, input) => {
    // An agent acting on its own never queues a message for someone on a crisis hold (a person may, and it waits for the hold).
    if (ctx.principal.credentialKind === 'agent' && await isOnCrisisHold(ctx.db, ctx.org.id, input.contactId)) throw crisisHoldError();
    return { item: await createOutreachItem(ctx.db, ctx.org.id, {
      id: randomUUID(), contactId: input.contactId, channel: input.channel, subject: input.subject ?? null, body: input.body,
      source: 'manual', reason: input.reason ?? null, createdByUserId: ctx.principal.userId,
    }) };
  },
});

export const listPendingOutreachTool = tools.read('list_pending_outreach', {
  title: 'Outreach approval queue',
  description: 'Pastoral messages in the approval queue, newest first. Defaults to status pending_review (awaiting a person); pass status approved, sent, declined, cancelled or all to see others.',
  keywords: ['approval queue', 'pending messages', 'welfare queue', 'outreach'],
  examples: ['which messages are waiting to be approved', 'the queue of drafts to review', 'any pastoral messages waiting for sign-off', 'what drafts need my approval', 'show the messages we declined last week', 'list outreach messages already sent', "what's sitting in the welfare message queue", 'how many check-in texts are awaiting review', 'drafts awaiting approval', "I've been away a week, what pastoral messages are sitting there for sign-off", 'are there any check-in messages waiting for me to approve?'],
  input: z.object({
    status: z.enum([...OUTREACH_STATUSES, 'all']).default('pending_review'),
    contactId: z.uuid().optional(),
    limit: z.number().int().min(1).max(200).default(50),
  }),
  output: z.object({ items: z.array(outreachItemSchema), count: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const items = await listOutreach(ctx.db, ctx.org.id, input);
    return { items, count: items.length };
  },
});

export const getOutreachItemTool = tools.read('get_outreach_item', {
  title: 'One outreach item',
  description: 'One pastoral message with its exact content, contentVersion, status and any send error. Show the content to the person before they approve it.',
  keywords: ['outreach', 'message content', 'review message'],
  examples: ['read one queued message in full', 'what exactly does this draft say', 'show me the draft to Jean in full', 'what does the queued text to Ken actually say', 'open the pending WhatsApp for the Browns', 'why did the message to Dennis fail to send', 'let me read the email before I approve it', 'check the wording and status of that draft', 'show the draft to Hilda', 'before I sign off the text to Colin I want to read the exact wording', 'what status is the message to Gwen at and what does it say?'],
  input: z.object({ outreachId }),
  output: itemOutput,
  run: async (ctx, input) => ({ item: await requireOutreachItem(ctx.db, ctx.org.id, input.outreachId) }),
});

export const editOutreachTool = tools.write('edit_outreach', {
  title: 'Edit a queued message',
  description: 'Changes the subject, body or channel of a message that is still pending_review. Every change bumps contentVersion, so an approval of the old text is refused. Pass contentVersion to refuse the edit if someone else changed it first.',
  keywords: ['edit message', 'reword', 'change outreach'],
  examples: ['change the text of a queued message', 'fix the wording of a draft before it is sent', 'change the draft to Jean to say thinking of you', 'make the queued text to Ken shorter', "switch the Browns' draft from SMS to email", 'fix the subject line on the pending email', 'reword the queued message to sound warmer', 'update the body of the draft to Dennis before approval', 'reword the draft to Hilda', 'the draft to Colin mentions the wrong date, change it to Saturday before it goes', 'can I send the queued check-in to Gwen as a text instead of email?'],
  input: z.object({
    outreachId,
    subject: z.string().trim().min(1).max(200).nullable().optional(),
    body: z.string().trim().min(1).max(10000).optional(),
    channel: z.enum(OUTREACH_CHANNELS).optional(),
    contentVersion: z.number().int().min(1).max(MAX_CONTENT_VERSION).optional(),
  }),
  output: itemOutput,
  approval: { kind: 'update', target: 'outreach', decision: 'edit', idArg: 'outreachId' },
  run: async () => decidedByWorkflow(),
});

export const approveOutreachTool = tools.send('approve_outreach', {
  title: 'Approve and send a queued message',
  description: 'Approves a pending_review message and sends it. The user must have seen the exact content first: pass the contentVersion they saw (from people_get_outreach_item); approval fails if the content changed since. Sending is metered (email sends / messaging credits) and checked for consent; a refused send leaves the item approved but unsent with sendError set, and approving it again retries. sendError code needs_review means an earlier attempt may already have reached the recipient: approving again sends it again (they may get two copies), so only do that when the user has decided to. Approving again the contentVersion this user already approved, once sent (or approved with no sendError), answers the message as it stands and sends nothing; another person\'s decision on a decided message is a conflict. Needs an owner, admin or staff credential.',
  keywords: ['approve message', 'send outreach', 'approve welfare'],
  examples: ['this message is fine, send it', 'approve a draft and send it', 'that looks good, send it to Jean', 'approve the text to Ken', 'yes, go ahead with the email to Mrs Patel', 'sign off the WhatsApp draft to the Browns', "I've read it, send the check-in message", 'OK the welfare message for Dennis', 'send the draft to Hilda', "I've checked the wording of Colin's message and it's fine, approve it", 'can you approve the check-in to Gwen now?'],
  input: z.object({ outreachId, contentVersion: z.number().int().min(1).max(MAX_CONTENT_VERSION).describe('The version the approver reviewed') }),
  output: itemOutput,
  approval: { kind: 'update', target: 'outreach', decision: 'approve', idArg: 'outreachId' },
  run: async () => decidedByWorkflow(),
});

export const declineOutreachTool = tools.write('decline_outreach', {
  title: 'Decline a queued message',
  description: 'Declines a message pending review; it is never sent. Declining again a message this user declined answers it unchanged; declining a message someone else decided is a conflict.',
  keywords: ['reject message', 'decline outreach'],
  examples: ['do not send this draft', 'reject a message waiting for review', "no, don't send that to Jean", 'turn down the draft to Ken', 'knock back the pending text to the Browns', "reject this welfare message, it's not appropriate", 'decline the queued email to Mrs Patel', "that draft isn't right, refuse it", 'reject the draft to Hilda', "Colin's family have asked us not to contact him, so refuse that queued text", 'can I turn down a pastoral message so it never goes?'],
  input: z.object({ outreachId, reason: z.string().trim().max(500).optional() }),
  output: itemOutput,
  approval: { kind: 'update', target: 'outreach', decision: 'decline', idArg: 'outreachId' },
  run: async () => decidedByWorkflow(),
});

export const cancelOutreachTool = tools.write('cancel_outreach', {
  title: 'Cancel a message before it is sent',
  description: 'Cancels a message that is pending review or approved but not yet sent. Refused once it has been sent. Cancelling again a message this user cancelled answers it unchanged.',
  keywords: ['cancel message', 'stop outreach', 'withdraw'],
  examples: ['stop a message before it goes out', 'withdraw an approved message that has not been sent', "cancel the approved text to Ken, he's just rung us", 'pull the message to Jean before it goes', "stop the email to Dennis, he's been admitted to hospital", 'call off the WhatsApp I approved for the Browns', "halt that approved message, it hasn't gone yet", 'withdraw the check-in message to Mrs Patel', 'cancel the text to Hilda', "I approved the message to Colin but his daughter just called, stop it before it's sent", 'is it too late to withdraw the email to Gwen?'],
  input: z.object({ outreachId, reason: z.string().trim().max(500).optional() }),
  output: itemOutput,
  approval: { kind: 'update', target: 'outreach', decision: 'cancel', idArg: 'outreachId' },
  run: async () => decidedByWorkflow(),
});

const mergeResultSchema = z.object({
  keptContactId: z.uuid(),
  mergedContactId: z.uuid(),
  moved: z.object({ notes: z.number().int(), tags: z.number().int(), timelineEntries: z.number().int(), outreachItems: z.number().int() }).strict(),
  fieldsTaken: z.array(z.string()),
}).strict();

export const mergeContactsTool = tools.write('merge_data_quality_contacts', {
  title: 'Merge duplicate contacts (needs approval)',
  description: 'Merges a duplicate contact into the one kept: notes, tags, care timeline, outreach, family links, CRM group memberships, hand-added segment memberships, Welcome Desk follow-ups and consent history move to the kept contact (moved counts only notes and timeline entries visible without people:safeguarding), its blank fields are filled from the duplicate (fieldChoices picks per field: keep or merge), and the duplicate is soft-deleted. Merging cannot be undone by a tool, so the call creates a proposal for an owner or admin; it runs when they approve (platform_approve_proposal). Prefer this over deleting duplicates.',
  keywords: ['merge contacts', 'duplicate', 'dedupe', 'combine people', 'data quality'],
  examples: ['one person has two records, combine them', 'tidy up duplicate people', 'Jean Smith is on here twice, merge them', 'combine the two records for Ken Brown', "merge Sue's old email record into her main one", 'we have duplicates for the Patel family, fold them together', 'tidy up: John and Jon Ellis are the same man', 'dedupe Margaret, keep the newer record', 'merge the two Hildas', "Colin signed up online with a different email so he's on here twice, join the records", "I need to combine Grace Obi's duplicate records into one"],
  destructive: true,
  listed: true,
  input: z.object({
    keepContactId: z.uuid(),
    mergeContactId: z.uuid().describe('The duplicate; it is soft-deleted after the merge'),
    fieldChoices: z.record(z.enum(MERGEABLE_FIELDS as [string, ...string[]]), z.enum(['keep', 'merge'])).optional(),
    actionSummary: z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver'),
  }).refine((v) => v.keepContactId !== v.mergeContactId, { message: 'must differ from keepContactId', path: ['mergeContactId'] }),
  output: z.object({ merge: mergeResultSchema }).strict(),
  timeline: (_input, output) => [{
    contactId: output.merge.keptContactId, kind: 'contact_merged', sourceKind: 'contact_merge', sourceId: output.merge.mergedContactId,
    // No counts: the timeline is read without people:safeguarding, and a note count would reveal restricted notes.
    summary: 'Merged a duplicate record into this one; its notes, timeline, family links, groups and follow-ups moved here',
  }],
  approval: { kind: 'gated' },
  run: async (ctx, input) => ({
    merge: await mergeContacts(ctx.db, ctx.org.id, input.keepContactId, input.mergeContactId, ctx.principal.userId, input.fieldChoices ?? {}),
  }),
});
