import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound, type RowOf } from '../kit';
import { requireVisibleLifeEvent, type LifeEvent } from '../people/api';
import { assertNoteMentionsNamesNotIds } from '../people/api';
import { findShareablePrayerRequest, getCommunitySettings, markShareablePrayerAnswered } from '../people/api';
import type { CommunityPost } from './models/posts';
import type { PostView } from './schemas';

type PostRow = Pick<RowOf<CommunityPost>, 'id' | 'kind' | 'status' | 'display_name' | 'body' | 'contact_id' | 'prayer_request_id' | 'life_event_id'
  | 'event_type' | 'event_date' | 'submitted_at' | 'decided_at' | 'rejection_reason' | 'answered_at' | 'answer_note' | 'prayed_count'>;

/** The columns a post is read with; the wall passes its own status and answered_at (see listPrayerWall). */
function postColumns(status = 'p.status', answeredAt = 'p.answered_at'): string {
  return `p.id, p.kind, ${status} AS status, p.display_name, p.body, p.contact_id, p.prayer_request_id, p.life_event_id, p.event_type,
  to_char(p.event_date, 'YYYY-MM-DD') AS event_date, p.submitted_at, p.decided_at, p.rejection_reason, ${answeredAt} AS answered_at, p.answer_note, p.prayed_count`;
}
const POST_COLUMNS = postColumns();

function postView(row: PostRow): PostView {
  return {
    id: row.id, kind: row.kind, status: row.status, displayName: row.display_name, body: row.body, contactId: row.contact_id,
    prayerRequestId: row.prayer_request_id, lifeEventId: row.life_event_id, eventType: row.event_type, eventDate: row.event_date,
    submittedAt: row.submitted_at.toISOString(), decidedAt: row.decided_at?.toISOString() ?? null, rejectionReason: row.rejection_reason,
    answeredAt: row.answered_at?.toISOString() ?? null, answerNote: row.answer_note, prayedCount: row.prayed_count,
  };
}

/** A post of a live contact (an erased contact's posts are gone; a deleted contact's behave as missing). */
export async function requirePost(db: Queryable, orgId: string, postId: string, lock = false): Promise<PostView> {
  const row = await queryOne<PostRow>(db, `SELECT ${POST_COLUMNS} FROM community_posts p JOIN people_directory d ON d.id = p.contact_id AND d.org_id = p.org_id
    WHERE p.org_id = $1 AND p.id = $2 ${lock ? 'FOR UPDATE OF p' : ''}`, [orgId, postId]);
  if (!row) throw notFound('Post', postId, 'community_list_moderation_queue, community_list_prayer_wall and community_list_celebrations list posts.');
  return postView(row);
}

export type ShowName = 'first_name' | 'anonymous';

function displayNameFor(showName: ShowName, firstName: string | null): string {
  return showName === 'anonymous' || !firstName ? 'Anonymous' : firstName;
}

/** An open post for the same source already exists: the partial unique index said so. */
function alreadyShared(what: string): StewardError {
  return new StewardError('conflict', `This ${what} is already shared (waiting for moderation or on the board)`, {
    hint: 'community_list_moderation_queue shows pending posts; remove the existing post first to share it again.',
  });
}

/**
 * Puts a prayer request in the moderation queue for the wall. Only a request the congregation may
 * see (visibility congregation, confidentiality green) can be shared; any other request, like a
 * missing one, answers not_found, so a private request's existence never shows here.
 */
