import type { Client } from '@temporalio/client';
import { StewardError } from '../../core/errors';
import { queryOne, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { analyseContent, whatsAppTemplateDefinition, type Purpose } from './content';
import { contentOf, requireVersion, versionView, type WhatsAppStatus } from './store';
import { whatsAppReviewWorkflowId, whatsAppTemplateStatusSignal } from './workflows/whatsapp-review';
import { whatsAppTemplateProvider, type ProviderReviewStatus, type ProviderTemplate } from './whatsapp-provider';

/**
 * WhatsApp's review of a template version, mirrored: submitted → pending → approved | rejected,
 * and later paused or disabled by WhatsApp. The provider's status webhook (applyWhatsAppTemplateStatus)
 * and the review workflow's polling both end here; the row is the one record of the review, so
 * whichever arrives first wins and the other changes nothing.
 */

// The review workflow's id and signal are its own (workflows/whatsapp-review.ts); this side only names them.
export { whatsAppReviewWorkflowId };

/** WhatsApp template names: lowercase letters, digits and underscores; one per version, since a reviewed template's words are fixed. */
export function whatsAppNameFor(templateName: string, versionNumber: number): string {
  const slug = templateName.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 400) || 'template';
  return `${slug}_v${versionNumber}`;
}

export function whatsAppCategoryFor(purpose: Purpose): 'MARKETING' | 'UTILITY' {
  return purpose === 'service' ? 'UTILITY' : 'MARKETING';
}

export interface Submission extends ProviderTemplate {
  name: string;
  category: 'MARKETING' | 'UTILITY';
}

/**
 * Sends a version to WhatsApp for review, outside any transaction (a tool's prepare step). The
 * version id is the idempotency key, so a retried call names the same provider template.
 */
export async function submitToProvider(db: Queryable, orgId: string, versionId: string): Promise<Submission | null> {
  const version = await requireVersion(db, orgId, versionId);
  if (version.channel !== 'whatsapp') {
    throw new StewardError('validation_failed', `This is a ${version.channel} template; only WhatsApp templates are reviewed by WhatsApp`, { issues: [{ path: 'versionId', message: 'not a WhatsApp template version' }] });
  }
  if (version.template_archived_at) throw new StewardError('conflict', 'The template is archived');
  if (version.whatsapp_template_id) return null;
  if (version.status !== 'draft') throw new StewardError('conflict', `Version ${version.number} is ${version.status}; only a draft is submitted`);
  const analysis = analyseContent(contentOf(version));
  if (analysis.errors.length > 0) {
    throw new StewardError('validation_failed', `WhatsApp would reject this version: ${analysis.errors.length} problem(s)`, {
      hint: 'Fix them in a new version (templates_create_version) and submit that one.',
      issues: analysis.errors.map((error) => ({ path: error.field ?? 'body', message: error.message })),
    });
  }
  const name = whatsAppNameFor(version.template_name, version.number);
  const category = whatsAppCategoryFor(version.purpose);
  const created = await whatsAppTemplateProvider().create(whatsAppTemplateDefinition(contentOf(version), name, category), `template-version:${version.id}`);
  return { ...created, name, category };
}

const STATUS_OF: Record<ProviderReviewStatus, WhatsAppStatus> = {
  PENDING: 'pending', APPROVED: 'approved', REJECTED: 'rejected', PAUSED: 'paused', DISABLED: 'disabled',
};

/** Records what the provider answered to the submission; a retried call finds it recorded and changes nothing. */
export async function recordSubmission(db: Queryable, orgId: string, versionId: string, submission: Submission | null) {
  const version = await requireVersion(db, orgId, versionId, true);
  if (submission && !version.whatsapp_template_id) {
    await db.query(`UPDATE template_versions SET whatsapp_template_id = $3, whatsapp_name = $4, whatsapp_category = $5, whatsapp_status = 'pending',
      whatsapp_submitted_at = now(), whatsapp_status_at = now() WHERE org_id = $1 AND id = $2`, [orgId, versionId, submission.id, submission.name, submission.category]);
    if (submission.status !== 'PENDING') await applyStatus(db, orgId, versionId, submission.status, submission.reason);
  }
  return versionView(await requireVersion(db, orgId, versionId));
}

/**
 * Moves a version's mirrored review to the provider's status. A decision is never undone by a
 * late PENDING; approval also approves a draft version, so it can be activated.
 */
