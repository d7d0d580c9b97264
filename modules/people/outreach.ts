import { z } from 'zod';
import {
  OUTREACH_CHANNELS, OUTREACH_STATUSES, outreachWorkflowId, type CredentialActor, type OutreachChannel, type OutreachDecision, type OutreachStatus,
} from '../../core/approvals';
import { StewardError } from '../../core/errors';
import { fn, literal } from 'sequelize';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { errorFields, log } from '../../core/log';
import { withModels } from '../../db/sequelize';
import type { RowOf } from '../kit';
import { displayNameOf } from './contacts';
import type { Contact } from './models/contacts';
import { OutreachItem as OutreachItemModel } from './models';
import { recordWorkflowDecision } from '../audit/api';
import { lockOutboxStateOf } from '../platform/api';
import { crisisHoldError, isOnCrisisHold } from './pastoral/care/crisis';
import { requireMayApproveOutreach } from './pastoral/care/team';
import { outreachRefusal, type OutreachRefusal } from './outreach-recipient';

/**
 * Pastoral outreach: a message to one contact that waits in an approval queue.
 * The row is the record; its workflow (outreach-<id>) serialises decisions on it.
 * Content carries a version: approving names the version the approver saw.
 *
 * Reads (a join with the contact), the row lock and everything automations and closing run stay SQL
 * on the Queryable they are given: those run on any Queryable (test/e2e/approval-queries.test.ts
 * records each statement through one to check its organisation filter), which models cannot use.
 * The updates below run only inside a transaction of ours, so they go through the OutreachItem model.
 */

export const outreachItemSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid(),
  contactName: z.string(),
  channel: z.enum(OUTREACH_CHANNELS),
  recipient: z.string().nullable().describe('Where it goes: the email address or phone number at the time of reading'),
  subject: z.string().nullable(),
  body: z.string(),
  contentVersion: z.number().int().describe('Pass this to people_approve_outreach: approval fails if the content changed since'),
  status: z.enum(OUTREACH_STATUSES),
  source: z.enum(['manual', 'automation', 'agent']),
  automationId: z.string().nullable(),
  reason: z.string().nullable().describe('Why it was queued (e.g. 212 days since last pastoral contact)'),
  approvedVersion: z.number().int().nullable(),
  approvedAt: z.string().nullable(),
  decidedAt: z.string().nullable(),
  decisionReason: z.string().nullable(),
  crisisHold: z.boolean().describe('The contact is on a crisis hold now: nothing is sent until a staff member has reached them and cleared it (people_list_crisis_holds, people_clear_crisis_hold)'),
  sendError: z.object({ code: z.string(), message: z.string() }).strict().nullable()
    .describe('Set when an approved item was not sent (allowance, consent): it stays approved and unsent. Code needs_review: an earlier attempt may already have been delivered, so it was not resent automatically; approving again sends it again'),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();

export type OutreachItem = z.infer<typeof outreachItemSchema>;

type OutreachRow = RowOf<OutreachItemModel> & Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email' | 'phone'> & {
  crisis_hold: boolean;
};

const SELECT_ITEM = `
  SELECT o.*, c.first_name, c.last_name, c.preferred_name, c.email, c.phone,
    EXISTS (SELECT 1 FROM crisis_holds h WHERE h.org_id = o.org_id AND h.contact_id = o.contact_id AND h.cleared_at IS NULL) AS crisis_hold
  FROM outreach_items o JOIN contacts c ON c.id = o.contact_id AND c.org_id = o.org_id`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);


