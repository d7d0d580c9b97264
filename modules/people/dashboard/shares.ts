import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound } from '../../kit';
import { getOrgSettings } from '../../platform/api';
import { requireGroup } from '../crm-groups';
import { displayNameOf } from '../display-name';
import { requireSegment } from '../segments';
import { requireTag } from '../tags';

/**
 * Partner shares: one contact list (a segment, a ministry team or a tag) shared read-only with another
 * organisation (a food bank, a partner charity, the diocese). The partner reads it with the share's
 * token at /people/partner-share (only the fields shared, only while the share stands); staff see
 * exactly the same list with people_list_partner_contacts. The token is shown once and kept only as
 * its SHA-256; revoking stops it at once. Every create, partner read and revoke is recorded with who
 * and when (the share's audit trail).
 */
export const SHARE_SOURCES = ['segment', 'crm_group', 'tag'] as const;
export const SHAREABLE_FIELDS = ['email', 'phone', 'address', 'membershipStatus'] as const;
export type ShareSource = (typeof SHARE_SOURCES)[number];
export type ShareableField = (typeof SHAREABLE_FIELDS)[number];
/** The most contacts a partner reads from one share in one request. */
export const MAX_SHARED_CONTACTS = 2000;
const TOKEN_PREFIX = 'psh';

type ShareRow = {
  id: string; partner_name: string; partner_email: string | null; source_kind: ShareSource; source_id: string; fields: ShareableField[]; purpose: string;
  expires_at: Date | null; created_at: Date; created_by_user_id: string | null; revoked_at: Date | null; revoked_by_user_id: string | null; revoke_reason: string | null;
  source_name?: string | null; views?: number; last_viewed_at?: Date | null;
};

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

function shareView(row: ShareRow) {
  const now = Date.now();
  const state = row.revoked_at ? 'revoked' : row.expires_at && row.expires_at.getTime() <= now ? 'expired' : 'active';
  return {
    id: row.id, partnerName: row.partner_name, partnerEmail: row.partner_email,
    source: { kind: row.source_kind, id: row.source_id, name: row.source_name ?? null },
    fields: ['name', ...row.fields], purpose: row.purpose, state: state as 'active' | 'revoked' | 'expired',
    createdAt: row.created_at.toISOString(), expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null, revokeReason: row.revoke_reason,
    partnerViews: row.views ?? 0, lastViewedAt: row.last_viewed_at?.toISOString() ?? null,
  };
}
export type ShareView = ReturnType<typeof shareView>;

const SELECT_SHARE = `
  SELECT s.*,
    CASE s.source_kind WHEN 'segment' THEN (SELECT name FROM segments WHERE org_id = s.org_id AND id = s.source_id)
      WHEN 'crm_group' THEN (SELECT name FROM crm_groups WHERE org_id = s.org_id AND id = s.source_id)
      ELSE (SELECT name FROM tags WHERE org_id = s.org_id AND id = s.source_id) END AS source_name,
    (SELECT count(*)::int FROM people_partner_share_events e WHERE e.org_id = s.org_id AND e.share_id = s.id AND e.action = 'viewed') AS views,
    (SELECT max(occurred_at) FROM people_partner_share_events e WHERE e.org_id = s.org_id AND e.share_id = s.id AND e.action = 'viewed') AS last_viewed_at
  FROM people_partner_shares s`;

async function requireShare(db: Queryable, orgId: string, shareId: string): Promise<ShareRow> {
  const row = await queryOne<ShareRow>(db, `${SELECT_SHARE} WHERE s.org_id = $1 AND s.id = $2`, [orgId, shareId]);
  if (!row) throw notFound('Partner share', shareId, 'people_list_partner_shares lists the organisation\'s shares.');
  return row;
}

async function recordEvent(db: Queryable, orgId: string, shareId: string, action: 'created' | 'viewed' | 'revoked', actorUserId: string | null, detail: string | null) {
  await db.query('INSERT INTO people_partner_share_events (id, org_id, share_id, action, actor_user_id, detail) VALUES ($1, $2, $3, $4, $5, $6)',
    [randomUUID(), orgId, shareId, action, actorUserId, detail]);
}

async function resolveSource(db: Queryable, orgId: string, source: { kind: ShareSource; id?: string; name?: string }): Promise<{ id: string; name: string }> {
  if (source.kind === 'segment') {
    if (!source.id) throw new StewardError('validation_failed', 'A segment is named by its id', { issues: [{ path: 'source.id', message: 'required for a segment' }] });
    const segment = await requireSegment(db, orgId, source.id);
    return { id: segment.id, name: segment.name };
  }
  if (source.kind === 'crm_group') {
    const group = await requireGroup(db, orgId, { groupId: source.id, groupName: source.name });
    return { id: group.id, name: group.name };
  }
  const tag = await requireTag(db, orgId, { tagId: source.id, name: source.name });
  return { id: tag.id, name: tag.name };
}

export async function createShare(db: Queryable, orgId: string, userId: string, input: {
  partnerName: string; partnerEmail?: string; source: { kind: ShareSource; id?: string; name?: string }; fields: ShareableField[]; purpose: string; expiresInDays?: number;
}) {
  const source = await resolveSource(db, orgId, input.source);
  const id = randomUUID();
  const token = `${TOKEN_PREFIX}_${orgId}.${id}.${randomBytes(32).toString('base64url')}`;
  await db.query(`INSERT INTO people_partner_shares (id, org_id, partner_name, partner_email, source_kind, source_id, fields, purpose, token_hash, expires_at, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8, $9, CASE WHEN $10::int IS NULL THEN NULL ELSE now() + make_interval(days => $10::int) END, $11)`,
  [id, orgId, input.partnerName, input.partnerEmail ?? null, input.source.kind, source.id, [...new Set(input.fields)], input.purpose, hashToken(token), input.expiresInDays ?? null, userId]);
  await recordEvent(db, orgId, id, 'created', userId, `Shared ${input.source.kind.replace('_', ' ')} "${source.name}" with ${input.partnerName}`);
  return { share: shareView(await requireShare(db, orgId, id)), token };
}

