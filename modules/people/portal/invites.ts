import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { hashSecret, newSecret } from '../../../kernel/oauth/secrets';
import { displayNameOf } from '../contacts';
import { outreachDelivery as deliveryChannel } from '../extension-points';
import { defineOutboxSource, type OutboxDraft } from '../../outbox-source';
import { blankOutboxText, getOrgSettings, hasOutboxMessage } from '../../platform/api';

/**
 * Portal invitations. An invite names one contact and the address it went to; at most one invite per
 * channel address is live (pending) at a time, which a partial unique index holds even under parallel
 * sends. Recipients are checked by the channels module's own check (consent for the purpose,
 * suppression, crisis holds) when invited and again when the message goes. The link's token is minted
 * when the outbox row is made (never in a tool result or workflow history), stored only as its hash,
 * and blanked from the outbox text once delivered. Signing in uses the token once.
 */
export const PORTAL_INVITE_SOURCE_KIND = 'people.portal_invite';
export const PORTAL_INVITE_LIFETIME_DAYS = 14;
export const PORTAL_CHANNELS = ['email', 'sms'] as const;
export const PORTAL_PURPOSES = ['charitable_purpose', 'service'] as const;
export const INVITE_STATUSES = ['pending', 'joined', 'revoked', 'expired'] as const;
export const MAX_INVITES_PER_CALL = 50;
/** A member counts as active when signed in within this many days. */
export const ACTIVE_WINDOW_DAYS = 30;
const TOKEN_PREFIX = 'pin_';
export const PORTAL_TOKEN_SHAPE = /^pin_[A-Za-z0-9_-]{43}$/;

export type PortalChannel = (typeof PORTAL_CHANNELS)[number];
type PortalPurpose = (typeof PORTAL_PURPOSES)[number];

export function portalPublicOrigin(env: NodeJS.ProcessEnv = process.env): string {
  return (env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/+$/, '');
}

export const portalPath = (orgId: string) => `/people/portal/${orgId}`;

interface InviteRow {
  id: string; contact_id: string; channel: PortalChannel; address: string; purpose: PortalPurpose; status: string; sends: number;
  sent_at: Date | null; send_error: { code: string; message: string } | null; expires_at: Date; joined_at: Date | null; revoked_at: Date | null;
  created_at: Date; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null;
}

const SELECT_INVITE = `SELECT i.id, i.contact_id, i.channel, i.address, i.purpose,
  CASE WHEN i.status = 'pending' AND i.expires_at <= now() THEN 'expired' ELSE i.status END AS status,
  i.sends, i.sent_at, i.send_error, i.expires_at, i.joined_at, i.revoked_at, i.created_at, c.first_name, c.last_name, c.preferred_name, c.email
  FROM portal_invites i JOIN contacts c ON c.id = i.contact_id`;

/** The address is the person's own: shown to staff who invited them, masked nowhere else since only staff read it. */
function inviteView(row: InviteRow) {
  return {
    inviteId: row.id, contactId: row.contact_id, contactName: displayNameOf(row), channel: row.channel, address: row.address, purpose: row.purpose,
    status: row.status as (typeof INVITE_STATUSES)[number], sends: row.sends, sentAt: row.sent_at?.toISOString() ?? null,
    sendError: row.send_error ?? null, expiresAt: row.expires_at.toISOString(), joinedAt: row.joined_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null, createdAt: row.created_at.toISOString(),
  };
}

export type PortalInviteView = ReturnType<typeof inviteView>;

export async function listInvites(db: Queryable, orgId: string, filters: { status?: string; contactId?: string; limit: number }): Promise<PortalInviteView[]> {
  const rows = await queryRows<InviteRow>(db, `${SELECT_INVITE}
    WHERE i.org_id = $1 AND ($2::text IS NULL OR (CASE WHEN i.status = 'pending' AND i.expires_at <= now() THEN 'expired' ELSE i.status END) = $2)
      AND ($3::uuid IS NULL OR i.contact_id = $3)
    ORDER BY i.created_at DESC, i.id DESC LIMIT $4`, [orgId, filters.status ?? null, filters.contactId ?? null, filters.limit]);
  return rows.map(inviteView);
}

