import { createHash } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { assertAllowance } from '../../kernel/billing';
import { checkRecipient, queueMessage } from '../channels/api';
import { canSeeRoster, type Viewer } from './access';
import { assertCanManage, assertNotArchived, nameOf, requireGroup } from './groups';

export const MESSAGE_CHANNELS = ['email', 'sms'] as const;
export const MESSAGE_PURPOSES = ['charitable_purpose', 'service'] as const;
export const MAX_GROUP_MESSAGE_RECIPIENTS = 200;
/** A message to more members than this waits for an owner or admin to approve it. */
export const APPROVAL_RECIPIENTS = 50;

/** How many people a group message would go to (another organisation's group: none). */
export async function recipientsOf(db: Queryable, orgId: string, groupId: string, includeLeaders: boolean): Promise<number> {
  const row = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM groups_memberships WHERE org_id = $1 AND group_id = $2::uuid AND left_at IS NULL AND ($3::boolean OR role = 'member')`,
    [orgId, groupId, includeLeaders]);
  return row!.n;
}

export interface GroupMessageInput {
  groupId: string;
  channel: (typeof MESSAGE_CHANNELS)[number];
  purpose: (typeof MESSAGE_PURPOSES)[number];
  subject?: string;
  body: string;
  includeLeaders: boolean;
  idempotencyKey?: string;
}

/**
 * One message to each current member of a group, each its own channel message: each person's
 * consent for the purpose, unsubscribes, bounces and crisis holds are checked now (and again by
 * channels when it goes); those it may not reach are reported with the reason and get nothing.
 * Nobody sees anyone else's address. The same idempotency key repeats the same sends, never doubles them.
 */
export async function messageMembers(db: Queryable, orgId: string, viewer: Viewer, input: GroupMessageInput, workflowId: string): Promise<{
  sent: Array<{ contactId: string; name: string; messageId: string; deferredUntil: string | null }>;
  skipped: Array<{ contactId: string; name: string; reason: string; message: string }>;
}> {
  const group = await requireGroup(db, orgId, viewer, input.groupId);
  assertCanManage(viewer, group);
  assertNotArchived(group);
  if (!canSeeRoster(viewer, group)) {
    throw new StewardError('forbidden', `${group.name}'s roster is confidential`, { hint: 'Its leaders, or staff holding people:safeguarding, message its members.' });
  }
  if (input.channel === 'email' && !input.subject) {
    throw new StewardError('validation_failed', 'An email needs a subject', { issues: [{ path: 'subject', message: 'required for email' }] });
  }
  const members = await queryRows<{ contact_id: string; preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }>(db,
    `SELECT m.contact_id, d.preferred_name, d.first_name, d.last_name, d.email FROM groups_memberships m JOIN people_directory d ON d.org_id = m.org_id AND d.id = m.contact_id
     WHERE m.org_id = $1 AND m.group_id = $2 AND m.left_at IS NULL AND ($3::boolean OR m.role = 'member') ORDER BY m.contact_id`, [orgId, group.id, input.includeLeaders]);
  if (members.length > MAX_GROUP_MESSAGE_RECIPIENTS) {
    throw new StewardError('validation_failed', `${group.name} has ${members.length} members; one group message reaches at most ${MAX_GROUP_MESSAGE_RECIPIENTS}`, { hint: 'Use a channels broadcast to a segment for a list this size.' });
  }
  // The key makes a repeat of this call (same group, channel and words) find the messages it queued.
  const batch = createHash('sha256').update(JSON.stringify([input.idempotencyKey ?? workflowId, group.id, input.channel, input.subject ?? null, input.body])).digest('hex').slice(0, 32);
  const sent: Array<{ contactId: string; name: string; messageId: string; deferredUntil: string | null }> = [];
  const skipped: Array<{ contactId: string; name: string; reason: string; message: string }> = [];
  let units = 0;
  for (const member of members) {
    const name = nameOf(member);
    const check = await checkRecipient(db, orgId, { contactId: member.contact_id, channel: input.channel, purpose: input.purpose, now: new Date() });
    if (!check.ok) {
      skipped.push({ contactId: member.contact_id, name, reason: check.reason, message: check.message });
      continue;
    }
    const queued = await queueMessage(db, orgId, {
      contactId: member.contact_id, channel: input.channel, purpose: input.purpose, subject: input.channel === 'email' ? input.subject! : null, body: input.body,
      idempotencyKey: `groups-message:${batch}:${member.contact_id}`, usageTool: 'groups_message_members',
    });
    if (queued.created) units += queued.message.meteredUnits;
    sent.push({ contactId: member.contact_id, name, messageId: queued.messageId, deferredUntil: check.quietUntil ? check.quietUntil.toISOString() : null });
  }
  if (units > 0) await assertAllowance(db, orgId, input.channel === 'email' ? 'email_sends' : 'messaging_credits', units);
  return { sent, skipped };
}