export async function sharePrayerRequest(
  db: Queryable, orgId: string, userId: string | null, input: { prayerRequestId: string; wallText?: string; showName: ShowName },
): Promise<PostView> {
  const settings = await getCommunitySettings(db, orgId);
  if (!settings.prayerWallEnabled) throw new StewardError('conflict', 'The prayer wall is switched off', { hint: 'people_set_community_settings with prayerWallEnabled: true turns it on.' });
  const request = await findShareablePrayerRequest(db, orgId, input.prayerRequestId);
  if (!request) {
    throw new StewardError('not_found', `Prayer request ${input.prayerRequestId} was not found among those that can be shared`, {
      hint: 'Only prayer requests with visibility congregation and confidentiality green can go on the wall.',
    });
  }
  if (request.status !== 'active') throw new StewardError('conflict', 'This prayer request is already answered', { hint: 'Only active requests can be shared to the wall.' });
  if (input.wallText !== undefined) assertNoteMentionsNamesNotIds(input.wallText);
  const body = input.wallText ?? request.request;
  if (body.length > 2000) {
    throw new StewardError('validation_failed', 'The request is too long for the wall', { issues: [{ path: 'wallText', message: 'give a shorter wallText (at most 2000 characters)' }] });
  }
  const row = await queryOne<{ id: string }>(db, `INSERT INTO community_posts (id, org_id, kind, prayer_request_id, contact_id, display_name, body, submitted_by_user_id)
    VALUES ($1, $2, 'prayer', $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING id`,
  [randomUUID(), orgId, request.id, request.contactId, displayNameFor(input.showName, request.firstName), body, userId]);
  if (!row) throw alreadyShared('prayer request');
  return requirePost(db, orgId, row.id);
}

/** Why a life event cannot be celebrated publicly, or undefined when it can. */
function celebrationRefusal(event: LifeEvent, allowedTypes: readonly string[]): string | undefined {
  if (!event.shareWithCommunity) return 'the person has not agreed to share it with the community (shareWithCommunity is false)';
  if (event.intent !== 'celebrate') return 'it is a life event to support, not to celebrate';
  if (!allowedTypes.includes(event.type)) return `${event.type} is not among the life-event types celebrated publicly (${allowedTypes.join(', ') || 'none'})`;
  return undefined;
}

/** A life event restricted, missing or another organisation's answers not_found (requireVisibleLifeEvent without safeguarding). */
async function requireCelebratableEvent(db: Queryable, orgId: string, lifeEventId: string): Promise<LifeEvent> {
  const event = await requireVisibleLifeEvent(db, orgId, lifeEventId, false);
  // Team-visible events are readable here, but only ones the person agreed to share leave for the congregation.
  const settings = await getCommunitySettings(db, orgId);
  if (!settings.celebrationsEnabled) throw new StewardError('conflict', 'Celebrations are switched off', { hint: 'people_set_community_settings with celebrationsEnabled: true turns them on.' });
  const refusal = celebrationRefusal(event, settings.celebratedLifeEventTypes);
  if (refusal) throw new StewardError('conflict', `This life event cannot be celebrated publicly: ${refusal}`);
  return event;
}

export async function shareCelebration(
  db: Queryable, orgId: string, userId: string | null, input: { lifeEventId: string; message?: string; showName: ShowName },
): Promise<PostView> {
  const event = await requireCelebratableEvent(db, orgId, input.lifeEventId);
  if (input.message !== undefined) assertNoteMentionsNamesNotIds(input.message);
  const body = input.message ?? event.title;
  const row = await queryOne<{ id: string }>(db, `INSERT INTO community_posts (id, org_id, kind, life_event_id, contact_id, display_name, body, event_type, event_date, submitted_by_user_id)
    VALUES ($1, $2, 'celebration', $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING id`,
  [randomUUID(), orgId, event.id, event.contactId, displayNameFor(input.showName, await firstNameOf(db, orgId, event.contactId)), body, event.type, event.eventDate, userId]);
  if (!row) throw alreadyShared('life event');
  return requirePost(db, orgId, row.id);
}

/** The first name the board shows, from the people module's published directory. */
async function firstNameOf(db: Queryable, orgId: string, contactId: string): Promise<string | null> {
  const row = await queryOne<{ name: string | null }>(db, 'SELECT COALESCE(preferred_name, first_name) AS name FROM people_directory WHERE org_id = $1 AND id = $2', [orgId, contactId]);
  return row?.name ?? null;
}

export async function listModerationQueue(db: Queryable, orgId: string, filter: { kind?: 'prayer' | 'celebration'; limit: number }): Promise<PostView[]> {
  const rows = await queryRows<PostRow>(db, `SELECT ${POST_COLUMNS} FROM community_posts p JOIN people_directory d ON d.id = p.contact_id AND d.org_id = p.org_id
    WHERE p.org_id = $1 AND p.status = 'pending' AND ($2::text IS NULL OR p.kind = $2)
    ORDER BY p.submitted_at, p.id LIMIT $3`, [orgId, filter.kind ?? null, filter.limit]);
  return rows.map(postView);
}