export async function listShares(db: Queryable, orgId: string, state: 'active' | 'all') {
  const rows = await queryRows<ShareRow>(db, `${SELECT_SHARE} WHERE s.org_id = $1
    AND ($2 = 'all' OR (s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now()))) ORDER BY s.created_at DESC, s.id`, [orgId, state]);
  return rows.map(shareView);
}

export async function shareAudit(db: Queryable, orgId: string, shareId: string) {
  await requireShare(db, orgId, shareId);
  const rows = await queryRows<{ action: string; actor_user_id: string | null; detail: string | null; occurred_at: Date }>(db,
    'SELECT action, actor_user_id, detail, occurred_at FROM people_partner_share_events WHERE org_id = $1 AND share_id = $2 ORDER BY occurred_at, id', [orgId, shareId]);
  return rows.map((row) => ({ action: row.action, actorUserId: row.actor_user_id, detail: row.detail, at: row.occurred_at.toISOString() }));
}

export async function revokeShare(db: Queryable, orgId: string, userId: string, shareId: string, reason?: string) {
  const before = await requireShare(db, orgId, shareId);
  if (before.revoked_at) throw new StewardError('conflict', `The share with ${before.partner_name} was already revoked on ${before.revoked_at.toISOString().slice(0, 10)}`);
  await db.query('UPDATE people_partner_shares SET revoked_at = now(), revoked_by_user_id = $3, revoke_reason = $4 WHERE org_id = $1 AND id = $2 AND revoked_at IS NULL',
    [orgId, shareId, userId, reason ?? null]);
  await recordEvent(db, orgId, shareId, 'revoked', userId, reason ?? null);
  return shareView(await requireShare(db, orgId, shareId));
}

/** The contacts of a share, with only the fields it shares; live contacts only, sorted by name. */
async function sharedContacts(db: Queryable, orgId: string, row: ShareRow, limit: number) {
  const membership = {
    segment: 'EXISTS (SELECT 1 FROM segment_members x WHERE x.org_id = c.org_id AND x.contact_id = c.id AND x.segment_id = $2)',
    crm_group: 'EXISTS (SELECT 1 FROM crm_group_members x WHERE x.org_id = c.org_id AND x.contact_id = c.id AND x.group_id = $2)',
    tag: 'EXISTS (SELECT 1 FROM contact_tags x WHERE x.org_id = c.org_id AND x.contact_id = c.id AND x.tag_id = $2)',
  }[row.source_kind];
  const rows = await queryRows<{ first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; phone: string | null;
    address_line1: string | null; address_line2: string | null; address_city: string | null; address_postcode: string | null; membership_status: string | null }>(db, `
    SELECT c.first_name, c.last_name, c.preferred_name, c.email, c.phone, c.address_line1, c.address_line2, c.address_city, c.address_postcode, c.membership_status
    FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL AND ${membership}
    ORDER BY lower(c.last_name) NULLS LAST, lower(c.first_name) NULLS LAST, c.id LIMIT $3`, [orgId, row.source_id, limit]);
  const fields = new Set(row.fields);
  return rows.map((c) => ({
    name: displayNameOf({ ...c, email: fields.has('email') ? c.email : null }),
    ...(fields.has('email') ? { email: c.email } : {}),
    ...(fields.has('phone') ? { phone: c.phone } : {}),
    ...(fields.has('address') ? { address: [c.address_line1, c.address_line2, c.address_city, c.address_postcode].filter(Boolean).join(', ') || null } : {}),
    ...(fields.has('membershipStatus') ? { membershipStatus: c.membership_status } : {}),
  }));
}

/** What the partner sees now, as staff check it: refused once revoked or expired, as the partner is. */
export async function listPartnerContacts(db: Queryable, orgId: string, shareId: string, limit: number) {
  const row = await requireShare(db, orgId, shareId);
  const share = shareView(row);
  const contacts = share.state === 'active' ? await sharedContacts(db, orgId, row, limit) : [];
  return { share, contacts, count: contacts.length };
}

/** The partner's read: the token names the organisation and the share; its hash must match, the share must stand. Recorded as viewed. */
export async function readShareByToken(db: Queryable, token: string): Promise<{ partnerName: string; sharedBy: string; list: string; fields: string[]; contacts: unknown[] } | undefined> {
  const match = /^psh_([0-9a-f-]{36})\.([0-9a-f-]{36})\.[A-Za-z0-9_-]{43}$/.exec(token);
  if (!match) return undefined;
  const [, orgId, shareId] = match;
  const row = await queryOne<ShareRow & { token_hash: string }>(db, `${SELECT_SHARE} WHERE s.org_id = $1 AND s.id = $2`, [orgId, shareId]);
  if (!row) return undefined;
  const expected = Buffer.from(row.token_hash, 'hex');
  const given = Buffer.from(hashToken(token), 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  if (shareView(row).state !== 'active') return undefined;
  await recordEvent(db, orgId, shareId, 'viewed', null, 'Read by the partner with the share token');
  return { partnerName: row.partner_name, sharedBy: (await getOrgSettings(db, orgId)).name, list: row.source_name ?? '', fields: ['name', ...row.fields], contacts: await sharedContacts(db, orgId, row, MAX_SHARED_CONTACTS) };
}

export function orgIdOfShareToken(token: string): string | undefined {
  return /^psh_([0-9a-f-]{36})\./.exec(token)?.[1];
}