function toItem(row: OutreachRow): OutreachItem {
  return {
    id: row.id, contactId: row.contact_id, contactName: displayNameOf(row), channel: row.channel,
    recipient: row.channel === 'email' ? row.email : row.phone,
    subject: row.subject, body: row.body, contentVersion: row.content_version, status: row.status, source: row.source,
    automationId: row.automation_id, reason: row.reason, approvedVersion: row.approved_version, approvedAt: iso(row.approved_at),
    decidedAt: iso(row.decided_at), decisionReason: row.decision_reason, crisisHold: row.crisis_hold, sendError: row.send_error, sentAt: iso(row.sent_at),
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

export interface DeliveryContact {
  id: string;
  email: string | null;
  phone: string | null;
  status: string;
  whatsapp_consent: boolean;
  deleted_at: Date | null;
  first_name: string | null;
  last_name: string | null;
  preferred_name: string | null;
}

/** The one way to read a contact for delivery and consent checks (outreach, automations, agents): always within the organisation. */
export async function loadDeliveryContact(db: Queryable, orgId: string, contactId: string, lock = false): Promise<DeliveryContact | undefined> {
  return queryOne<DeliveryContact>(db, `
    SELECT id, email, phone, status, whatsapp_consent, deleted_at, first_name, last_name, preferred_name
    FROM contacts WHERE org_id = $1 AND id = $2 ${lock ? 'FOR SHARE' : ''}`, [orgId, contactId]);
}

/** A message that could never reach the person on this channel: refused up front, with channels' reason code. */
export function consentError(refusal: OutreachRefusal): StewardError {
  return new StewardError('forbidden', refusal.message, {
    details: { reason: refusal.reason },
    hint: refusal.hint ?? 'Use another channel, or update the contact first.',
  });
}

export function validateContent(channel: OutreachChannel, subject: string | null | undefined, body: string): void {
  if (channel === 'email' && !subject) {
    throw new StewardError('validation_failed', 'An email needs a subject', { issues: [{ path: 'subject', message: 'required for email' }] });
  }
  if (channel !== 'email' && body.length > 1600) {
    throw new StewardError('validation_failed', `A ${channel} message is at most 1600 characters`, { issues: [{ path: 'body', message: 'too long' }] });
  }
}

export interface NewOutreach {
  id: string;
  contactId: string;
  channel: OutreachChannel;
  subject?: string | null;
  body: string;
  source: OutreachItem['source'];
  automationId?: string | null;
  reason?: string | null;
  dedupeKey?: string | null;
  sourceRun?: string | null;
  createdByUserId?: string | null;
  /** Drafted from a template rather than written by the person queuing it (a life-event message): refused while the contact is held. */
  templated?: boolean;
}

/** Inserts a pending_review item; refuses up front what could never be sent. Idempotent on id. */
export async function createOutreachItem(db: Queryable, orgId: string, input: NewOutreach): Promise<OutreachItem> {
  const existing = await getOutreachItem(db, orgId, input.id);
  if (existing) return existing;
  const contact = await loadDeliveryContact(db, orgId, input.contactId);
  if (!contact || contact.deleted_at) {
    throw new StewardError('not_found', `Contact ${input.contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  }
  // Nothing automated or templated is queued for a person on a crisis hold (the hold says so: no automated or
  // templated messages); a person may still write one by hand, which is marked held and waits for the hold to clear.
  if ((input.source !== 'manual' || input.templated) && await isOnCrisisHold(db, orgId, input.contactId)) throw crisisHoldError();
  const refusal = await outreachRefusal(db, orgId, input.contactId, input.channel, { draftWaitsOutCrisisHold: input.source === 'manual' });
  if (refusal) throw consentError(refusal);
  validateContent(input.channel, input.subject, input.body);
  await db.query(`
    INSERT INTO outreach_items (id, org_id, contact_id, channel, subject, body, source, automation_id, reason, dedupe_key, source_run, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [input.id, orgId, input.contactId, input.channel, input.subject ?? null, input.body, input.source, input.automationId ?? null,
      input.reason ?? null, input.dedupeKey ?? null, input.sourceRun ?? null, input.createdByUserId ?? null]);
  return (await getOutreachItem(db, orgId, input.id))!;
}

export async function getOutreachItem(db: Queryable, orgId: string, id: string): Promise<OutreachItem | undefined> {
  const row = await queryOne<OutreachRow>(db, `${SELECT_ITEM} WHERE o.org_id = $1 AND o.id = $2`, [orgId, id]);
  return row && toItem(row);
}

export async function requireOutreachItem(db: Queryable, orgId: string, id: string): Promise<OutreachItem> {
  const item = await getOutreachItem(db, orgId, id);
  if (!item) throw new StewardError('not_found', `Outreach item ${id} was not found`, { hint: 'people_list_pending_outreach lists the queue.' });
  return item;
}

export async function listOutreach(
  db: Queryable, orgId: string, filter: { status: OutreachStatus | 'all'; contactId?: string; limit: number },
): Promise<OutreachItem[]> {
  const rows = await queryRows<OutreachRow>(db, `${SELECT_ITEM}
    WHERE o.org_id = $1 AND ($2::text = 'all' OR o.status = $2) AND ($3::uuid IS NULL OR o.contact_id = $3)
    ORDER BY o.created_at DESC, o.id LIMIT $4`, [orgId, filter.status, filter.contactId ?? null, filter.limit]);
  return rows.map(toItem);
}

async function lockItem(db: Queryable, orgId: string, id: string) {
  const row = await queryOne<{ status: OutreachStatus; content_version: number; contact_id: string; channel: OutreachChannel; subject: string | null; body: string }>(
    db, 'SELECT status, content_version, contact_id, channel, subject, body FROM outreach_items WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
  if (!row) throw new StewardError('not_found', `Outreach item ${id} was not found`);
  return row;
}

type OutreachDecisionTool = 'people_edit_outreach' | 'people_approve_outreach' | 'people_decline_outreach' | 'people_cancel_outreach';
type OutreachDecisionKind = OutreachDecision['decision'];

/** The tool a decision is made with (its audit event's tool and action). */
function outreachDecisionTool(decision: OutreachDecisionKind): OutreachDecisionTool {
  return `people_${decision}_outreach`;
}

/** A decision that was refused with a stable error: who tried which decision on which item, and the code. */
export interface RefusedOutreachDecision {
  orgId: string;
  id: string;
  decision: OutreachDecisionKind;
  /** The deciding credential; null when only a step scheduled before it was passed refused it (an edit). */
  actor: CredentialActor | null;
  errorCode: string;
  /** The content version the decision named (approve, or an edit's guard), if any. */
  contentVersion?: number;
}

/**
 * A refused decision leaves one `denied` or `failed` event, as a tool call refused inside its workflow
 * would, in a transaction of its own (whatever the decision touched rolled back) and in the caller's
 * organisation: the deciding credential, the item's id as target, the error code and the version it
 * named. Nothing of the message (body, subject, channel, a reason given) and no contact: an item not
 * found, or another organisation's, names none, and one found is not described by a refusal either.
 * The API writes refusals made before any step ran (api/approvals.ts); a decision step writes its own
 * (activities/outreach.ts), so each refusal is written once.
 */
export async function recordRefusedOutreachDecision(pool: Pool, refusal: RefusedOutreachDecision): Promise<void> {
  const tool = outreachDecisionTool(refusal.decision);
  try {
    await withTenantTransaction(pool, refusal.orgId, (db) => recordWorkflowDecision(db, {
      orgId: refusal.orgId, tool, module: 'people', actor: refusal.actor, workflowId: outreachWorkflowId(refusal.id),
      target: { type: 'outreach', id: refusal.id }, contactIds: [],
      fields: refusal.contentVersion !== undefined ? { version: refusal.contentVersion } : {}, errorCode: refusal.errorCode,
    }));
  } catch (error) {
    // The decider's answer matters more than its trail entry: say so in the log (codes and ids only) and go on.
    log('error', 'audit event of a refused outreach decision not written', { ...errorFields(error), tool, orgId: refusal.orgId, outreachId: refusal.id });
  }
}

/**
 * Whether a decision repeats one this person already made and the item still holds, so the call is
 * answered with the item as it stands and records nothing: an approval of the version they approved
 * (still approved with no send refused, or since sent), a decline they made, a cancel they made. Any
 * other decision on a decided item (another person's, another decision, another version) is the
 * workflow's to refuse as a conflict, which is recorded. Approving again an approved item whose send
 * was refused or left for review is no repeat: it asks for the send again.
 */
export async function repeatsStandingDecision(
  db: Queryable, orgId: string, item: OutreachItem, decision: OutreachDecisionKind, userId: string, contentVersion: number | undefined,
): Promise<boolean> {
  const approvedAsBefore = (item.status === 'sent' || (item.status === 'approved' && item.sendError === null)) && item.approvedVersion === contentVersion;
  const holds = decision === 'approve' ? approvedAsBefore : (decision === 'decline' && item.status === 'declined') || (decision === 'cancel' && item.status === 'cancelled');
  if (!holds) return false;
  const row = await queryOne<{ approved_by_user_id: string | null; decided_by_user_id: string | null }>(db,
    'SELECT approved_by_user_id, decided_by_user_id FROM outreach_items WHERE org_id = $1 AND id = $2', [orgId, item.id]);
  return (decision === 'approve' ? row?.approved_by_user_id : row?.decided_by_user_id) === userId;
}

/**
 * A decision on an item leaves the audit event its tool call would (the decision tools go to the item's
 * workflow, not the tool activity): the deciding credential, the item, its contact, what changed. It is
 * written in the transaction that applies the decision and only when that changed the row, so a retried
 * step that finds it applied records nothing more. A body goes by reference only, as in every event; the
 * content version is `version` (the trail keeps any field named like `content` by reference).
 */
async function recordOutreachDecision(
  db: Queryable, orgId: string, id: string, contactId: string, tool: OutreachDecisionTool, actor: CredentialActor | null,
  fields: Record<string, unknown>, previous: Record<string, unknown>,
): Promise<void> {
  await recordWorkflowDecision(db, {
    orgId, tool, module: 'people', actor, workflowId: outreachWorkflowId(id), target: { type: 'outreach', id }, contactIds: [contactId], fields, previous,
  });
}

/** The person alone, when the credential they decided with is not known (a step scheduled before it was passed, a direct call). */
export function personActor(userId: string): CredentialActor {
  return { userId, credentialId: null, credentialKind: null, scopes: [] };
}

/**
 * Edits content while pending review; every change bumps the version. `actor` is who edited; a step
 * scheduled before it was passed knows no one, and its event names no one.
 */
export async function editOutreachContent(
  db: Queryable, orgId: string, id: string, changes: { subject?: string | null; body?: string; channel?: OutreachChannel }, actor?: CredentialActor,
): Promise<OutreachItem> {
  const row = await lockItem(db, orgId, id);
  if (row.status !== 'pending_review') {
    throw new StewardError('conflict', `Outreach item is ${row.status}; only items pending review can be edited`);
  }
  const channel = changes.channel ?? row.channel;
  const subject = changes.subject !== undefined ? changes.subject : row.subject;
  const body = changes.body ?? row.body;
  validateContent(channel, subject, body);
  if (channel !== row.channel) {
    // A person is editing: like their own draft, the item may wait out a crisis hold.
    const refusal = await outreachRefusal(db, orgId, row.contact_id, channel, { draftWaitsOutCrisisHold: true });
    if (refusal) throw consentError(refusal);
  }
  if (channel === row.channel && subject === row.subject && body === row.body) return (await getOutreachItem(db, orgId, id))!;
  // The version counts up in the database, under the lock taken above; updated_at is the model's DEFAULT.
  await withModels(db, (transaction) => OutreachItemModel.update(
    { channel, subject, body, contentVersion: literal('content_version + 1') },
    { where: { orgId, id }, transaction },
  ));
  const after: Record<string, unknown> = { channel, subject, body };
  const before: Record<string, unknown> = { channel: row.channel, subject: row.subject, body: row.body };
  const changed = Object.keys(after).filter((key) => after[key] !== before[key]);
  await recordOutreachDecision(db, orgId, id, row.contact_id, 'people_edit_outreach', actor ?? null,
    { ...Object.fromEntries(changed.map((key) => [key, after[key]])), version: row.content_version + 1 },
    { ...Object.fromEntries(changed.map((key) => [key, before[key]])), version: row.content_version });
  return (await getOutreachItem(db, orgId, id))!;
}

/**
 * pending_review → approved, only for the version the approver saw. Re-approving an approved, unsent item retries the send
 * (and changes nothing here). `actor` is the credential `userId` approved with, when known.
 */
export async function markOutreachApproved(
  db: Queryable, orgId: string, id: string, version: number, userId: string, actor: CredentialActor = personActor(userId),
): Promise<OutreachItem> {
  const row = await lockItem(db, orgId, id);
  if (row.status === 'approved') return (await getOutreachItem(db, orgId, id))!;
  if (row.status !== 'pending_review') throw new StewardError('conflict', `Outreach item is already ${row.status}`);
  await requireMayApproveOutreach(db, orgId, userId);
  // The contact is read FOR SHARE first: a hold being placed (FOR UPDATE) is either seen here or waits for this approval.
  const contactId = (await queryOne<{ contact_id: string }>(db, 'SELECT contact_id FROM outreach_items WHERE org_id = $1 AND id = $2', [orgId, id]))!.contact_id;
  await loadDeliveryContact(db, orgId, contactId, true);
  if (await isOnCrisisHold(db, orgId, contactId)) throw crisisHoldError();
  if (row.content_version !== version) {
    throw new StewardError('conflict', `The content changed since version ${version}; review version ${row.content_version} and approve that`, {
      details: { currentVersion: row.content_version }, hint: 'people_get_outreach_item shows the current content.',
    });
  }
  await withModels(db, (transaction) => OutreachItemModel.update(
    { status: 'approved', approvedByUserId: userId, approvedVersion: version, approvedAt: fn('now'), sendError: null },
    { where: { orgId, id }, transaction },
  ));
  await recordOutreachDecision(db, orgId, id, contactId, 'people_approve_outreach', actor, { status: 'approved', version }, { status: row.status });
  return (await getOutreachItem(db, orgId, id))!;
}

export async function clearSendError(db: Queryable, orgId: string, id: string): Promise<void> {
  await withModels(db, (transaction) => OutreachItemModel.update({ sendError: null }, { where: { orgId, id }, transaction }));
}

export const OUTREACH_SOURCE_KIND = 'people.outreach';

/**
 * declined (from pending_review) or cancelled (from pending_review or approved-but-unsent, including needs_review; not while a
 * send attempt holds the outbox row). `actor` is the credential `userId` decided with, when known.
 */
export async function closeOutreach(
  db: Queryable, orgId: string, id: string, to: 'declined' | 'cancelled', userId: string, reason: string | null, actor: CredentialActor = personActor(userId),
): Promise<OutreachItem> {
  const row = await lockItem(db, orgId, id);
  const allowed: OutreachStatus[] = to === 'declined' ? ['pending_review'] : ['pending_review', 'approved'];
  if (row.status === to) return (await getOutreachItem(db, orgId, id))!;
  if (!allowed.includes(row.status)) {
    throw new StewardError('conflict', row.status === 'sent' ? 'The message has already been sent' : `Outreach item is already ${row.status}`);
  }
  const outbox = await lockOutboxStateOf(db, orgId, { kind: OUTREACH_SOURCE_KIND, id });
  if (outbox?.sent) throw new StewardError('conflict', 'The message has already been sent');
  // A send attempt holds the row: it may be inside the provider call right now.
  if (outbox?.leased) throw new StewardError('conflict', 'The message is being sent and can no longer be cancelled');
  await db.query(`UPDATE outreach_items SET status = $3, decided_by_user_id = $4, decided_at = now(), decision_reason = $5, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, id, to, userId, reason]);
  await recordOutreachDecision(db, orgId, id, row.contact_id, to === 'declined' ? 'people_decline_outreach' : 'people_cancel_outreach', actor,
    { status: to, ...(reason !== null ? { reason } : {}) }, { status: row.status });
  return (await getOutreachItem(db, orgId, id))!;
}

/** `{{firstName}}`, `{{name}}` and `{{organisation}}` in automation templates. */
export function renderTemplate(template: string, values: { firstName: string; name: string; organisation: string }): string {
  return template.replace(/\{\{\s*(firstName|name|organisation)\s*\}\}/g, (_m, key: keyof typeof values) => values[key]);
}
