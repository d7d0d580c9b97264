import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { StewardError } from '../../core/errors';
import { toolsFor, notFound } from '../kit';
import { ACTOR_KINDS, AUDIT_CATEGORIES } from './record';
import {
  approvalSchema, approvalsOf, eventSchema, getEventRow, listEvents, verifyChain, viewOf, type EventFilters,
} from './events';

/**
 * Reading needs audit:read. The export takes the log out of the organisation: a write needing
 * audit:export (owners and admins only) and an approval, and its caller must hold audit:read too.
 */
const tools = toolsFor('audit', { read: 'audit:read', write: 'audit:export' });

const OUTCOMES = ['success', 'denied', 'failed'] as const;
const time = z.iso.datetime({ offset: true, message: 'an ISO date-time, e.g. 2026-11-28T09:00:00Z' }).max(40);

const pageInput = {
  limit: z.number().int().min(1).max(100).default(25).describe('How many to return (1 to 100)'),
  cursor: z.string().max(200).optional().describe('nextCursor from the previous page; omit for the first page'),
};
const filterInput = {
  actorUserId: z.uuid().optional().describe('Events done by this user (themselves or through an assistant)'),
  onBehalfOfUserId: z.uuid().optional().describe('Events an agent did for this person'),
  actorKind: z.enum(ACTOR_KINDS).optional(),
  actionPrefix: z.string().trim().min(1).max(100).regex(/^[a-z0-9_.]+$/, 'module.noun.verb letters, digits, _ and .').optional().describe('e.g. "giving." or "giving.donation."'),
  targetType: z.string().trim().min(1).max(60).optional().describe('e.g. donation, contact'),
  targetId: z.string().trim().min(1).max(100).optional(),
  outcome: z.enum(OUTCOMES).optional(),
  category: z.enum(AUDIT_CATEGORIES).optional(),
  from: time.optional().describe('From this time (inclusive)'),
  to: time.optional().describe('Up to this time (exclusive)'),
};
const pageOutput = { nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page') };

const listEventsTool = tools.read('list_events', {
  title: 'Audit log',
  description: "The organisation's audit log: every change made through Steward (and every export), newest first, with who did it (a person, or an agent acting on a person's behalf, and the credential), the action (module.noun.verb), its target, outcome and approval. Filter by actor, on-behalf-of, action prefix, target, outcome, category or time; pages with nextCursor. For one record's field-by-field story use audit_get_entity_history.",
  keywords: ['audit trail', 'activity log', 'who did this', 'change log', 'history of changes', 'security log', 'refused actions', 'denied', 'lack of permission', 'failed actions'],
  examples: ['who changed things in giving yesterday', 'show the audit log for last week', 'what did the assistant do on my behalf today', 'list every denied action this month', 'who touched this contact record', 'show all refunds anyone made', 'what has changed in the system since Monday', 'audit events by Sarah', 'show the log of changes made this week', 'what has been done in Steward today and by whom', 'who deleted gifts this week', "show changes made by the treasurer's login in October"],
  input: z.object({ ...filterInput, ...pageInput }),
  output: z.object({ events: z.array(eventSchema), ...pageOutput }).strict(),
  run: async (ctx, { limit, cursor, ...filters }) => {
    const page = await listEvents(ctx.db, ctx.org.id, filters as EventFilters, { limit, cursor });
    return { events: page.rows.map(viewOf), nextCursor: page.nextCursor };
  },
});

const changeSchema = z.object({ field: z.string(), before: z.unknown().optional(), after: z.unknown() }).strict();

function changesList(changes: { fields?: Record<string, { before?: unknown; after: unknown }> } | null): z.infer<typeof changeSchema>[] {
  const fields = changes?.fields;
  if (!fields || Array.isArray(fields)) return [];
  return Object.entries(fields).map(([field, value]) => ('before' in value ? { field, before: value.before, after: value.after } : { field, after: value.after }));
}

const getEventTool = tools.read('get_event', {
  title: 'Audit event',
  description: 'One audit event in full: who, on whose behalf, with which credential (id and hash, never a secret) and scopes, the action and target, each changed field (before where known, and after), the approval it carried out (who approved it and when), money or units, and its hash-chain link.',
  keywords: ['audit entry', 'event detail'],
  examples: ['show audit event 1234 in full', 'what exactly changed in that audit entry', 'who approved the change in event 88', 'open audit entry 5120: before and after values', 'which API key and scopes made change 402', 'full detail of one logged change including its hash link', 'who acted on whose behalf in audit record 77', 'show the money amount and approver on event 3090', 'detail of audit event 512', 'the auditor flagged entry 2201, so what exactly was changed and who signed it off?', 'what were the before values in that one logged change'],
  input: z.object({ eventId: z.string().trim().max(18).regex(/^[0-9]{1,18}$/, 'an audit event id (digits)').describe('From audit_list_events') }),
  output: z.object({
    event: eventSchema,
    changes: z.array(changeSchema),
    approval: approvalSchema.nullable(),
    chain: z.object({ prevHash: z.string().nullable(), hash: z.string() }).strict(),
  }).strict(),
  run: async (ctx, { eventId }) => {
    const row = await getEventRow(ctx.db, ctx.org.id, eventId);
    if (!row) throw notFound('Audit event', eventId, 'Find events with audit_list_events.');
    const approvals = await approvalsOf(ctx.db, ctx.org.id, row.approval_id ? [row.approval_id] : []);
    return {
      event: viewOf(row), changes: changesList(row.changes),
      approval: row.approval_id ? approvals.get(row.approval_id) ?? null : null,
      chain: { prevHash: row.prev_hash, hash: row.hash },
    };
  },
});

const historyEntrySchema = z.object({
  eventId: z.string(), at: z.string(), action: z.string(), tool: z.string(), outcome: z.enum(OUTCOMES),
  actor: eventSchema.shape.actor, summary: z.string().nullable(), changes: z.array(changeSchema), approval: approvalSchema.nullable(), redacted: z.boolean(),
}).strict();

const entityHistoryTool = tools.read('get_entity_history', {
  title: "A record's change history",
  description: 'Explains how one record came to be as it is: every change to it, oldest first, field by field (before → after where the tool records previous values, else the values set), who made it (a person, or an agent and the person it acted for) and who approved it. Name the record by its id (targetId) and, optionally, its type (donation, contact, batch...).',
  keywords: ['who changed this', 'record history', 'change history', 'before and after', 'who edited', 'who approved', 'every edit', 'trace edits', 'edits by whom', 'changes to a record'],
  examples: ['who changed this donation?', 'show the history of this gift', 'who edited this contact and when', 'what changed on this batch and who approved it', 'why is this donation different from what was entered', 'explain how this record got to its current state', 'who has changed this gift record over time', "show the history of edits to Margaret's details", 'history of this contact', "Margaret's address looks wrong, so who's edited her record over time?", 'how did this batch end up like this'],
  input: z.object({
    targetId: z.string().trim().min(1).max(100).describe('The record id'),
    targetType: z.string().trim().min(1).max(60).optional().describe('donation, contact, batch... (any when left out)'),
    limit: z.number().int().min(1).max(200).default(100),
  }),
  output: z.object({ target: z.object({ type: z.string().nullable(), id: z.string() }).strict(), entries: z.array(historyEntrySchema), truncated: z.boolean() }).strict(),
  run: async (ctx, { targetId, targetType, limit }) => {
    const page = await listEvents(ctx.db, ctx.org.id, { targetId, targetType }, { limit });
    const rows = [...page.rows].reverse();
    const approvals = await approvalsOf(ctx.db, ctx.org.id, rows.flatMap((row) => (row.approval_id ? [row.approval_id] : [])));
    return {
      target: { type: targetType ?? rows[0]?.target_type ?? null, id: targetId },
      entries: rows.map((row) => {
        const view = viewOf(row);
        return {
          eventId: view.id, at: view.at, action: view.action, tool: view.tool, outcome: view.outcome, actor: view.actor, summary: view.summary,
          changes: changesList(row.changes), approval: row.approval_id ? approvals.get(row.approval_id) ?? null : null, redacted: view.redacted,
        };
      }),
      truncated: page.nextCursor !== null,
    };
  },
});

const agentActionsTool = tools.read('list_agent_actions', {
  title: 'What agents did',
  description: 'Actions taken by agents (assistants connected with an API key or OAuth, and autonomous agents), newest first, with the person each acted for, the credential and whether a person approved it. Filter by the person acted for, credential, outcome or time.',
  keywords: ['assistant actions', 'ai activity', 'bot changes', 'agent log'],
  examples: ['what has the assistant done this week', 'which changes did AI make on my behalf', 'list actions by the giving agent', 'show agent actions that needed approval', 'what has the AI assistant changed this week', 'list what the agent did on our behalf', 'what did the pastoral care agent do on its own last month', 'actions an API key took for the treasurer that failed', 'AI actions this week', 'the assistant was left running over the weekend, what did it change?', 'which agent actions were refused'],
  input: z.object({
    onBehalfOfUserId: filterInput.onBehalfOfUserId,
    credentialId: z.uuid().optional().describe('One API key, OAuth grant or agent credential'),
    approvedOnly: z.boolean().default(false).describe('Only actions a person approved'),
    outcome: filterInput.outcome, actionPrefix: filterInput.actionPrefix, from: filterInput.from, to: filterInput.to, ...pageInput,
  }),
  output: z.object({ events: z.array(eventSchema), ...pageOutput }).strict(),
  run: async (ctx, { limit, cursor, approvedOnly, ...filters }) => {
    const page = await listEvents(ctx.db, ctx.org.id, { ...filters, actorKind: 'agent', approvedOnly } as EventFilters, { limit, cursor });
    return { events: page.rows.map(viewOf), nextCursor: page.nextCursor };
  },
});

const verifyChainTool = tools.read('verify_chain', {
  title: 'Check the audit chain',
  description: "Checks the organisation's audit events are as written: recomputes each event's hash from its contents and the one before, in order, and reports any changed, removed or inserted event (and personal data altered without an erasure). Checks up to 50,000 events a call from fromSeq; continue from lastSeq + 1 while complete is false.",
  keywords: ['tamper check', 'integrity', 'verify audit log', 'hash chain', 'edited the log', 'log tampered', 'nobody altered the records', 'trust the activity log'],
  examples: ['has anyone tampered with the audit log', 'verify the audit trail is intact', 'check the integrity of our activity history', "check the change log hasn't been tampered with", 'is the audit record still intact', 'prove to the auditors nobody has edited our history', 'run the hash check over the audit events from number 50000', 'has any audit event been deleted or inserted', 'verify the log', "the independent examiner wants proof our records weren't altered, check the audit history", 'is our activity history untampered'],
  input: z.object({
    fromSeq: z.number().int().min(1).max(1_000_000_000_000).default(1).describe('First chain position to check'),
    limit: z.number().int().min(1).max(50_000).default(50_000),
  }),
  output: z.object({
    ok: z.boolean(), checked: z.number().int(), firstSeq: z.number().int().nullable(), lastSeq: z.number().int().nullable(),
    headSeq: z.number().int().describe('The last position written'), complete: z.boolean().describe('false: more to check from lastSeq + 1'),
    problems: z.array(z.object({ seq: z.number().int(), eventId: z.string(), problem: z.enum(['hash_mismatch', 'broken_link', 'gap', 'personal_data_altered', 'missing_after']) }).strict()),
    speakToUser: z.string(),
  }).strict(),
  run: async (ctx, { fromSeq, limit }) => {
    const check = await verifyChain(ctx.db, ctx.org.id, fromSeq, limit);
    const speakToUser = check.ok
      ? `The audit chain is intact: ${check.checked} events checked${check.complete ? '' : ` (more from ${(check.lastSeq ?? 0) + 1})`}.`
      : `The audit chain is broken: ${check.problems.length} problem(s), first at position ${check.problems[0]!.seq} (${check.problems[0]!.problem}).`;
    return { ...check, speakToUser };
  },
});

const exportedEventSchema = eventSchema.omit({ summary: true }).extend({ changedFields: z.array(z.string()) }).strict();
const MAX_EXPORT = 500;

const exportEventsTool = tools.write('export_events', {
  title: 'Export the audit log (needs approval)',
  description: `Exports audit events (the same filters as audit_list_events, up to ${MAX_EXPORT} a call, newest first) for an auditor: redacted (changed values and assistant summaries left out; field names, actors, targets and outcomes kept). Every export needs an owner or admin to approve it, and is itself recorded in the audit log.`,
  keywords: ['download audit log', 'audit report', 'export activity'],
  examples: ['export the audit log for our auditor', 'give me a download of last year\'s finance audit events', 'export every change agents made this quarter', 'download the change log for the trustees', 'send the auditors a copy of the activity log', 'export the redacted audit log for the independent examiner', 'download audit events from April to March for the annual return', 'an audit extract of safeguarding changes for the diocese', 'export audit log', "the diocese is reviewing us, so give them a copy of last year's changes", 'I need the activity log as a download for the trustees'],
  destructive: false,
  input: z.object({ ...filterInput, limit: z.number().int().min(1).max(MAX_EXPORT).default(MAX_EXPORT), cursor: pageInput.cursor }),
  output: z.object({ events: z.array(exportedEventSchema), exportedAt: z.string(), ...pageOutput }).strict(),
  approval: { kind: 'gated' },
  audit: { category: 'export', target: () => ({ type: 'export', id: 'audit_events' }) },
  run: async (ctx, { limit, cursor, ...filters }) => {
    if (!hasScope(ctx.principal, 'audit:read')) {
      throw new StewardError('insufficient_scope', 'Exporting the audit log needs audit:read as well as audit:export', {
        hint: 'Use an owner or admin credential that holds audit:read.',
      });
    }
    const page = await listEvents(ctx.db, ctx.org.id, filters as EventFilters, { limit, cursor });
    return {
      events: page.rows.map((row) => {
        const { summary: _summary, ...rest } = viewOf(row);
        return rest;
      }),
      exportedAt: new Date().toISOString(), nextCursor: page.nextCursor,
    };
  },
});

export const auditTools = [listEventsTool, getEventTool, entityHistoryTool, agentActionsTool, verifyChainTool, exportEventsTool];