export async function requireInvite(db: Queryable, orgId: string, inviteId: string): Promise<PortalInviteView> {
  const row = await queryOne<InviteRow>(db, `${SELECT_INVITE} WHERE i.org_id = $1 AND i.id = $2`, [orgId, inviteId]);
  if (!row) throw new StewardError('not_found', `Portal invite ${inviteId} was not found`, { hint: 'people_list_portal_invites lists invites.' });
  return inviteView(row);
}

export type InviteOutcome =
  | { contactId: string; outcome: 'invited'; invite: PortalInviteView }
  | { contactId: string; outcome: 'already_invited'; invite: PortalInviteView }
  | { contactId: string; outcome: 'skipped'; reason: string; message: string };

/**
 * Invites each contact on the channel. A contact the channels check refuses (no address, no consent
 * for the purpose, suppressed, crisis hold) is skipped with that reason and gets nothing; an address
 * with a live invite already keeps that one (a resend is people_manage_portal_invite).
 */
export async function sendInvites(
  db: Queryable, orgId: string, actor: string | null,
  input: { contactIds: readonly string[]; channel: PortalChannel; purpose: PortalPurpose },
): Promise<InviteOutcome[]> {
  const results: InviteOutcome[] = [];
  // Pending invites past their expiry stop being live, so the address can be invited again.
  await db.query("UPDATE portal_invites SET status = 'expired', updated_at = now() WHERE org_id = $1 AND status = 'pending' AND expires_at <= now()", [orgId]);
  for (const contactId of [...new Set(input.contactIds)]) {
    const check = await deliveryChannel().checkRecipient(db, orgId, { contactId, channel: input.channel, purpose: input.purpose, now: new Date() });
    if (!check.ok) {
      results.push({ contactId, outcome: 'skipped', reason: check.reason === 'contact_missing' ? 'not_found' : check.reason, message: check.hint ? `${check.message}. ${check.hint}` : check.message });
      continue;
    }
    const id = randomUUID();
    // The partial unique index decides between parallel calls: the loser's insert waits for the winner and then does nothing.
    const inserted = await queryOne<{ id: string }>(db, `
      INSERT INTO portal_invites (id, org_id, contact_id, channel, address, purpose, send_id, expires_at, created_by)
      VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(days => $8), $9)
      ON CONFLICT (org_id, channel, lower(address)) WHERE status = 'pending' DO NOTHING RETURNING id`,
    [id, orgId, contactId, input.channel, check.address, input.purpose, randomUUID(), PORTAL_INVITE_LIFETIME_DAYS, actor]);
    if (inserted) {
      results.push({ contactId, outcome: 'invited', invite: await requireInvite(db, orgId, id) });
      continue;
    }
    const live = await queryOne<{ id: string }>(db, "SELECT id FROM portal_invites WHERE org_id = $1 AND channel = $2 AND lower(address) = lower($3) AND status = 'pending'",
      [orgId, input.channel, check.address]);
    if (!live) throw new StewardError('conflict', 'The invite could not be recorded; try again');
    results.push({ contactId, outcome: 'already_invited', invite: await requireInvite(db, orgId, live.id) });
  }
  return results;
}

/**
 * Resend: a fresh link (a new send; the old link stops working) to a pending or expired invite, or a
 * new sign-in link to a member who joined. Revoke: the invite stops working and a member's sessions end.
 */