async function applyStatus(db: Queryable, orgId: string, versionId: string, providerStatus: ProviderReviewStatus, reason: string | null): Promise<{ status: WhatsAppStatus; changed: boolean }> {
  const version = await requireVersion(db, orgId, versionId, true);
  const current = version.whatsapp_status!;
  const next = STATUS_OF[providerStatus];
  if (next === current || (next === 'pending' && current !== 'pending')) return { status: current, changed: false };
  await db.query(`UPDATE template_versions SET whatsapp_status = $3, whatsapp_reason = $4, whatsapp_status_at = now(),
      status = CASE WHEN $3 = 'approved' AND status = 'draft' THEN 'approved' ELSE status END,
      approved_at = CASE WHEN $3 = 'approved' AND status = 'draft' THEN now() ELSE approved_at END
    WHERE org_id = $1 AND id = $2`, [orgId, versionId, next, reason]);
  return { status: next, changed: true };
}

export interface StatusUpdate {
  providerTemplateId: string;
  status: string;
  reason?: string | null;
  /** The webhook's own id, for the log; the update is idempotent without it. */
  eventId?: string;
}

/**
 * The provider's `message_template_status_update` webhook, verified by the caller. The
 * webhook names no organisation: the provider template id (unique) finds the version. The row
 * changes at once; the review workflow is then told, so it stops polling (without a client it
 * finds the decision at its next poll, which reads the row first).
 *
 * `firstSighting` is the caller's replay check, run in the same transaction once the version is
 * found, so an event is never remembered without its change, and one for a template not (yet)
 * recorded here is not remembered at all: a second delivery of it, or an operator's replay, can still
 * match once the submission has committed. (The provider does not resend an event answered 200; a
 * decision that overtook its submission is found by the review workflow's first look.)
 */
export async function applyWhatsAppTemplateStatus(pool: Pool, update: StatusUpdate, options: { temporal?: Client; firstSighting?: (db: Queryable) => Promise<boolean> } = {}): Promise<StatusOutcome> {
  const providerStatus = String(update.status).toUpperCase() as ProviderReviewStatus;
  if (!(providerStatus in STATUS_OF)) return { result: 'unsupported_status' };
  const owner = await queryOne<{ org_id: string; id: string }>(pool, 'SELECT org_id, id FROM template_versions WHERE whatsapp_template_id = $1', [update.providerTemplateId]);
  if (!owner) return { result: 'unknown_template' };
  const reason = update.reason && update.reason !== 'NONE' ? update.reason.slice(0, 1000) : null;
  const outcome = await withTenantTransaction(pool, owner.org_id, async (client): Promise<StatusOutcome> => {
    if (options.firstSighting && !(await options.firstSighting(client))) return { result: 'replay' };
    const applied = await applyStatus(client, owner.org_id, owner.id, providerStatus, reason);
    return { result: applied.changed ? 'changed' : 'unchanged', status: applied.status };
  });
  if (outcome.result === 'changed' && options.temporal) {
    await options.temporal.workflow.getHandle(whatsAppReviewWorkflowId(owner.id)).signal(whatsAppTemplateStatusSignal).catch(() => undefined);
  }
  return outcome;
}

/**
 * What a status webhook did: moved the version's mirrored review (`changed`), found it already
 * there or past it (`unchanged`), or nothing: seen before by the caller's check (`replay`), no
 * version here submitted as that template (`unknown_template`), or a status Steward does not mirror.
 */
export type StatusOutcome =
  | { result: 'changed' | 'unchanged'; status: WhatsAppStatus }
  | { result: 'replay' | 'unknown_template' | 'unsupported_status' };

/**
 * One look at a version's review for the workflow: the row first (a webhook may have decided it),
 * then, if still pending and `poll`, the provider's own answer.
 */
export async function checkReview(pool: Pool, orgId: string, versionId: string, poll: boolean): Promise<{ status: WhatsAppStatus | 'gone' }> {
  const read = () => withTenantTransaction(pool, orgId, async (client) => queryOne<{ whatsapp_status: WhatsAppStatus; whatsapp_template_id: string }>(client,
    'SELECT whatsapp_status, whatsapp_template_id FROM template_versions WHERE org_id = $1 AND id = $2', [orgId, versionId]));
  const row = await read();
  if (!row?.whatsapp_template_id) return { status: 'gone' };
  if (row.whatsapp_status !== 'pending' || !poll) return { status: row.whatsapp_status };
  const remote = await whatsAppTemplateProvider().get(row.whatsapp_template_id);
  if (!remote) return { status: row.whatsapp_status };
  const applied = await withTenantTransaction(pool, orgId, (client) => applyStatus(client, orgId, versionId, remote.status, remote.reason));
  return { status: applied.status };
}