/** A decision on a pending post; a post decided meanwhile (another moderator, a retry) is a conflict naming its status. */
async function decide(db: Queryable, orgId: string, postId: string, change: { status: 'approved' | 'rejected'; userId: string | null; reason?: string }): Promise<PostView> {
  const post = await requirePost(db, orgId, postId, true);
  if (post.status !== 'pending') {
    throw new StewardError('conflict', `This post was already decided (${post.status})`, { hint: 'Only pending posts can be approved or rejected.' });
  }
  if (change.status === 'approved') await assertStillShareable(db, orgId, post);
  await db.query(`UPDATE community_posts SET status = $3, decided_by_user_id = $4, decided_at = now(), rejection_reason = $5 WHERE org_id = $1 AND id = $2`,
    [orgId, postId, change.status, change.userId, change.reason ?? null]);
  return requirePost(db, orgId, postId);
}

/** The source may have changed since it was shared (made private, consent withdrawn): approving then would publish what may not be. */
async function assertStillShareable(db: Queryable, orgId: string, post: PostView): Promise<void> {
  if (post.kind === 'prayer') {
    const request = await findShareablePrayerRequest(db, orgId, post.prayerRequestId!);
    if (!request) throw new StewardError('conflict', 'The prayer request is no longer shared with the congregation', { hint: 'Reject or remove this post.' });
    return;
  }
  try {
    await requireCelebratableEvent(db, orgId, post.lifeEventId!);
  } catch (error) {
    if (error instanceof StewardError) throw new StewardError('conflict', 'The life event can no longer be celebrated publicly', { hint: 'Reject or remove this post.' });
    throw error;
  }
}

export const approvePost = (db: Queryable, orgId: string, userId: string | null, postId: string) => decide(db, orgId, postId, { status: 'approved', userId });
export const rejectPost = (db: Queryable, orgId: string, userId: string | null, postId: string, reason: string) => decide(db, orgId, postId, { status: 'rejected', userId, reason });

/**
 * The prayer wall: approved (and answered) prayer posts within the wall's lifetime, joined through
 * people's `shareable_prayer_requests` view, so a request made private or confidential after approval,
 * or a deleted contact's, is not shown.
 */
export async function listPrayerWall(db: Queryable, orgId: string, limit: number): Promise<{ enabled: boolean; lifetimeDays: number; items: PostView[] }> {
  const settings = await getCommunitySettings(db, orgId);
  if (!settings.prayerWallEnabled) return { enabled: false, lifetimeDays: settings.wallPostLifetimeDays, items: [] };
  // A request answered through people_set_prayer_request_status shows as answered here too.
  const columns = postColumns("CASE WHEN p.status = 'approved' AND s.status = 'answered' THEN 'answered' ELSE p.status END", 'COALESCE(p.answered_at, s.answered_at)');
  const rows = await queryRows<PostRow>(db, `SELECT ${columns} FROM community_posts p
    JOIN shareable_prayer_requests s ON s.id = p.prayer_request_id AND s.org_id = p.org_id
    WHERE p.org_id = $1 AND p.kind = 'prayer' AND p.status IN ('approved', 'answered') AND p.decided_at > now() - make_interval(days => $2)
    ORDER BY p.decided_at DESC, p.id LIMIT $3`, [orgId, settings.wallPostLifetimeDays, limit]);
  return { enabled: true, lifetimeDays: settings.wallPostLifetimeDays, items: rows.map(postView) };
}