export async function manageInvite(db: Queryable, orgId: string, inviteId: string, action: 'resend' | 'revoke'): Promise<{ invite: PortalInviteView; changed: boolean }> {
  const current = await queryOne<{ status: string; expired: boolean; channel: string; address: string }>(db,
    'SELECT status, (status = \'pending\' AND expires_at <= now()) AS expired, channel, address FROM portal_invites WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, inviteId]);
  if (!current) throw new StewardError('not_found', `Portal invite ${inviteId} was not found`, { hint: 'people_list_portal_invites lists invites.' });
  if (action === 'revoke') {
    if (current.status === 'revoked') return { invite: await requireInvite(db, orgId, inviteId), changed: false };
    await db.query("UPDATE portal_invites SET status = 'revoked', revoked_at = now(), token_hash = NULL, updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, inviteId]);
    await db.query('UPDATE portal_sessions SET ended_at = now() WHERE org_id = $1 AND invite_id = $2 AND ended_at IS NULL', [orgId, inviteId]);
    return { invite: await requireInvite(db, orgId, inviteId), changed: true };
  }
  if (current.status === 'revoked') {
    throw new StewardError('conflict', 'A revoked invite cannot be resent', { hint: 'Send a new invite with people_send_portal_invites.' });
  }
  if (current.status === 'expired' || current.expired) {
    // Live again only if no other invite to the address is live now.
    const other = await queryOne(db, "SELECT 1 FROM portal_invites WHERE org_id = $1 AND channel = $2 AND lower(address) = lower($3) AND status = 'pending' AND id <> $4 AND expires_at > now()",
      [orgId, current.channel, current.address, inviteId]);
    if (other) throw new StewardError('conflict', 'Another invite to this address is live', { hint: 'people_list_portal_invites shows it; resend that one.' });
    await db.query("UPDATE portal_invites SET status = 'expired' WHERE org_id = $1 AND channel = $2 AND lower(address) = lower($3) AND status = 'pending' AND id <> $4",
      [orgId, current.channel, current.address, inviteId]);
  }
  await db.query(`UPDATE portal_invites SET status = CASE WHEN status = 'joined' THEN 'joined' ELSE 'pending' END, send_id = $3, sends = sends + 1,
      token_hash = NULL, send_error = NULL, expires_at = now() + make_interval(days => $4), updated_at = now() WHERE org_id = $1 AND id = $2`,
  [orgId, inviteId, randomUUID(), PORTAL_INVITE_LIFETIME_DAYS]);
  return { invite: await requireInvite(db, orgId, inviteId), changed: true };
}

/** Invited, joined and active members (distinct contacts), with the rates between them. */
export async function portalAnalytics(db: Queryable, orgId: string) {
  const row = await queryOne<{ invited: number; pending: number; joined: number; active: number; revoked: number; expired: number }>(db, `
    SELECT count(DISTINCT i.contact_id)::int AS invited,
      count(DISTINCT i.contact_id) FILTER (WHERE i.status = 'pending' AND i.expires_at > now())::int AS pending,
      count(DISTINCT i.contact_id) FILTER (WHERE i.status = 'joined')::int AS joined,
      (SELECT count(DISTINCT s.contact_id)::int FROM portal_sessions s JOIN portal_invites j ON j.id = s.invite_id AND j.status = 'joined'
        WHERE s.org_id = $1 AND s.last_seen_at > now() - make_interval(days => $2)) AS active,
      count(DISTINCT i.contact_id) FILTER (WHERE i.status = 'revoked')::int AS revoked,
      count(DISTINCT i.contact_id) FILTER (WHERE i.status = 'expired' OR (i.status = 'pending' AND i.expires_at <= now()))::int AS expired
    FROM portal_invites i JOIN contacts c ON c.id = i.contact_id AND c.deleted_at IS NULL WHERE i.org_id = $1`, [orgId, ACTIVE_WINDOW_DAYS]);
  const r = row!;
  const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 1000) / 1000);
  return {
    invited: r.invited, pending: r.pending, joined: r.joined, active: r.active, revoked: r.revoked, expired: r.expired,
    joinRate: rate(r.joined, r.invited), activeRate: rate(r.active, r.joined), activeWindowDays: ACTIVE_WINDOW_DAYS,
  };
}

// ------------------------------------------------------------------ delivery (the outbox source)

interface InviteDraft extends OutboxDraft {
  contactId: string;
  address: string;
  purpose: PortalPurpose;
}

function inviteText(orgName: string, link: string, joined: boolean): string {
  return [
    joined ? `Here is your link to sign in to ${orgName}'s member portal.` : `${orgName} invites you to its member portal, where you can check and correct your details and see your household.`,
    '',
    `Sign in here: ${link}`,
    '',
    `The link works once and expires in ${PORTAL_INVITE_LIFETIME_DAYS} days. If you did not expect this, ignore this message.`,
  ].join('\n');
}

const REMOVED_TEXT = '[portal sign-in link removed once sent]';

