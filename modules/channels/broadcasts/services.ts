import { createHash, randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { smsSegments } from '../../templates/api';
import { activeVersionOf, renderForSend } from '../../templates/api';
import { listPage, type RowOf } from '../../kit';
import { listProposals } from '../../../kernel/proposals';
import type { Channel, Purpose } from '../audience/addresses';
import { checkRecipient } from '../audience/services';
import { PRICE_CURRENCY, unitPrice, whatsappCategoryFor, type WhatsAppCategory } from '../delivery/pricing';
import { resolveAudience, type Audience } from './audience';
import type { ChannelBroadcast } from './models/broadcasts';
import type { ProgressReport } from '../../tool';

/**
 * Broadcasts: one message to an audience. A preview works out who it would reach, who is excluded
 * and why, what it costs and what a message looks like, and saves the broadcast (status previewed)
 * with a hash of what it showed; scheduling needs that hash, so nobody schedules an audience or
 * content they did not see. Nothing is sent or metered before scheduling; each message is checked
 * (consent, suppression, quiet hours, crisis holds) again when it is dispatched.
 */

export const BROADCAST_STATUSES = [
  'draft', 'previewed', 'pending_approval', 'approved', 'scheduled', 'sending', 'completed', 'partially_failed', 'cancelled',
] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

export const RECIPIENT_STATUSES = ['pending', 'queued', 'deferred', 'sent', 'skipped', 'failed', 'cancelled'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/** Above this many recipients a broadcast waits for a person's approval (any marketing broadcast always does). */
export const APPROVAL_RECIPIENT_THRESHOLD = 50;
/** Default sending rate: ten messages a second. */
export const DEFAULT_RATE_PER_MINUTE = 600;
/** States in which a broadcast can still be stopped. */
const CANCELLABLE: readonly string[] = ['draft', 'previewed', 'approved', 'scheduled', 'sending'];
/** Recipients whose message has not gone yet. */
export const OUTSTANDING: readonly RecipientStatus[] = ['pending', 'queued', 'deferred'];

export interface BroadcastContent {
  channel: Channel;
  purpose: Purpose;
  templateId: string | null;
  subject: string | null;
  body: string | null;
  html: string | null;
  variables: Record<string, string>;
}

export interface BroadcastDefinition extends BroadcastContent {
  name: string;
  audience: Audience;
  ratePerMinute: number;
}

/** A broadcast as `SELECT *` reads it, typed by its model. */
type BroadcastRow = RowOf<ChannelBroadcast>;

export interface BroadcastPreview {
  total: number;
  eligible: number;
  excluded: Record<string, number>;
  deferredForQuietHours: number;
  cost: {
    channel: Channel;
    messages: number;
    smsSegments: number | null;
    whatsappCategory: WhatsAppCategory | null;
    unit: 'sms_segment' | 'whatsapp_message' | 'email';
    unitPrice: number;
    amount: number;
    currency: string;
  };
  sample: { contactId: string; subject: string | null; text: string; html: string | null; sms: { encoding: string; segments: number; characters: number } | null } | null;
  templateVersionId: string | null;
  needsApproval: boolean;
}

// ---------------------------------------------------------------- content and hash

/** The active template version a broadcast would send, checked against its channel; null for free-form content. */
async function templateVersionFor(db: Queryable, orgId: string, content: BroadcastContent): Promise<string | null> {
  if (!content.templateId) return null;
  const active = await activeVersionOf(db, orgId, content.templateId);
  if (!active) {
    throw new StewardError('validation_failed', `Template ${content.templateId} has no active version`, {
      hint: 'Activate a version first (templates_activate_version).', issues: [{ path: 'templateId', message: 'no active version' }],
    });
  }
  if (active.channel !== content.channel) {
    throw new StewardError('validation_failed', `Template ${content.templateId} is a ${active.channel} template, not ${content.channel}`, {
      issues: [{ path: 'templateId', message: `channel ${active.channel}` }],
    });
  }
  return active.versionId;
}

/** Canonical JSON: object keys sorted, so equal values always hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * What a preview showed, as one hash: the audience (its contact ids), the content (the template's
 * active version, or the free-form text) and the settings that change what is sent (channel,
 * purpose, rate). The same broadcast previewed twice with nothing changed hashes the same.
 */
export function previewHashOf(input: { contactIds: readonly string[]; content: BroadcastContent; templateVersionId: string | null; ratePerMinute: number }): string {
  const { content } = input;
  return createHash('sha256').update(canonical({
    audience: input.contactIds,
    channel: content.channel, purpose: content.purpose, templateId: content.templateId, templateVersionId: input.templateVersionId,
    subject: content.subject, body: content.body, html: content.html, variables: content.variables, ratePerMinute: input.ratePerMinute,
  })).digest('hex');
}

// ---------------------------------------------------------------- preview

interface RenderedForRecipient {
  subject: string | null;
  text: string;
  html: string | null;
}

/** One recipient's message as it would go: the template rendered for them, or the free-form content. */
async function renderFor(db: Queryable, orgId: string, content: BroadcastContent, contactId: string): Promise<RenderedForRecipient> {
  if (!content.templateId) return { subject: content.subject, text: content.body ?? '', html: content.html };
  const rendered = await renderForSend(db, orgId, { templateId: content.templateId, contactId, variables: content.variables, channel: content.channel });
  return { subject: rendered.subject, text: rendered.text, html: rendered.html };
}

const UNIT_OF = { sms: 'sms_segment', whatsapp: 'whatsapp_message', email: 'email' } as const;

const EXCLUSION_OF_RENDER_ERROR: Record<string, string> = { validation_failed: 'missing_variables', not_found: 'template_missing' };

/**
 * Who the broadcast reaches and what it costs, as of `now`: every audience member is checked as a
 * dispatch would check them (consent for the channel and purpose, suppression, crisis hold, an
 * address; quiet hours defer rather than exclude) and, with a template, rendered for them (missing
 * variables exclude the person: a message never goes out with a gap). Reads only.
 */
export async function computePreview(
  db: Queryable, orgId: string, content: BroadcastContent, contactIds: readonly string[], templateVersionId: string | null, now: Date,
  progress?: ProgressReport,
): Promise<BroadcastPreview> {
  const excluded: Record<string, number> = {};
  let eligible = 0;
  let deferredForQuietHours = 0;
  let units = 0;
  let sample: BroadcastPreview['sample'] = null;
  const freeForm = content.channel === 'whatsapp' && !content.templateId;
  for (const [index, contactId] of contactIds.entries()) {
    // Reported as each person's check begins, so every path through the loop counts once (the last after the loop).
    if (index > 0) progress?.(index, contactIds.length, `Checked ${index} of ${contactIds.length} recipients`);
    const check = await checkRecipient(db, orgId, { contactId, channel: content.channel, purpose: content.purpose, now, freeForm });
    if (!check.ok) {
      excluded[check.reason] = (excluded[check.reason] ?? 0) + 1;
      continue;
    }
    let rendered: RenderedForRecipient;
    try {
      rendered = await renderFor(db, orgId, content, contactId);
    } catch (error) {
      if (!(error instanceof StewardError) || !EXCLUSION_OF_RENDER_ERROR[error.code]) throw error;
      const reason = EXCLUSION_OF_RENDER_ERROR[error.code];
      excluded[reason] = (excluded[reason] ?? 0) + 1;
      continue;
    }
    eligible += 1;
    if (check.quietUntil) deferredForQuietHours += 1;
    const sms = content.channel === 'sms' ? smsSegments(rendered.text) : null;
    // As the message will be metered: SMS by segments (at least one), everything else one per message.
    units += sms ? Math.max(sms.segments, 1) : 1;
    sample ??= {
      contactId, subject: rendered.subject, text: rendered.text, html: rendered.html,
      sms: sms ? { encoding: sms.encoding, segments: sms.segments, characters: sms.characters } : null,
    };
  }
  progress?.(contactIds.length, contactIds.length, `Checked ${contactIds.length} of ${contactIds.length} recipients`);
  const whatsappCategory = content.channel === 'whatsapp' ? whatsappCategoryFor(false, content.purpose) : null;
  const price = unitPrice(content.channel, whatsappCategory);
  return {
    total: contactIds.length,
    eligible,
    excluded,
    deferredForQuietHours,
    cost: {
      channel: content.channel,
      messages: eligible,
      smsSegments: content.channel === 'sms' ? units : null,
      whatsappCategory,
      unit: UNIT_OF[content.channel],
      unitPrice: price,
      amount: units * price,
      currency: PRICE_CURRENCY,
    },
    sample,
    templateVersionId,
    needsApproval: needsApproval(content.purpose, contactIds.length),
  };
}

export function needsApproval(purpose: Purpose, recipients: number): boolean {
  return purpose === 'marketing' || recipients > APPROVAL_RECIPIENT_THRESHOLD;
}

function assertContent(content: BroadcastContent): void {
  if (content.templateId) {
    if (content.body != null || content.subject != null || content.html != null) {
      throw new StewardError('validation_failed', 'Give either a template or the content (subject, body, html), not both', { issues: [{ path: 'templateId', message: 'template and content together' }] });
    }
    return;
  }
  if (!content.body) throw new StewardError('validation_failed', 'A broadcast needs a template or a body', { issues: [{ path: 'body', message: 'required without templateId' }] });
  if (content.channel === 'email' && !content.subject) throw new StewardError('validation_failed', 'An email broadcast needs a subject', { issues: [{ path: 'subject', message: 'required for email' }] });
  if (content.channel !== 'email' && (content.subject != null || content.html != null)) {
    throw new StewardError('validation_failed', `A ${content.channel} broadcast has no subject or HTML`, { issues: [{ path: content.subject != null ? 'subject' : 'html', message: `not for ${content.channel}` }] });
  }
  if (content.channel === 'whatsapp') {
    throw new StewardError('validation_failed', 'A WhatsApp broadcast needs an approved template', {
      hint: 'Free-form WhatsApp text may only be sent inside a person\'s 24-hour window; create a WhatsApp template and have it approved (templates_submit_whatsapp_template).',
      issues: [{ path: 'templateId', message: 'required for whatsapp' }],
    });
  }
}

/**
 * Previews a broadcast and saves it (status previewed) with the preview and its hash: a new one, or
 * a draft or previewed one the caller changes. Nothing is sent or metered.
 */
export async function previewBroadcast(
  db: Queryable, org: { id: string; country: string }, input: BroadcastDefinition & { broadcastId?: string; userId: string | null }, now: Date,
  progress?: ProgressReport,
): Promise<{ broadcast: BroadcastView; preview: BroadcastPreview; previewHash: string }> {
  const content: BroadcastContent = {
    channel: input.channel, purpose: input.purpose, templateId: input.templateId, subject: input.subject, body: input.body, html: input.html, variables: input.variables,
  };
  assertContent(content);
  if (input.broadcastId) {
    const existing = await lockBroadcast(db, org.id, input.broadcastId);
    if (existing.status !== 'draft' && existing.status !== 'previewed') {
      throw new StewardError('conflict', `Broadcast ${existing.id} is ${existing.status}; only a draft or previewed broadcast can be previewed again`, {
        hint: 'Preview a new broadcast instead (omit broadcastId).', details: { status: existing.status },
      });
    }
  }
  const templateVersionId = await templateVersionFor(db, org.id, content);
  const contactIds = await resolveAudience(db, org.id, input.audience);
  const preview = await computePreview(db, org.id, content, contactIds, templateVersionId, now, progress);
  const previewHash = previewHashOf({ contactIds, content, templateVersionId, ratePerMinute: input.ratePerMinute });
  const values = [
    input.name, content.channel, content.purpose, JSON.stringify(input.audience), content.templateId, content.subject, content.body, content.html,
    JSON.stringify(content.variables), previewHash, JSON.stringify(preview), input.ratePerMinute, contactIds.length,
  ];
  let id = input.broadcastId;
  if (id) {
    await db.query(`UPDATE channel_broadcasts SET name = $3, channel = $4, purpose = $5, audience = $6, template_id = $7, subject = $8, body = $9, html = $10,
        variables = $11, preview_hash = $12, preview = $13, rate_per_minute = $14, total_recipients = $15, status = 'previewed', previewed_at = now(), updated_at = now()
      WHERE org_id = $1 AND id = $2`, [org.id, id, ...values]);
  } else {
    id = randomUUID();
    await db.query(`INSERT INTO channel_broadcasts (id, org_id, name, channel, purpose, audience, template_id, subject, body, html, variables,
        preview_hash, preview, rate_per_minute, total_recipients, status, previewed_at, created_by_user_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'previewed', now(), $16)`, [id, org.id, ...values, input.userId]);
  }
  return { broadcast: await getBroadcast(db, org.id, id), preview, previewHash };
}

// ---------------------------------------------------------------- schedule and cancel

async function lockBroadcast(db: Queryable, orgId: string, id: string): Promise<BroadcastRow> {
  const row = await queryOne<BroadcastRow>(db, 'SELECT * FROM channel_broadcasts WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
  if (!row) throw broadcastNotFound(id);
  return row;
}

export function broadcastNotFound(id: string): StewardError {
  return new StewardError('not_found', `Broadcast ${id} was not found`, { hint: 'channels_list_broadcasts lists broadcasts.' });
}

function contentOf(row: BroadcastRow): BroadcastContent {
  return { channel: row.channel, purpose: row.purpose, templateId: row.template_id, subject: row.subject, body: row.body, html: row.html, variables: row.variables ?? {} };
}

/** Whether scheduling this broadcast waits for a person (read-only; asked by the approval gate). */
/**
 * Whether scheduling waits for a person's approval. Asked before any proposal is opened, so a call
 * that could never be carried out (a broadcast not previewed, a previewHash that is not the latest
 * preview's) is refused at once instead of waiting in the approval queue to fail when approved.
 */
export async function scheduleNeedsApproval(db: Queryable, orgId: string, broadcastId: string, previewHash: string): Promise<boolean> {
  const row = await queryOne<{ id: string; status: string; preview_hash: string | null; purpose: Purpose; total_recipients: number }>(db,
    'SELECT id, status, preview_hash, purpose, total_recipients FROM channel_broadcasts WHERE org_id = $1 AND id = $2', [orgId, broadcastId]);
  if (!row) return false;
  assertSchedulable(row, previewHash);
  return needsApproval(row.purpose, row.total_recipients);
}

function stalePreview(broadcastId: string, why: string): StewardError {
  return new StewardError('conflict', `The preview is out of date: ${why}`, {
    hint: 'Preview the broadcast again (channels_preview_broadcast with its broadcastId) and schedule with the new previewHash.',
    details: { broadcastId },
  });
}

/** A broadcast can be scheduled only while previewed, and only with its latest preview's hash. */
function assertSchedulable(row: { id: string; status: string; preview_hash: string | null }, previewHash: string): void {
  if (row.status !== 'previewed') {
    throw new StewardError('conflict', `Broadcast ${row.id} is ${row.status}, not previewed`, {
      hint: row.status === 'draft' ? 'Preview it first (channels_preview_broadcast).' : 'Only a previewed broadcast can be scheduled; channels_get_broadcast shows where it stands.',
      details: { status: row.status },
    });
  }
  if (previewHash !== row.preview_hash) throw stalePreview(row.id, 'the previewHash is not the one the latest preview gave');
}

/**
 * Schedules a previewed broadcast: the hash must be the preview's, and the audience and content
 * must still be what it showed (recomputed now, under the broadcast's lock); otherwise `conflict`
 * (preview again). The audience is fixed in sending order, and the broadcast becomes scheduled, or
 * approved when a person's approval carried it out (the sending workflow then takes it).
 */
export async function scheduleBroadcast(
  db: Queryable, orgId: string, input: { broadcastId: string; previewHash: string; sendAt: Date | null; approved: boolean },
  progress?: ProgressReport,
): Promise<BroadcastView> {
  const row = await lockBroadcast(db, orgId, input.broadcastId);
  assertSchedulable(row, input.previewHash);
  const stale = (why: string) => stalePreview(row.id, why);
  const content = contentOf(row);
  let templateVersionId: string | null;
  try {
    templateVersionId = await templateVersionFor(db, orgId, content);
  } catch (error) {
    if (error instanceof StewardError && error.code === 'validation_failed') throw stale(error.message);
    throw error;
  }
  const contactIds = await resolveAudience(db, orgId, row.audience);
  if (previewHashOf({ contactIds, content, templateVersionId, ratePerMinute: row.rate_per_minute }) !== row.preview_hash) {
    throw stale('the audience or the content changed since it was previewed');
  }
  // The hash matched, so this is the version the preview showed: it is the one sent, whatever is activated later.
  // Fixed in one statement, in the order the hash covered; positions make the sending batches deterministic.
  await db.query(`INSERT INTO channel_broadcast_recipients (org_id, broadcast_id, position, contact_id)
    SELECT $1, $2, t.ord - 1, t.contact_id FROM unnest($3::uuid[]) WITH ORDINALITY AS t(contact_id, ord)`, [orgId, row.id, contactIds]);
  // One statement, so one report: a plain call queues at most the approval threshold; a larger audience is queued by its approval's action.
  progress?.(contactIds.length, contactIds.length, `Queued ${contactIds.length} of ${contactIds.length} recipients`);
  await db.query(`UPDATE channel_broadcasts SET status = $3, send_at = $4, total_recipients = $5, scheduled_at = now(),
      approved_at = CASE WHEN $6 THEN now() ELSE approved_at END, template_version_id = $7, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, row.id, input.approved ? 'approved' : 'scheduled', input.sendAt, contactIds.length, input.approved, templateVersionId]);
  return getBroadcast(db, orgId, row.id);
}

/**
 * Cancels a broadcast: recipients whose message has not gone are cancelled (a message being handed
 * to the provider at this moment still goes); sent ones stay sent. Cancelling twice is a no-op.
 */
export async function cancelBroadcast(db: Queryable, orgId: string, input: { broadcastId: string; reason: string | null }): Promise<{ broadcast: BroadcastView; cancelledRecipients: number }> {
  const row = await lockBroadcast(db, orgId, input.broadcastId);
  if (row.status === 'cancelled') return { broadcast: await getBroadcast(db, orgId, row.id), cancelledRecipients: 0 };
  if (!CANCELLABLE.includes(row.status)) {
    throw new StewardError('conflict', `Broadcast ${row.id} is ${row.status} and can no longer be cancelled`, { details: { status: row.status } });
  }
  const cancelled = await db.query(`UPDATE channel_broadcast_recipients SET status = 'cancelled', not_before = NULL, updated_at = now()
    WHERE org_id = $1 AND broadcast_id = $2 AND status = ANY($3::text[])`, [orgId, row.id, [...OUTSTANDING]]);
  await db.query(`UPDATE channel_broadcasts SET status = 'cancelled', cancelled_at = now(), cancel_reason = $3, finished_at = now(), updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, row.id, input.reason]);
  return { broadcast: await getBroadcast(db, orgId, row.id), cancelledRecipients: cancelled.rowCount ?? 0 };
}

// ---------------------------------------------------------------- views

export interface BroadcastView {
  id: string;
  name: string;
  channel: Channel;
  purpose: Purpose;
  audience: Audience;
  templateId: string | null;
  subject: string | null;
  body: string | null;
  status: BroadcastStatus;
  previewHash: string | null;
  previewedAt: string | null;
  sendAt: string | null;
  ratePerMinute: number;
  totalRecipients: number;
  approvedAt: string | null;
  scheduledAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  cancelledAt: string | null;
  cancelReason: string | null;
  createdAt: string;
  /** While pending_approval: the proposal a person approves (platform_approve_proposal). */
  approvalProposalId?: string;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

function viewOf(row: BroadcastRow): BroadcastView {
  return {
    id: row.id, name: row.name, channel: row.channel, purpose: row.purpose, audience: row.audience, templateId: row.template_id,
    subject: row.subject, body: row.body, status: row.status, previewHash: row.preview_hash, previewedAt: iso(row.previewed_at),
    sendAt: iso(row.send_at), ratePerMinute: row.rate_per_minute, totalRecipients: row.total_recipients, approvedAt: iso(row.approved_at),
    scheduledAt: iso(row.scheduled_at), startedAt: iso(row.started_at), finishedAt: iso(row.finished_at), cancelledAt: iso(row.cancelled_at),
    cancelReason: row.cancel_reason, createdAt: row.created_at.toISOString(),
  };
}

export async function getBroadcastRow(db: Queryable, orgId: string, id: string): Promise<BroadcastRow | undefined> {
  return queryOne<BroadcastRow>(db, 'SELECT * FROM channel_broadcasts WHERE org_id = $1 AND id = $2', [orgId, id]);
}

/** The tool whose call, above the threshold or for marketing, becomes a proposal a person approves. */
export const SCHEDULE_TOOL = 'channels_schedule_broadcast';

/**
 * Broadcasts whose scheduling waits in a pending proposal. The approval gate routes the call to a
 * proposal without running it, so the broadcast's row stays previewed meanwhile and its view says
 * pending_approval (with the proposal's id) while the proposal is open.
 */
async function pendingApprovals(db: Queryable, orgId: string): Promise<Map<string, string>> {
  const proposals = await listProposals(db, orgId, { status: 'pending', limit: 200, actionTools: [SCHEDULE_TOOL] });
  const byBroadcast = new Map<string, string>();
  for (const proposal of proposals) {
    const broadcastId = proposal.action.arguments.broadcastId;
    if (typeof broadcastId === 'string' && !byBroadcast.has(broadcastId)) byBroadcast.set(broadcastId, proposal.id);
  }
  return byBroadcast;
}

function withApproval(view: BroadcastView, pending: Map<string, string>): BroadcastView {
  const proposalId = pending.get(view.id);
  return view.status === 'previewed' && proposalId ? { ...view, status: 'pending_approval', approvalProposalId: proposalId } : view;
}

export async function getBroadcast(db: Queryable, orgId: string, id: string): Promise<BroadcastView> {
  const row = await getBroadcastRow(db, orgId, id);
  if (!row) throw broadcastNotFound(id);
  const view = viewOf(row);
  return view.status === 'previewed' ? withApproval(view, await pendingApprovals(db, orgId)) : view;
}

export async function getBroadcastPreview(db: Queryable, orgId: string, id: string): Promise<BroadcastPreview | null> {
  return (await getBroadcastRow(db, orgId, id))?.preview ?? null;
}

/** Recipients by status, and those not sent by reason (skipped: refused at dispatch; failed: the send failed). */
export async function recipientCounts(db: Queryable, orgId: string, broadcastId: string) {
  const rows = await queryRows<{ status: RecipientStatus; reason: string | null; n: number }>(db, `
    SELECT status, reason, count(*)::int AS n FROM channel_broadcast_recipients
    WHERE org_id = $1 AND broadcast_id = $2 GROUP BY status, reason`, [orgId, broadcastId]);
  const byStatus = Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, 0])) as Record<RecipientStatus, number>;
  const skippedByReason: Record<string, number> = {};
  const failedByReason: Record<string, number> = {};
  for (const row of rows) {
    byStatus[row.status] += row.n;
    if (row.status === 'skipped') skippedByReason[row.reason ?? 'unknown'] = (skippedByReason[row.reason ?? 'unknown'] ?? 0) + row.n;
    if (row.status === 'failed') failedByReason[row.reason ?? 'unknown'] = (failedByReason[row.reason ?? 'unknown'] ?? 0) + row.n;
  }
  return { byStatus, skippedByReason, failedByReason };
}

export async function listBroadcasts(db: Queryable, orgId: string, input: { status?: BroadcastStatus; limit: number; cursor?: string }) {
  // pending_approval is a previewed row with an open proposal: filter on the stored state, then on the proposal.
  const stored = input.status === 'pending_approval' ? 'previewed' : input.status;
  const page = await listPage<BroadcastRow>(db, {
    table: 'channel_broadcasts', orgId, limit: input.limit, cursor: input.cursor, includeDeleted: true,
    where: stored ? 'status = $4' : undefined, values: stored ? [stored] : [],
  });
  const pending = await pendingApprovals(db, orgId);
  let broadcasts = page.rows.map((row) => withApproval(viewOf(row), pending));
  if (input.status) broadcasts = broadcasts.filter((b) => b.status === input.status);
  return { broadcasts, nextCursor: page.nextCursor };
}
