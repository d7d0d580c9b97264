import { queryOne, type Queryable } from '../../db/pool';
import { defineOutboxSource, type OutboxDraft } from '../outbox-source';
import { hashSecret, newSecret } from '../../kernel/oauth/secrets';
import { INVITE_LIFETIME_DAYS, ROLE_LABELS } from './team';
import type { Role } from '../../core/roles';

/**
 * Invitation emails leave through the shared outbox, one outbox row per send (`send_id`),
 * so each send is counted once and never handed to the mail server twice by a retry.
 * The link's token is made when the outbox row is first created, inside the outbox's
 * transaction: only its hash is stored on the invite, and the message text holding it is
 * blanked from the outbox row once delivered, so the token is never in a tool result,
 * a workflow history or at rest after it has gone.
 */
export const TEAM_INVITE_SOURCE_KIND = 'platform.team_invite';

/**
 * Where the acceptance page lives; the link is built when the email is sent, so the worker reads
 * PUBLIC_URL, falling back to where `npm start` listens when it is not set.
 */
export const INVITE_PAGE_PATH = '/team/invite';

export function invitePublicOrigin(env: NodeJS.ProcessEnv = process.env): string {
  return (env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/+$/, '');
}

interface InviteDraft extends OutboxDraft {
  to: string;
}

interface LockedInvite {
  email: string;
  role: Role;
  status: string;
  delivered_send_id: string | null;
  org_name: string;
}

function inviteText(invite: LockedInvite, link: string): string {
  return [
    `You have been invited to join ${invite.org_name} on Steward as ${ROLE_LABELS[invite.role].label}.`,
    '',
    `Accept the invitation here: ${link}`,
    '',
    `The link works once and expires in ${INVITE_LIFETIME_DAYS} days. If you did not expect this, ignore this email.`,
  ].join('\n');
}

async function hasOutboxRow(db: Queryable, orgId: string, sendId: string): Promise<boolean> {
  return Boolean(await queryOne(db, 'SELECT 1 FROM outbox_messages WHERE org_id = $1 AND source_kind = $2 AND source_id = $3', [orgId, TEAM_INVITE_SOURCE_KIND, sendId]));
}

/** A new token for this send: its hash replaces the last one, and the expiry counts from now. */
async function mintToken(db: Queryable, orgId: string, sendId: string): Promise<string> {
  const token = newSecret('inv_');
  await db.query(`UPDATE team_invites SET token_hash = $3, expires_at = now() + make_interval(days => $4), updated_at = now()
    WHERE org_id = $1 AND send_id = $2`, [orgId, sendId, hashSecret(token), INVITE_LIFETIME_DAYS]);
  return token;
}

async function blankSentText(db: Queryable, orgId: string, sendId: string): Promise<void> {
  await db.query(`UPDATE outbox_messages SET body = '[invitation link removed once sent]' WHERE org_id = $1 AND source_kind = $2 AND source_id = $3`,
    [orgId, TEAM_INVITE_SOURCE_KIND, sendId]);
}

export const teamInviteDelivery = defineOutboxSource<InviteDraft>({
  kind: TEAM_INVITE_SOURCE_KIND,
  keyOf: (sendId) => `team-invite-${sendId}`,
  usageTool: 'platform_invite_team_member',
  meterFor: () => 'email_sends',

  async lock(db, orgId, sendId) {
    const invite = await queryOne<LockedInvite>(db, `SELECT i.email, i.role, i.status, i.delivered_send_id, o.name AS org_name
      FROM team_invites i JOIN organisations o ON o.id = i.org_id WHERE i.org_id = $1 AND i.send_id = $2 FOR UPDATE OF i`, [orgId, sendId]);
    // A send superseded by a resend, a replacement or a cancellation no longer goes.
    if (!invite || invite.status !== 'pending') return { kind: 'not_ready' };
    if (invite.delivered_send_id === sendId) return { kind: 'delivered' };
    const draft = { channel: 'email' as const, to: invite.email, subject: 'You are invited to join the team', body: '' };
    // Once the row exists its stored text is what goes; a token is only minted for the text that creates it.
    if (await hasOutboxRow(db, orgId, sendId)) return { kind: 'ready', draft };
    const token = await mintToken(db, orgId, sendId);
    return { kind: 'ready', draft: { ...draft, body: inviteText(invite, `${invitePublicOrigin()}${INVITE_PAGE_PATH}/${token}`) } };
  },

  async recipient(_db, _orgId, draft, channel) {
    if (channel !== 'email') return { refused: { code: 'validation_failed', message: 'Invitations go by email only' } };
    return { to: draft.to };
  },

  async delivered(db, orgId, sendId) {
    await db.query(`UPDATE team_invites SET delivered_send_id = $2, sent_at = now(), send_error = NULL, updated_at = now()
      WHERE org_id = $1 AND send_id = $2`, [orgId, sendId]);
    await blankSentText(db, orgId, sendId);
  },

  async undelivered(db, orgId, sendId, problem) {
    await db.query('UPDATE team_invites SET send_error = $3, updated_at = now() WHERE org_id = $1 AND send_id = $2', [orgId, sendId, JSON.stringify(problem)]);
  },

  async released(db, orgId, sendId) {
    await db.query('UPDATE team_invites SET send_error = NULL, updated_at = now() WHERE org_id = $1 AND send_id = $2', [orgId, sendId]);
  },
});

/** The invite's current send, for the follow-up that emails it; none when it is no longer pending. */
export async function currentInviteSend(db: Queryable, orgId: string, inviteId: string): Promise<string | null> {
  const row = await queryOne<{ send_id: string }>(db, "SELECT send_id FROM team_invites WHERE org_id = $1 AND id = $2 AND status = 'pending'", [orgId, inviteId]);
  return row?.send_id ?? null;
}
