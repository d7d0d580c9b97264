import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { resolvePayloadKey } from '../../temporal/payload-key';
import {
  checkRecipient, dispatchOutcomeOf, emailOutcomesOf, queueMessage, resolveAudience, settleGivenUp, withdrawQueuedMessages, type Audience, type DispatchResult,
} from '../channels/api';
import { notFound } from '../kit';
import { escapeHtml } from '../templates/api';
import { publicBaseUrl } from './forms';
import type { ProgressReport } from '../tool';

/**
 * Email campaigns. Grow never sends: each recipient's email is queued in the channels module's
 * outbox (queueMessage) and handed to it, where consent, suppression and quiet hours are checked
 * again as it leaves and RFC 8058 one-click unsubscribe headers are added. The approval binds to
 * the previewed audience and content hash, as broadcasts' does. Links are rewritten through
 * Steward's signed redirect (the destination is read from the campaign, never from the link), an
 * open pixel counts opens with machine opens flagged, and an A/B test sends variants to an equal
 * random test group, waits, and sends the winner by clicks (a tie keeps the first) to the rest.
 */

export const CAMPAIGN_STATUSES = ['draft', 'previewed', 'scheduled', 'testing', 'sending', 'sent', 'paused', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const AB_VARIABLES = ['subject', 'from_name', 'content'] as const;
export const APPROVAL_RECIPIENT_THRESHOLD = 50;
export const SCHEDULE_TOOL = 'grow_schedule_campaign';
const MAX_LINKS = 50;

export interface CampaignRow {
  id: string; org_id: string; name: string; status: CampaignStatus; audience: Audience; purpose: 'marketing' | 'charitable_purpose'; subject: string; body: string;
  from_name: string | null; reply_to: string | null; links: string[]; preview_hash: string | null; preview: CampaignPreview | null; total_recipients: number;
  send_at: Date | null; ab_variable: (typeof AB_VARIABLES)[number] | null; ab_test_percent: number | null; ab_wait_seconds: number | null; winner_variant: number | null;
  winner_by: string | null; test_sent_at: Date | null; sent_at: Date | null; created_at: Date; updated_at: Date;
}

export interface VariantRow { position: number; subject: string; from_name: string | null; body: string; links: string[] }

export interface CampaignPreview {
  recipients: number;
  excluded: Array<{ reason: string; count: number }>;
  sample: { subject: string; body: string } | null;
}

export interface CampaignView {
  id: string; name: string; status: CampaignStatus; audience: Audience; purpose: string; subject: string; body: string; fromName: string | null; replyTo: string | null;
  links: string[]; previewHash: string | null; totalRecipients: number; sendAt: string | null;
  abTest: { variable: string; testPercent: number; waitHours: number; variants: Array<{ position: number; subject: string; fromName: string | null; body: string }>; winner: number | null; winnerBy: string | null } | null;
  testSentAt: string | null; sentAt: string | null; createdAt: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Every https link in a text, in order, once each (the ones the campaign tracks). */
export function linksOf(text: string): string[] {
  const found = text.match(/https:\/\/[^\s<>"')\]]+/g) ?? [];
  const unique = [...new Set(found.map((l) => l.replace(/[.,;:!?]+$/, '')))];
  if (unique.length > MAX_LINKS) throw new StewardError('validation_failed', `At most ${MAX_LINKS} links in one campaign`, { issues: [{ path: 'body', message: 'too many links' }] });
  return unique;
}

function view(row: CampaignRow, variants: VariantRow[]): CampaignView {
  return {
    id: row.id, name: row.name, status: row.status, audience: row.audience, purpose: row.purpose, subject: row.subject, body: row.body, fromName: row.from_name, replyTo: row.reply_to,
    links: row.links, previewHash: row.preview_hash, totalRecipients: row.total_recipients, sendAt: iso(row.send_at),
    abTest: row.ab_variable ? {
      variable: row.ab_variable, testPercent: row.ab_test_percent!, waitHours: row.ab_wait_seconds! / 3600,
      variants: variants.map((v) => ({ position: v.position, subject: v.subject, fromName: v.from_name, body: v.body })), winner: row.winner_variant, winnerBy: row.winner_by,
    } : null,
    testSentAt: iso(row.test_sent_at), sentAt: iso(row.sent_at), createdAt: row.created_at.toISOString(),
  };
}

export async function requireCampaign(db: Queryable, orgId: string, id: string, lock = false): Promise<CampaignRow> {
  const row = await queryOne<CampaignRow>(db, `SELECT * FROM grow_campaigns WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, id]);
  if (!row) throw notFound('Campaign', id, 'grow_list_campaigns lists the campaigns.');
  return row;
}

async function variantsOf(db: Queryable, orgId: string, id: string): Promise<VariantRow[]> {
  return queryRows<VariantRow>(db, 'SELECT position, subject, from_name, body, links FROM grow_campaign_variants WHERE org_id = $1 AND campaign_id = $2 ORDER BY position', [orgId, id]);
}

export async function campaignView(db: Queryable, orgId: string, id: string): Promise<CampaignView> {
  return view(await requireCampaign(db, orgId, id), await variantsOf(db, orgId, id));
}

export async function listCampaigns(db: Queryable, orgId: string, status: CampaignStatus | undefined, limit: number): Promise<CampaignView[]> {
  const rows = await queryRows<CampaignRow>(db, 'SELECT * FROM grow_campaigns WHERE org_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, id DESC LIMIT $3', [orgId, status ?? null, limit]);
  return Promise.all(rows.map(async (row) => view(row, await variantsOf(db, orgId, row.id))));
}

export interface CampaignWrite {
  name?: string; audience?: Audience; purpose?: 'marketing' | 'charitable_purpose'; subject?: string; body?: string; fromName?: string | null; replyTo?: string | null;
}

export async function createCampaign(db: Queryable, orgId: string, input: Required<Pick<CampaignWrite, 'name' | 'audience' | 'subject' | 'body'>> & CampaignWrite): Promise<CampaignView> {
  const id = randomUUID();
  await db.query(`INSERT INTO grow_campaigns (id, org_id, name, audience, purpose, subject, body, from_name, reply_to, links) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
    id, orgId, input.name, JSON.stringify(input.audience), input.purpose ?? 'marketing', input.subject, input.body, input.fromName ?? null, input.replyTo ?? null, linksOf(input.body),
  ]);
  return campaignView(db, orgId, id);
}

function editable(row: CampaignRow): void {
  if (row.status !== 'draft' && row.status !== 'previewed') {
    throw new StewardError('conflict', `Campaign ${row.id} is ${row.status}; only a draft or previewed campaign changes`, { details: { reason: `campaign_${row.status}` } });
  }
}

/** Any change sends the campaign back to draft: its preview (and any approval bound to it) no longer holds. */
export async function updateCampaign(db: Queryable, orgId: string, id: string, input: CampaignWrite): Promise<CampaignView> {
  const row = await requireCampaign(db, orgId, id, true);
  editable(row);
  const body = input.body ?? row.body;
  await db.query(`UPDATE grow_campaigns SET name = $3, audience = $4, purpose = $5, subject = $6, body = $7, from_name = $8, reply_to = $9, links = $10,
      status = 'draft', preview_hash = NULL, preview = NULL, updated_at = now() WHERE org_id = $1 AND id = $2`, [
    orgId, id, input.name ?? row.name, JSON.stringify(input.audience ?? row.audience), input.purpose ?? row.purpose, input.subject ?? row.subject, body,
    input.fromName !== undefined ? input.fromName : row.from_name, input.replyTo !== undefined ? input.replyTo : row.reply_to, linksOf(body),
  ]);
  await db.query("DELETE FROM grow_campaign_recipients WHERE org_id = $1 AND campaign_id = $2", [orgId, id]);
  return campaignView(db, orgId, id);
}

export async function setAbVariants(
  db: Queryable, orgId: string, id: string, input: { variable: (typeof AB_VARIABLES)[number]; values: string[]; testPercent: number; waitHours: number },
): Promise<CampaignView> {
  const row = await requireCampaign(db, orgId, id, true);
  editable(row);
  const seconds = Math.max(1, Math.round(input.waitHours * 3600));
  await db.query('DELETE FROM grow_campaign_variants WHERE org_id = $1 AND campaign_id = $2', [orgId, id]);
  const all = [null, ...input.values];
  for (const [position, value] of all.entries()) {
    const subject = input.variable === 'subject' && value !== null ? value : row.subject;
    const fromName = input.variable === 'from_name' && value !== null ? value : row.from_name;
    const body = input.variable === 'content' && value !== null ? value : row.body;
    await db.query('INSERT INTO grow_campaign_variants (org_id, campaign_id, position, subject, from_name, body, links) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [orgId, id, position, subject, fromName, body, linksOf(body)]);
  }
  await db.query(`UPDATE grow_campaigns SET ab_variable = $3, ab_test_percent = $4, ab_wait_seconds = $5, status = 'draft', preview_hash = NULL, preview = NULL, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, id, input.variable, input.testPercent, seconds]);
  return campaignView(db, orgId, id);
}

/** What the approval binds to: the sorted audience and every word and setting that will be sent. */
export function campaignHash(row: CampaignRow, variants: VariantRow[], contactIds: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify({
    contactIds, purpose: row.purpose, subject: row.subject, body: row.body, fromName: row.from_name, replyTo: row.reply_to,
    ab: row.ab_variable ? { variable: row.ab_variable, percent: row.ab_test_percent, wait: row.ab_wait_seconds, variants } : null,
  })).digest('hex');
}

/**
 * Resolves the audience now (channels' own resolution of a segment, tag or group), checks each
 * person as their email would be checked (consent for the purpose, suppression, crisis hold, an
 * address), records who would get it and who is excluded by reason, and saves the hash.
 */
export async function previewCampaign(
  db: Queryable, orgId: string, id: string, now: Date, progress?: ProgressReport,
): Promise<{ campaign: CampaignView; preview: CampaignPreview; previewHash: string }> {
  const row = await requireCampaign(db, orgId, id, true);
  editable(row);
  const variants = await variantsOf(db, orgId, id);
  const contactIds = await resolveAudience(db, orgId, row.audience);
  const included: string[] = [];
  const excluded: string[] = [];
  const reasons: string[] = [];
  for (const contactId of contactIds) {
    const check = await checkRecipient(db, orgId, { contactId, channel: 'email', purpose: row.purpose, now });
    if (check.ok) included.push(contactId);
    else {
      excluded.push(contactId);
      reasons.push(check.reason);
    }
    const done = included.length + excluded.length;
    progress?.(done, contactIds.length, `Checked ${done} of ${contactIds.length} recipients`);
  }
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const preview: CampaignPreview = {
    recipients: included.length,
    excluded: [...counts.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    sample: included.length > 0 ? { subject: row.subject, body: row.body } : null,
  };
  const previewHash = campaignHash(row, variants, contactIds);
  await db.query('DELETE FROM grow_campaign_recipients WHERE org_id = $1 AND campaign_id = $2', [orgId, id]);
  await db.query(`INSERT INTO grow_campaign_recipients (org_id, campaign_id, contact_id, status)
    SELECT $1::uuid, $2::uuid, c, 'pending' FROM unnest($3::uuid[]) AS c`, [orgId, id, included]);
  await db.query(`INSERT INTO grow_campaign_recipients (org_id, campaign_id, contact_id, status, skip_reason)
    SELECT $1::uuid, $2::uuid, e.c, 'skipped', e.r FROM unnest($3::uuid[], $4::text[]) AS e(c, r)`, [orgId, id, excluded, reasons]);
  await db.query(`UPDATE grow_campaigns SET status = 'previewed', preview_hash = $3, preview = $4, total_recipients = $5, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, id, previewHash, JSON.stringify(preview), included.length]);
  return { campaign: await campaignView(db, orgId, id), preview, previewHash };
}

function stale(id: string, why: string): StewardError {
  return new StewardError('conflict', `The preview is out of date: ${why}`, { details: { reason: 'stale_preview', campaignId: id }, hint: 'Preview it again (grow_preview_campaign) and schedule with the new previewHash.' });
}

/** Whether scheduling waits for a person: a large audience (over the threshold) or one no earlier campaign was sent to. Refuses at once what could never be carried out. */
export async function scheduleNeedsApproval(db: Queryable, orgId: string, id: string, previewHash: string): Promise<boolean> {
  const row = await queryOne<CampaignRow>(db, 'SELECT * FROM grow_campaigns WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!row) return false;
  if (row.status !== 'previewed') throw new StewardError('conflict', `Campaign ${id} is ${row.status}; preview it first`, { details: { reason: `campaign_${row.status}` } });
  if (row.preview_hash !== previewHash) throw stale(id, 'the previewHash is not the latest preview\'s');
  if (row.total_recipients > APPROVAL_RECIPIENT_THRESHOLD) return true;
  const earlier = await queryOne(db, "SELECT 1 FROM grow_campaigns WHERE org_id = $1 AND id <> $2 AND audience = $3 AND status IN ('sent', 'sending', 'testing')", [orgId, id, JSON.stringify(row.audience)]);
  return !earlier;
}

/**
 * Puts each recipient the preview queued in its sending phase (an A/B test's group and variant, or
 * all at once), in one statement; answers how many.
 */
async function fixSendingPhases(db: Queryable, orgId: string, id: string, row: CampaignRow, variants: VariantRow[]): Promise<number> {
  if (!row.ab_variable || variants.length < 2) {
    const all = await db.query("UPDATE grow_campaign_recipients SET phase = 'all', variant = 0 WHERE org_id = $1 AND campaign_id = $2 AND status = 'pending'", [orgId, id]);
    return all.rowCount ?? 0;
  }
  // Random and equal-sized: recipients in an order fixed by a hash of the campaign and the contact, the test group a multiple of the variant count.
  const pending = await queryOne<{ n: number }>(db, "SELECT count(*)::int AS n FROM grow_campaign_recipients WHERE org_id = $1 AND campaign_id = $2 AND status = 'pending'", [orgId, id]);
  const k = variants.length;
  const per = Math.max(1, Math.floor(Math.floor(((pending?.n ?? 0) * row.ab_test_percent!) / 100) / k));
  const phased = await db.query(`WITH ordered AS (
      SELECT contact_id, row_number() OVER (ORDER BY md5($2::text || contact_id::text)) - 1 AS n FROM grow_campaign_recipients
      WHERE org_id = $1 AND campaign_id = $2 AND status = 'pending')
    UPDATE grow_campaign_recipients r SET phase = CASE WHEN o.n < $3::int * $4::int THEN 'test' ELSE 'rest' END, variant = CASE WHEN o.n < $3::int * $4::int THEN (o.n % $4::int)::int ELSE NULL END
    FROM ordered o WHERE r.org_id = $1 AND r.campaign_id = $2 AND r.contact_id = o.contact_id`, [orgId, id, per, k]);
  return phased.rowCount ?? 0;
}

/**
 * Schedules a previewed campaign with its preview's hash; the audience and content are checked again, so an approval never covers anything other than what was previewed.
 * Reports the recipients it scheduled once, as a broadcast's scheduling does: they are put in their phase in one statement.
 */
export async function scheduleCampaign(
  db: Queryable, orgId: string, id: string, previewHash: string, sendAt: Date | null, progress?: ProgressReport,
): Promise<CampaignView> {
  const row = await requireCampaign(db, orgId, id, true);
  if (row.status !== 'previewed') throw new StewardError('conflict', `Campaign ${id} is ${row.status}; preview it first`, { details: { reason: `campaign_${row.status}` } });
  if (row.preview_hash !== previewHash) throw stale(id, 'the previewHash is not the latest preview\'s');
  const variants = await variantsOf(db, orgId, id);
  if (campaignHash(row, variants, await resolveAudience(db, orgId, row.audience)) !== row.preview_hash) throw stale(id, 'the audience changed since it was previewed');
  const scheduled = await fixSendingPhases(db, orgId, id, row, variants);
  progress?.(scheduled, scheduled, `Scheduled ${scheduled} of ${scheduled} recipients`);
  await db.query("UPDATE grow_campaigns SET status = 'scheduled', send_at = $3, updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, id, sendAt]);
  return campaignView(db, orgId, id);
}

export async function pauseCampaign(db: Queryable, orgId: string, id: string, resume: boolean): Promise<{ campaign: CampaignView; changed: boolean }> {
  const row = await requireCampaign(db, orgId, id, true);
  if (resume) {
    if (row.status !== 'paused') return { campaign: view(row, await variantsOf(db, orgId, id)), changed: false };
    const back = row.test_sent_at ? (row.winner_variant !== null ? 'sending' : 'testing') : 'scheduled';
    await db.query('UPDATE grow_campaigns SET status = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, id, back]);
    return { campaign: await campaignView(db, orgId, id), changed: true };
  }
  if (row.status === 'paused') return { campaign: view(row, await variantsOf(db, orgId, id)), changed: false };
  if (!['scheduled', 'testing', 'sending'].includes(row.status)) throw new StewardError('conflict', `Campaign ${id} is ${row.status}; only a scheduled or sending campaign pauses`, { details: { reason: `campaign_${row.status}` } });
  await db.query("UPDATE grow_campaigns SET status = 'paused', updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, id]);
  return { campaign: await campaignView(db, orgId, id), changed: true };
}

/**
 * Cancels what has not gone: recipients not yet queued, and those whose email is queued but not yet
 * begun (withdrawn from channels' outbox, under the lock an attempt would take). An email whose
 * sending has begun, or that went before a crash let the row be marked, is left for the campaign's
 * workflow to finish and mark handed, so the report never calls a sent email cancelled.
 */
export async function cancelCampaign(db: Queryable, orgId: string, id: string): Promise<{ campaign: CampaignView; cancelledRecipients: number }> {
  const row = await requireCampaign(db, orgId, id, true);
  if (row.status === 'cancelled') return { campaign: view(row, await variantsOf(db, orgId, id)), cancelledRecipients: 0 };
  if (row.status === 'sent') throw new StewardError('conflict', `Campaign ${id} is sent already`, { details: { reason: 'campaign_sent' } });
  const cancelledRecipients = await cancelUnsent(db, orgId, id);
  await db.query("UPDATE grow_campaigns SET status = 'cancelled', updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, id]);
  return { campaign: await campaignView(db, orgId, id), cancelledRecipients };
}

/**
 * Cancels the pending recipients of a cancelled (or cancelling) campaign that nothing is sending:
 * those not yet queued, and those whose queued email channels withdraws (still queued, or queued
 * again after the provider did not take it). Run by the cancel and again by each batch after it, for
 * an email that was being sent at the cancel and came back not taken. Returns how many it cancelled.
 */
async function cancelUnsent(db: Queryable, orgId: string, id: string): Promise<number> {
  const queued = await queryRows<{ message_id: string }>(db,
    "SELECT message_id FROM grow_campaign_recipients WHERE org_id = $1 AND campaign_id = $2 AND status = 'pending' AND message_id IS NOT NULL", [orgId, id]);
  const withdrawn = await withdrawQueuedMessages(db, orgId, queued.map((q) => q.message_id), { code: 'campaign_cancelled', message: 'The campaign was cancelled before this email went' });
  const result = await db.query(`UPDATE grow_campaign_recipients SET status = 'cancelled'
    WHERE org_id = $1 AND campaign_id = $2 AND status = 'pending' AND (message_id IS NULL OR message_id = ANY($3::uuid[]))`, [orgId, id, withdrawn]);
  return result.rowCount ?? 0;
}

/** A person picks the A/B winner (before the timer does); afterwards, or for a campaign without a test, it is refused. */
export async function pickWinnerByPerson(db: Queryable, orgId: string, id: string, variant: number): Promise<CampaignView> {
  const row = await requireCampaign(db, orgId, id, true);
  if (!row.ab_variable) throw new StewardError('conflict', 'This campaign has no A/B test', { details: { reason: 'no_ab_test' } });
  if (row.winner_variant !== null) throw new StewardError('conflict', `Variant ${row.winner_variant} already won (${row.winner_by})`, { details: { reason: 'winner_chosen' } });
  if (!['scheduled', 'testing', 'paused'].includes(row.status)) throw new StewardError('conflict', `Campaign ${id} is ${row.status}`, { details: { reason: `campaign_${row.status}` } });
  const variants = await variantsOf(db, orgId, id);
  if (!variants.some((v) => v.position === variant)) throw new StewardError('validation_failed', `There is no variant ${variant}`, { issues: [{ path: 'variant', message: `0 to ${variants.length - 1}` }] });
  await db.query("UPDATE grow_campaigns SET winner_variant = $3, winner_by = 'person', updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, id, variant]);
  return campaignView(db, orgId, id);
}

// ---------------------------------------------------------------- tracking

function trackingKey(): Buffer {
  return createHmac('sha256', resolvePayloadKey()).update('steward grow campaign tracking').digest();
}
const mac = (payload: string) => createHmac('sha256', trackingKey()).update(payload).digest('base64url').slice(0, 22);

export function trackingToken(orgId: string, campaignId: string, contactId: string, link: number | null): string {
  const payload = `${orgId}.${campaignId}.${contactId}${link === null ? '' : `.${link}`}`;
  return `${payload}.${mac(payload)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function readTrackingToken(token: string): { orgId: string; campaignId: string; contactId: string; link: number | null } | null {
  const parts = token.split('.');
  if (parts.length !== 4 && parts.length !== 5) return null;
  const [orgId, campaignId, contactId] = parts as [string, string, string];
  if (![orgId, campaignId, contactId].every((p) => UUID.test(p))) return null;
  const link = parts.length === 5 ? Number(parts[3]) : null;
  if (link !== null && !(Number.isInteger(link) && link >= 0 && link < MAX_LINKS)) return null;
  const expected = Buffer.from(mac(parts.slice(0, -1).join('.')));
  const given = Buffer.from(parts[parts.length - 1]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return { orgId, campaignId, contactId, link };
}

export const clickUrl = (orgId: string, campaignId: string, contactId: string, link: number) => `${publicBaseUrl()}/grow/c/${trackingToken(orgId, campaignId, contactId, link)}`;
export const openUrl = (orgId: string, campaignId: string, contactId: string) => `${publicBaseUrl()}/grow/o/${trackingToken(orgId, campaignId, contactId, null)}.gif`;

/** Mail privacy proxies and scanners that fetch every image: their opens are counted apart. */
const MACHINE_AGENTS = /GoogleImageProxy|YahooMailProxy|Outlook-iOS|Barracuda|Mimecast|ProofPoint|bot|crawler|preview/i;

/** Records an open or a click for a recipient who was sent the campaign; for a click answers the campaign's own link (never one from the request). */
export async function recordTracking(pool: Pool, token: string, userAgent: string): Promise<{ kind: 'open' } | { kind: 'click'; url: string } | null> {
  const named = readTrackingToken(token.replace(/\.gif$/, ''));
  if (!named) return null;
  return withTenantTransaction(pool, named.orgId, async (db) => {
    // A recipient whose email is being handed over counts as sent: the mail server may deliver it, and
    // its reader click, before the hand-over's own transaction marks the row handed (sendCampaignBatch).
    const recipient = await queryOne<{ variant: number | null; handed_at: Date | null; winner_variant: number | null }>(db, `SELECT r.variant, r.handed_at, c.winner_variant FROM grow_campaign_recipients r
      JOIN grow_campaigns c ON c.id = r.campaign_id WHERE r.org_id = $1 AND r.campaign_id = $2 AND r.contact_id = $3
        AND (r.status = 'handed' OR (r.status = 'pending' AND r.message_id IS NOT NULL))`, [named.orgId, named.campaignId, named.contactId]);
    if (!recipient) return null;
    const variant = recipient.variant ?? recipient.winner_variant ?? 0;
    if (named.link === null) {
      // Fetched during the hand-over or within seconds of it, or by a known proxy: a machine, not a person reading.
      const machine = MACHINE_AGENTS.test(userAgent) || recipient.handed_at === null || Date.now() - recipient.handed_at.getTime() < 2000;
      await db.query("INSERT INTO grow_campaign_events (id, org_id, campaign_id, contact_id, variant, kind, machine) VALUES ($1, $2, $3, $4, $5, 'open', $6)",
        [randomUUID(), named.orgId, named.campaignId, named.contactId, variant, machine]);
      return { kind: 'open' as const };
    }
    const links = await queryOne<{ links: string[] }>(db, 'SELECT links FROM grow_campaign_variants WHERE org_id = $1 AND campaign_id = $2 AND position = $3', [named.orgId, named.campaignId, variant])
      ?? await queryOne<{ links: string[] }>(db, 'SELECT links FROM grow_campaigns WHERE org_id = $1 AND id = $2', [named.orgId, named.campaignId]);
    const url = links?.links[named.link];
    if (!url) return null;
    await db.query("INSERT INTO grow_campaign_events (id, org_id, campaign_id, contact_id, variant, kind, link_index) VALUES ($1, $2, $3, $4, $5, 'click', $6)",
      [randomUUID(), named.orgId, named.campaignId, named.contactId, variant, named.link]);
    return { kind: 'click' as const, url };
  });
}

// ---------------------------------------------------------------- sending

/** The email for one recipient: links rewritten through the signed redirect, the open pixel in the HTML part. */
export function renderEmail(orgId: string, campaignId: string, contactId: string, variant: { subject: string; body: string; links: string[] }): { subject: string; body: string; html: string } {
  const tracked = (text: string, html: boolean) => {
    let out = html ? escapeHtml(text) : text;
    variant.links.forEach((link, index) => {
      const target = clickUrl(orgId, campaignId, contactId, index);
      const shown = html ? escapeHtml(link) : link;
      out = out.split(shown).join(html ? `<a href="${escapeHtml(target)}">${shown}</a>` : target);
    });
    return out;
  };
  const paragraphs = variant.body.split(/\n\s*\n/).map((p) => `<p>${tracked(p, true).replace(/\n/g, '<br>')}</p>`).join('');
  return {
    subject: variant.subject, body: tracked(variant.body, false),
    html: `${paragraphs}<img src="${escapeHtml(openUrl(orgId, campaignId, contactId))}" width="1" height="1" alt="">`,
  };
}

export interface CampaignBegin { status: CampaignStatus; sendAt: string | null; abTest: boolean; waitSeconds: number; testSentAt: string | null; winner: number | null }

export async function beginCampaign(pool: Pool, orgId: string, id: string): Promise<CampaignBegin> {
  return withTenantTransaction(pool, orgId, async (db) => {
    const row = await queryOne<CampaignRow>(db, 'SELECT * FROM grow_campaigns WHERE org_id = $1 AND id = $2', [orgId, id]);
    if (!row) return { status: 'cancelled', sendAt: null, abTest: false, waitSeconds: 0, testSentAt: null, winner: null };
    return { status: row.status, sendAt: iso(row.send_at), abTest: row.ab_variable !== null, waitSeconds: row.ab_wait_seconds ?? 0, testSentAt: iso(row.test_sent_at), winner: row.winner_variant };
  });
}

export type Dispatch = (messageId: string) => Promise<DispatchResult>;
/** `waiting`: nothing more can go before `until` (quiet hours, another attempt holding a message, or a retry's wait). */
export interface BatchStep { state: 'running' | 'done' | 'paused' | 'cancelled' | 'waiting'; handed: number; skipped: number; until?: string }

/**
 * Messages of one batch handed to the outbox at once: each hand-over waits on the provider (an SMTP
 * round trip), so a few in flight keep the sender busy without holding more than a few connections.
 * The outbox leases each message, so two hand-overs of one message still send it once.
 */
const HAND_OVERS_AT_ONCE = 8;

/** Runs `work` over `items` with at most `limit` running at once; the first failure is thrown once all have settled. */
async function eachWithConcurrency<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => { failures.push(error); });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failures.length > 0) throw failures[0];
}

interface QueuedMessage { contactId: string; messageId: string; attempts: number }

/**
 * Recipients whose email is queued but not yet marked: from a batch that died (or was cancelled)
 * mid-hand-over, or one the provider could not take yet or quiet hours deferred (`not_before`).
 * Those due now, and when the next of the rest is due.
 */
async function queuedLeftOvers(db: Queryable, orgId: string, id: string, phase: string | null, limit: number): Promise<{ due: QueuedMessage[]; nextDue: Date | null }> {
  // Due by this process's clock, which set not_before, so a database clock a little behind cannot make a wait that never ends.
  const due = await queryRows<{ contact_id: string; message_id: string; attempts: number }>(db, `SELECT contact_id, message_id, attempts FROM grow_campaign_recipients
    WHERE org_id = $1 AND campaign_id = $2 AND ($3::text IS NULL OR phase = $3) AND status = 'pending' AND message_id IS NOT NULL AND (not_before IS NULL OR not_before <= $5)
    ORDER BY contact_id LIMIT $4`, [orgId, id, phase, limit, new Date()]);
  const later = due.length > 0 ? null : await queryOne<{ next: Date | null }>(db, `SELECT min(not_before) AS next FROM grow_campaign_recipients
    WHERE org_id = $1 AND campaign_id = $2 AND ($3::text IS NULL OR phase = $3) AND status = 'pending' AND message_id IS NOT NULL`, [orgId, id, phase]);
  return { due: due.map((r) => ({ contactId: r.contact_id, messageId: r.message_id, attempts: r.attempts })), nextDue: later?.next ?? null };
}

type Queued =
  | { state: 'paused' }
  | { state: 'running' | 'cancelled'; messages: QueuedMessage[]; skipped: number; more: number; until: Date | null };

/**
 * What an earlier batch left queued goes first, and alone: while the provider cannot take it yet,
 * nothing more is queued behind it. Otherwise takes the next recipients under row locks and queues
 * their emails, stopping at quiet hours with nothing more queued until they end.
 */
async function queueBatch(db: Queryable, orgId: string, id: string, phase: 'all' | 'test' | 'rest', batchSize: number): Promise<Queued> {
  const row = await queryOne<CampaignRow>(db, 'SELECT * FROM grow_campaigns WHERE org_id = $1 AND id = $2 FOR SHARE', [orgId, id]);
  if (!row) return { state: 'cancelled', messages: [], skipped: 0, more: 0, until: null };
  // Cancelled: what nothing is sending is withdrawn again (an email being sent at the cancel may have come back not taken);
  // only emails being sent are left, and they are finished and marked.
  if (row.status === 'cancelled') {
    await cancelUnsent(db, orgId, id);
    const left = await queuedLeftOvers(db, orgId, id, null, batchSize);
    return { state: 'cancelled', messages: left.due, skipped: 0, more: 0, until: left.nextDue };
  }
  if (row.status === 'paused') return { state: 'paused' };
  const started = row.status === 'scheduled' ? phase === 'test' ? 'testing' : 'sending' : null;
  if (started) await db.query('UPDATE grow_campaigns SET status = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, id, started]);
  const queued = await queueRecipients(db, orgId, row, phase, batchSize);
  // The start's audit event comes last: it holds the organisation's audit chain head until commit, and
  // each recipient's message waits for its contact's row, which a person's edit may hold while it waits,
  // at its own end, for that chain head.
  if (started) await recordCampaignChange(db, orgId, id, 'start', { status: started }, { status: 'scheduled' });
  return queued;
}

/** A running campaign's batch: what an earlier batch left queued, else the next recipients' emails. */
async function queueRecipients(db: Queryable, orgId: string, row: CampaignRow, phase: 'all' | 'test' | 'rest', batchSize: number): Promise<Queued> {
  const { id } = row;
  const left = await queuedLeftOvers(db, orgId, id, phase, batchSize);
  if (left.due.length > 0 || left.nextDue) return { state: 'running', messages: left.due, skipped: 0, more: 0, until: left.nextDue };
  const variants = await variantsOf(db, orgId, id);
  const base: VariantRow = { position: 0, subject: row.subject, from_name: row.from_name, body: row.body, links: row.links };
  const recipients = await queryRows<{ contact_id: string; variant: number | null }>(db, `SELECT contact_id, variant FROM grow_campaign_recipients
    WHERE org_id = $1 AND campaign_id = $2 AND phase = $3 AND status = 'pending' AND message_id IS NULL ORDER BY contact_id LIMIT $4 FOR UPDATE SKIP LOCKED`, [orgId, id, phase, batchSize]);
  const messages: QueuedMessage[] = [];
  let skipped = 0;
  for (const r of recipients) {
    const now = new Date();
    const check = await checkRecipient(db, orgId, { contactId: r.contact_id, channel: 'email', purpose: row.purpose, now });
    if (!check.ok) {
      await db.query("UPDATE grow_campaign_recipients SET status = 'skipped', skip_reason = $4 WHERE org_id = $1 AND campaign_id = $2 AND contact_id = $3", [orgId, id, r.contact_id, check.reason]);
      skipped += 1;
      continue;
    }
    // Quiet hours are the organisation's, so they hold every recipient after this one too.
    if (check.quietUntil && check.quietUntil > now) return { state: 'running', messages, skipped, more: recipients.length, until: check.quietUntil };
    const position = r.variant ?? row.winner_variant ?? 0;
    const variant = variants.find((v) => v.position === position) ?? base;
    const email = renderEmail(orgId, id, r.contact_id, variant);
    const message = await queueMessage(db, orgId, {
      contactId: r.contact_id, channel: 'email', purpose: row.purpose, subject: email.subject, body: email.body, html: email.html,
      idempotencyKey: `grow-campaign:${id}:${r.contact_id}`, usageTool: SCHEDULE_TOOL,
    });
    await db.query('UPDATE grow_campaign_recipients SET message_id = $4, variant = $5 WHERE org_id = $1 AND campaign_id = $2 AND contact_id = $3', [orgId, id, r.contact_id, message.messageId, position]);
    messages.push({ contactId: r.contact_id, messageId: message.messageId, attempts: 0 });
  }
  return { state: 'running', messages, skipped, more: recipients.length, until: null };
}

const RECIPIENT_STATUS = { sent: 'handed', skipped: 'skipped', failed: 'failed', deferred: 'pending' } as const;
type HandOver = (typeof RECIPIENT_STATUS)[keyof typeof RECIPIENT_STATUS];

/**
 * Marks one hand-over by channels' reading of what the outbox did (the one broadcasts use): handed,
 * skipped or failed with the reason, or still pending until it is due again, its attempt counted.
 * Only a row still pending with this email is marked (a cancel may have withdrawn it first).
 */
async function markHandOver(pool: Pool, orgId: string, id: string, message: QueuedMessage, result: DispatchResult): Promise<{ status: HandOver; notBefore: Date | null }> {
  const outcome = dispatchOutcomeOf(result, message.attempts, new Date());
  const status = RECIPIENT_STATUS[outcome.status];
  await withTenantTransaction(pool, orgId, async (db) => {
    await db.query(`UPDATE grow_campaign_recipients SET status = $4, skip_reason = $5, not_before = $6,
        attempts = attempts + $7, handed_at = CASE WHEN $4 = 'handed' THEN now() END
      WHERE org_id = $1 AND campaign_id = $2 AND contact_id = $3 AND status = 'pending' AND message_id = $8`,
    [orgId, id, message.contactId, status, status === 'pending' ? null : outcome.reason ?? null, outcome.notBefore ?? null, outcome.attempted ? 1 : 0, message.messageId]);
    await settleGivenUp(db, orgId, message.messageId, outcome);
  });
  return { status, notBefore: outcome.notBefore ?? null };
}

/**
 * One batch of a phase (see queueBatch for what it takes): after the commit each queued email is
 * handed to the outbox (leased, counted once) and marked by what the outbox did. The step says when
 * to come back if anything is left waiting (quiet hours, a retry's wait); a cancelled campaign ends
 * only once the emails whose sending had begun are finished.
 */
export async function sendCampaignBatch(pool: Pool, orgId: string, id: string, phase: 'all' | 'test' | 'rest', batchSize: number, dispatch: Dispatch): Promise<BatchStep> {
  const queued = await withTenantTransaction(pool, orgId, (db) => queueBatch(db, orgId, id, phase, batchSize));
  if (queued.state === 'paused') return { state: 'paused', handed: 0, skipped: 0 };
  const marked: Array<{ status: HandOver; notBefore: Date | null }> = [];
  await eachWithConcurrency(queued.messages, HAND_OVERS_AT_ONCE, async (message) => {
    marked.push(await markHandOver(pool, orgId, id, message, await dispatch(message.messageId)));
  });
  const step = { handed: marked.filter((m) => m.status === 'handed').length, skipped: queued.skipped + marked.filter((m) => m.status === 'skipped').length };
  const later = [queued.until, ...marked.map((m) => m.notBefore)].filter((d): d is Date => d !== null);
  if (later.length > 0) return { state: 'waiting', ...step, until: new Date(Math.min(...later.map((d) => d.getTime()))).toISOString() };
  if (queued.state === 'cancelled') return { state: queued.messages.length > 0 ? 'running' : 'cancelled', ...step };
  const done = queued.more === 0 && queued.messages.length === 0;
  return { state: done ? 'done' : 'running', ...step };
}

/** After the test phase's wait: the variant with most unique clicking recipients wins (never opens); a tie keeps the first. A person's pick stands. */
export async function decideWinner(pool: Pool, orgId: string, id: string): Promise<{ winner: number; by: string }> {
  return withTenantTransaction(pool, orgId, async (db) => {
    const row = await requireCampaign(db, orgId, id, true);
    if (row.winner_variant !== null) return { winner: row.winner_variant, by: row.winner_by ?? 'person' };
    const clicks = await queryRows<{ position: number; clickers: number }>(db, `SELECT v.position, count(DISTINCT e.contact_id)::int AS clickers FROM grow_campaign_variants v
      LEFT JOIN grow_campaign_events e ON e.campaign_id = v.campaign_id AND e.variant = v.position AND e.kind = 'click'
        AND e.contact_id IN (SELECT contact_id FROM grow_campaign_recipients WHERE campaign_id = v.campaign_id AND phase = 'test')
      WHERE v.org_id = $1 AND v.campaign_id = $2 GROUP BY v.position ORDER BY v.position`, [orgId, id]);
    const best = Math.max(0, ...clicks.map((c) => c.clickers));
    const leaders = clicks.filter((c) => c.clickers === best);
    const winner = leaders[0]?.position ?? 0;
    const by = leaders.length > 1 ? 'tie_first' : 'clicks';
    await db.query('UPDATE grow_campaigns SET winner_variant = $3, winner_by = $4, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, id, winner, by]);
    await recordCampaignChange(db, orgId, id, 'decide', { winnerVariant: winner, winnerBy: by }, { winnerVariant: null });
    return { winner, by };
  });
}

export async function markPhase(pool: Pool, orgId: string, id: string, what: 'test_sent' | 'sent'): Promise<void> {
  await withTenantTransaction(pool, orgId, async (db) => {
    if (what === 'test_sent') {
      await db.query('UPDATE grow_campaigns SET test_sent_at = COALESCE(test_sent_at, now()), updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, id]);
      return;
    }
    const before = await queryOne<{ status: CampaignStatus }>(db, 'SELECT status FROM grow_campaigns WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
    await db.query(`UPDATE grow_campaigns SET status = CASE WHEN status IN ('sending', 'testing', 'scheduled') THEN 'sent' ELSE status END, sent_at = now(), updated_at = now()
      WHERE org_id = $1 AND id = $2`, [orgId, id]);
    if (before && ['sending', 'testing', 'scheduled'].includes(before.status)) await recordCampaignChange(db, orgId, id, 'finish', { status: 'sent' }, { status: before.status });
  });
}

/** A campaign's move made by its sending workflow: the system is the actor, in the move's transaction. */
async function recordCampaignChange(db: Queryable, orgId: string, id: string, verb: 'start' | 'decide' | 'finish', fields: Record<string, unknown>, previous: Record<string, unknown>): Promise<void> {
  await recordJobChange(db, { orgId, channel: 'job:grow.campaign', module: 'grow', noun: 'campaign', verb, target: { type: 'campaign', id }, fields, previous });
}

// ---------------------------------------------------------------- report

export interface VariantReport {
  variant: number; recipients: number; handed: number; skipped: number; failed: number; openedUnique: number; machineOpens: number; clickedUnique: number;
  clicksPerLink: Array<{ url: string; uniqueClicks: number }>; unsubscribed: number; delivered: number; hardBounced: number; softBounced: number; complained: number;
}

/** Numbers computed from the recipients and events each time (nothing stored twice). Unsubscribed: handed recipients the channel would now refuse for consent or suppression. */
type ReasonCount = { reason: string; count: number };

export async function campaignReport(db: Queryable, orgId: string, id: string): Promise<{ campaign: CampaignView; totals: VariantReport; variants: VariantReport[]; excluded: ReasonCount[]; failures: ReasonCount[] }> {
  const row = await requireCampaign(db, orgId, id);
  const variants = await variantsOf(db, orgId, id);
  const positions = variants.length > 0 ? variants.map((v) => v.position) : [0];
  const linksOfVariant = (p: number) => variants.find((v) => v.position === p)?.links ?? row.links;
  const recipients = await queryRows<{ contact_id: string; variant: number | null; status: string; skip_reason: string | null; message_id: string | null }>(db,
    'SELECT contact_id, variant, status, skip_reason, message_id FROM grow_campaign_recipients WHERE org_id = $1 AND campaign_id = $2', [orgId, id]);
  // Deliveries, bounces and complaints are the mail provider's, kept by channels against each message (never copied here).
  const outcomes = new Map((await emailOutcomesOf(db, orgId, recipients.flatMap((r) => (r.status === 'handed' && r.message_id ? [r.message_id] : []))))
    .map((o) => [o.messageId, o]));
  const outcomeOf = (r: { message_id: string | null }) => (r.message_id ? outcomes.get(r.message_id) : undefined);
  const events = await queryRows<{ contact_id: string; variant: number; kind: string; link_index: number | null; machine: boolean }>(db,
    'SELECT contact_id, variant, kind, link_index, machine FROM grow_campaign_events WHERE org_id = $1 AND campaign_id = $2', [orgId, id]);
  const unsubscribed = new Set<string>();
  for (const r of recipients.filter((x) => x.status === 'handed').slice(0, 2000)) {
    const check = await checkRecipient(db, orgId, { contactId: r.contact_id, channel: 'email', purpose: row.purpose, now: new Date() });
    if (!check.ok && (check.reason === 'no_consent' || check.reason === 'suppressed')) unsubscribed.add(r.contact_id);
  }
  const report = (filter: (variant: number | null) => boolean, links: string[], label: number): VariantReport => {
    const rs = recipients.filter((r) => filter(r.variant));
    const es = events.filter((e) => filter(e.variant));
    const unique = (kind: string, machine?: boolean) => new Set(es.filter((e) => e.kind === kind && (machine === undefined || e.machine === machine)).map((e) => e.contact_id)).size;
    return {
      variant: label, recipients: rs.length, handed: rs.filter((r) => r.status === 'handed').length, skipped: rs.filter((r) => r.status === 'skipped').length,
      failed: rs.filter((r) => r.status === 'failed').length,
      openedUnique: unique('open', false), machineOpens: es.filter((e) => e.kind === 'open' && e.machine).length, clickedUnique: unique('click'),
      clicksPerLink: links.map((url, index) => ({ url, uniqueClicks: new Set(es.filter((e) => e.kind === 'click' && e.link_index === index).map((e) => e.contact_id)).size })),
      unsubscribed: rs.filter((r) => unsubscribed.has(r.contact_id)).length,
      delivered: rs.filter((r) => outcomeOf(r)?.delivered).length,
      hardBounced: rs.filter((r) => outcomeOf(r)?.hardBounce).length,
      softBounced: rs.filter((r) => outcomeOf(r)?.softBounce && !outcomeOf(r)?.hardBounce).length,
      complained: rs.filter((r) => outcomeOf(r)?.complaint).length,
    };
  };
  const byReason = (status: string) => {
    const counts = new Map<string, number>();
    for (const r of recipients.filter((x) => x.status === status)) counts.set(r.skip_reason ?? 'unknown', (counts.get(r.skip_reason ?? 'unknown') ?? 0) + 1);
    return [...counts.entries()].map(([reason, count]) => ({ reason, count }));
  };
  return {
    campaign: view(row, variants),
    totals: report(() => true, row.links, -1),
    variants: row.ab_variable ? positions.map((p) => report((v) => v === p, linksOfVariant(p), p)) : [],
    excluded: byReason('skipped'),
    failures: byReason('failed'),
  };
}