/** Approved celebrations within the lifetime whose life event may still be celebrated (consent, type, visibility checked again now). */
export async function listCelebrations(db: Queryable, orgId: string, limit: number): Promise<{ enabled: boolean; items: PostView[] }> {
  const settings = await getCommunitySettings(db, orgId);
  if (!settings.celebrationsEnabled) return { enabled: false, items: [] };
  const rows = await queryRows<PostRow>(db, `SELECT ${POST_COLUMNS} FROM community_posts p JOIN people_directory d ON d.id = p.contact_id AND d.org_id = p.org_id
    WHERE p.org_id = $1 AND p.kind = 'celebration' AND p.status = 'approved' AND p.decided_at > now() - make_interval(days => $2)
    ORDER BY p.decided_at DESC, p.id LIMIT $3`, [orgId, settings.wallPostLifetimeDays, limit]);
  const items: PostView[] = [];
  for (const row of rows) {
    const stillShareable = await requireVisibleLifeEvent(db, orgId, row.life_event_id!, false)
      .then((event) => celebrationRefusal(event, settings.celebratedLifeEventTypes) === undefined, () => false);
    if (stillShareable) items.push(postView(row));
  }
  return { enabled: true, items };
}

/** Marks an approved prayer post answered (a praise report) and the request itself answered. */
export async function markPrayerAnswered(db: Queryable, orgId: string, postId: string, answerNote: string | undefined): Promise<PostView> {
  const post = await requirePost(db, orgId, postId, true);
  if (post.kind !== 'prayer') throw new StewardError('conflict', 'Only a prayer post can be marked answered');
  if (post.status === 'answered') return post;
  if (post.status !== 'approved') throw new StewardError('conflict', `Only a post on the wall can be marked answered (this one is ${post.status})`);
  if (answerNote !== undefined) assertNoteMentionsNamesNotIds(answerNote);
  await markShareablePrayerAnswered(db, orgId, post.prayerRequestId!, answerNote);
  await db.query(`UPDATE community_posts SET status = 'answered', answered_at = now(), answer_note = $3 WHERE org_id = $1 AND id = $2`, [orgId, postId, answerNote ?? null]);
  return requirePost(db, orgId, postId);
}

export async function removePost(db: Queryable, orgId: string, postId: string, reason: string | undefined): Promise<PostView> {
  const post = await requirePost(db, orgId, postId, true);
  if (post.status === 'removed') return post;
  await db.query(`UPDATE community_posts SET status = 'removed', removed_at = now(), removal_reason = $3 WHERE org_id = $1 AND id = $2`, [orgId, postId, reason ?? null]);
  return requirePost(db, orgId, postId);
}

/**
 * Counts one prayer for a post on the wall. The increment happens in the UPDATE itself, so callers
 * praying at the same moment are all counted.
 */
export async function recordPrayer(db: Queryable, orgId: string, postId: string): Promise<PostView> {
  const row = await queryOne<{ id: string }>(db, `UPDATE community_posts p SET prayed_count = prayed_count + 1
    WHERE p.org_id = $1 AND p.id = $2 AND p.kind = 'prayer' AND p.status = 'approved'
      AND EXISTS (SELECT 1 FROM shareable_prayer_requests s WHERE s.id = p.prayer_request_id AND s.org_id = p.org_id)
    RETURNING p.id`, [orgId, postId]);
  if (!row) {
    const post = await requirePost(db, orgId, postId);
    throw new StewardError('conflict', `Only a prayer request on the wall can be prayed for here (this post is ${post.kind === 'prayer' ? post.status : 'a celebration'})`);
  }
  return requirePost(db, orgId, postId);
}

export interface BoardCounts { pending: number; prayerOnWall: number; celebrationsApproved: number; answered: number }

export async function countBoard(db: Queryable, orgId: string): Promise<BoardCounts> {
  const row = await queryOne<{ pending: number; prayer: number; celebrations: number; answered: number }>(db, `
    SELECT count(*) FILTER (WHERE p.status = 'pending')::int AS pending,
      count(*) FILTER (WHERE p.kind = 'prayer' AND p.status = 'approved')::int AS prayer,
      count(*) FILTER (WHERE p.kind = 'celebration' AND p.status = 'approved')::int AS celebrations,
      count(*) FILTER (WHERE p.status = 'answered')::int AS answered
    FROM community_posts p JOIN people_directory d ON d.id = p.contact_id AND d.org_id = p.org_id WHERE p.org_id = $1`, [orgId]);
  return { pending: row!.pending, prayerOnWall: row!.prayer, celebrationsApproved: row!.celebrations, answered: row!.answered };
}
