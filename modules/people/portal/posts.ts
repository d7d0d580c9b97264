import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { displayNameOf } from '../contacts';

/**
 * Members' posts on the portal. A post is pending until a person approves it or rejects it with a
 * reason. Members see approved posts and their own (with its status and any reason); another
 * member's pending or rejected post is never shown to them.
 */
export const POST_STATUSES = ['pending', 'approved', 'rejected'] as const;
export const MAX_POST_LENGTH = 2000;

interface PostRow {
  id: string; contact_id: string; body: string; status: (typeof POST_STATUSES)[number]; rejection_reason: string | null;
  moderated_by: string | null; moderated_at: Date | null; created_at: Date;
  first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null;
}

const SELECT_POST = `SELECT p.id, p.contact_id, p.body, p.status, p.rejection_reason, p.moderated_by, p.moderated_at, p.created_at,
  c.first_name, c.last_name, c.preferred_name, c.email FROM portal_posts p JOIN contacts c ON c.id = p.contact_id AND c.deleted_at IS NULL`;

function postView(row: PostRow) {
  return {
    postId: row.id, contactId: row.contact_id, authorName: displayNameOf(row), body: row.body, status: row.status,
    rejectionReason: row.rejection_reason, moderatedBy: row.moderated_by, moderatedAt: row.moderated_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

export type PortalPostView = ReturnType<typeof postView>;

/** The moderation queue (pending by default), oldest first so the longest waiting come first. */
export async function listModeration(db: Queryable, orgId: string, filters: { status: (typeof POST_STATUSES)[number]; limit: number }): Promise<{ posts: PortalPostView[]; pendingCount: number }> {
  const rows = await queryRows<PostRow>(db, `${SELECT_POST} WHERE p.org_id = $1 AND p.status = $2 ORDER BY p.created_at ASC, p.id ASC LIMIT $3`,
    [orgId, filters.status, filters.limit]);
  const pending = await queryOne<{ n: number }>(db, "SELECT count(*)::int AS n FROM portal_posts WHERE org_id = $1 AND status = 'pending'", [orgId]);
  return { posts: rows.map(postView), pendingCount: pending!.n };
}

/** Approves or rejects a pending post; a post already decided is a conflict (two moderators cannot both decide it). */
export async function moderatePost(db: Queryable, orgId: string, actor: string | null, input: { postId: string; decision: 'approve' | 'reject'; reason?: string }): Promise<PortalPostView> {
  if (input.decision === 'reject' && !input.reason) {
    throw new StewardError('validation_failed', 'A rejection needs a reason', { issues: [{ path: 'reason', message: 'required when decision is reject' }], hint: 'The member sees the reason beside their post.' });
  }
  const updated = await queryOne<{ id: string }>(db, `UPDATE portal_posts SET status = $3, rejection_reason = $4, moderated_by = $5, moderated_at = now()
    WHERE org_id = $1 AND id = $2 AND status = 'pending' RETURNING id`,
  [orgId, input.postId, input.decision === 'approve' ? 'approved' : 'rejected', input.decision === 'reject' ? input.reason : null, actor]);
  const row = await queryOne<PostRow>(db, `${SELECT_POST} WHERE p.org_id = $1 AND p.id = $2`, [orgId, input.postId]);
  if (!row) throw new StewardError('not_found', `Portal post ${input.postId} was not found`, { hint: 'people_list_portal_moderation lists posts.' });
  if (!updated) throw new StewardError('conflict', `This post was already ${row.status}`, { details: { status: row.status }, hint: 'Only pending posts are moderated.' });
  return postView(row);
}

/** A member's new post, pending moderation. */
export async function createPost(db: Queryable, orgId: string, contactId: string, body: string): Promise<string> {
  const id = randomUUID();
  await db.query('INSERT INTO portal_posts (id, org_id, contact_id, body) VALUES ($1, $2, $3, $4)', [id, orgId, contactId, body]);
  return id;
}

/** What one member sees: approved posts, and their own whatever their status. */
export async function postsForMember(db: Queryable, orgId: string, contactId: string, limit = 50): Promise<PortalPostView[]> {
  const rows = await queryRows<PostRow>(db, `${SELECT_POST} WHERE p.org_id = $1 AND (p.status = 'approved' OR p.contact_id = $2)
    ORDER BY p.created_at DESC, p.id DESC LIMIT $3`, [orgId, contactId, limit]);
  return rows.map(postView);
}