export const portalInviteDelivery = defineOutboxSource<InviteDraft>({
  kind: PORTAL_INVITE_SOURCE_KIND,
  keyOf: (sendId) => `portal-invite-${sendId}`,
  usageTool: 'people_send_portal_invites',
  meterFor: (channel) => (channel === 'email' ? 'email_sends' : 'messaging_credits'),

  async lock(db, orgId, sendId) {
    const invite = await queryOne<{ id: string; contact_id: string; channel: PortalChannel; address: string; purpose: PortalPurpose; status: string; delivered_send_id: string | null }>(db,
      `SELECT i.id, i.contact_id, i.channel, i.address, i.purpose, i.status, i.delivered_send_id
       FROM portal_invites i WHERE i.org_id = $1 AND i.send_id = $2 FOR UPDATE`, [orgId, sendId]);
    if (!invite || (invite.status !== 'pending' && invite.status !== 'joined')) return { kind: 'not_ready' };
    if (invite.delivered_send_id === sendId) return { kind: 'delivered' };
    const orgName = (await getOrgSettings(db, orgId)).name;
    const draft: InviteDraft = {
      channel: invite.channel, subject: invite.channel === 'email' ? `Your ${orgName} member portal` : null, body: '',
      contactId: invite.contact_id, address: invite.address, purpose: invite.purpose,
    };
    if (await hasOutboxMessage(db, orgId, { kind: PORTAL_INVITE_SOURCE_KIND, id: sendId })) {
      return { kind: 'ready', draft };
    }
    // The token is made only for the text that creates the outbox row; only its hash is kept.
    const token = newSecret(TOKEN_PREFIX);
    await db.query('UPDATE portal_invites SET token_hash = $3, updated_at = now() WHERE org_id = $1 AND send_id = $2', [orgId, sendId, hashSecret(token)]);
    const link = `${portalPublicOrigin()}${portalPath(orgId)}/join/${token}`;
    return { kind: 'ready', draft: { ...draft, body: inviteText(orgName, link, invite.status === 'joined') } };
  },

  async recipient(db, orgId, draft, channel) {
    const now = new Date();
    const check = await deliveryChannel().checkRecipient(db, orgId, { contactId: draft.contactId, channel, purpose: draft.purpose, now, lock: true });
    if (!check.ok) return { refused: { code: check.reason, message: check.hint ? `${check.message}. ${check.hint}` : check.message } };
    if (check.quietUntil && check.quietUntil.getTime() > now.getTime()) return { deferUntil: check.quietUntil };
    return { to: check.address };
  },

  async delivered(db, orgId, sendId, provider) {
    const invite = await queryOne<{ contact_id: string; channel: PortalChannel; address: string }>(db,
      `UPDATE portal_invites SET delivered_send_id = $2, sent_at = now(), send_error = NULL, updated_at = now() WHERE org_id = $1 AND send_id = $2
       RETURNING contact_id, channel, address`, [orgId, sendId]);
    await blankOutboxText(db, orgId, { kind: PORTAL_INVITE_SOURCE_KIND, id: sendId }, REMOVED_TEXT);
    if (!invite) return;
    // Recorded beside the organisation's other messages, without the link.
    await deliveryChannel().recordSend(db, orgId, {
      contactId: invite.contact_id, channel: invite.channel, subject: invite.channel === 'email' ? 'Member portal invitation' : null, body: REMOVED_TEXT, html: null,
      idempotencyKey: `portal-invite-${sendId}`, recipientAddress: invite.address, providerMessageId: provider?.providerMessageId ?? null, usageTool: 'people_send_portal_invites',
    });
  },

  async undelivered(db, orgId, sendId, problem) {
    await db.query('UPDATE portal_invites SET send_error = $3, updated_at = now() WHERE org_id = $1 AND send_id = $2', [orgId, sendId, JSON.stringify(problem)]);
  },

  async released(db, orgId, sendId) {
    await db.query('UPDATE portal_invites SET send_error = NULL, updated_at = now() WHERE org_id = $1 AND send_id = $2', [orgId, sendId]);
  },
});

/** The invite's current send, for the follow-up that sends it; none once revoked. */
export async function currentPortalSend(db: Queryable, orgId: string, inviteId: string): Promise<string | null> {
  const row = await queryOne<{ send_id: string }>(db, "SELECT send_id FROM portal_invites WHERE org_id = $1 AND id = $2 AND status IN ('pending', 'joined')", [orgId, inviteId]);
  return row?.send_id ?? null;
}
