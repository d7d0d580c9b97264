import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { streamRow, type StreamRow } from './streams';

/**
 * What viewers do on the public page: who they are (a daily salted hash of the random token their
 * browser keeps, never an IP), their sessions and heartbeats, votes, chat and prayer requests.
 * Everything here runs in the stream's organisation's tenant transaction.
 */

const MINUTE_MS = 60_000;
export const VIEWER_TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/** The organisation's salt of the day (made once under concurrency); yesterday's hashes cannot be linked to today's. */
async function dailySalt(db: Queryable, orgId: string, day: string): Promise<string> {
  await db.query('INSERT INTO live_daily_salts (org_id, day, salt) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [orgId, day, randomBytes(32).toString('base64url')]);
  return (await queryOne<{ salt: string }>(db, 'SELECT salt FROM live_daily_salts WHERE org_id = $1 AND day = $2', [orgId, day]))!.salt;
}

/** The viewer key: `a:` and a daily salted hash of the browser's token. The token itself is never stored. */
export async function viewerKey(db: Queryable, orgId: string, token: string, now = new Date()): Promise<string> {
  if (!VIEWER_TOKEN.test(token)) throw new StewardError('validation_failed', 'The viewer token is not valid', { issues: [{ path: 'viewerToken', message: '16 to 64 letters, digits, _ or -' }] });
  const day = utcDay(now);
  return `a:${createHmac('sha256', await dailySalt(db, orgId, day)).update(token).digest('base64url').slice(0, 43)}`;
}

export const contactViewerKey = (contactId: string) => `c:${contactId}`;

/** A public stream: missing, another organisation's or cancelled is not found. */
export async function publicStream(db: Queryable, orgId: string, streamId: string): Promise<StreamRow> {
  const row = await streamRow(db, orgId, streamId);
  if (row.status === 'cancelled') throw notFound('Stream', streamId);
  return row;
}

async function assertNotBlocked(db: Queryable, orgId: string, key: string): Promise<void> {
  const blocked = await queryOne(db, 'SELECT 1 FROM live_blocked_viewers WHERE org_id = $1 AND viewer_key = $2', [orgId, key]);
  if (blocked) throw new StewardError('forbidden', 'You cannot post in this chat', { details: { reason: 'viewer_blocked' } });
}

// ---------------------------------------------------------------- sessions

export async function startSession(db: Queryable, orgId: string, streamId: string, key: string, contactId: string | null, now = new Date()): Promise<{ sessionId: string }> {
  await publicStream(db, orgId, streamId);
  const id = randomUUID();
  await db.query('INSERT INTO live_viewer_sessions (id, org_id, stream_id, viewer_key, contact_id, day, started_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)',
    [id, orgId, streamId, key, contactId, utcDay(now), now]);
  return { sessionId: id };
}

/** A heartbeat extends the session it names (of this stream and viewer); a stale or foreign session is not found. */
export async function heartbeat(db: Queryable, orgId: string, streamId: string, sessionId: string, key: string, now = new Date()): Promise<{ ok: true }> {
  const updated = await db.query('UPDATE live_viewer_sessions SET last_seen_at = greatest(last_seen_at, $5), heartbeats = heartbeats + 1 WHERE org_id = $1 AND stream_id = $2 AND id = $3 AND viewer_key = $4',
    [orgId, streamId, sessionId, key, now]);
  if ((updated.rowCount ?? 0) === 0) throw notFound('Session', sessionId);
  return { ok: true };
}

// ---------------------------------------------------------------- polls

export interface PollOption { id: string; label: string }
interface PollRow { id: string; stream_id: string; question: string; options: PollOption[]; anonymous: boolean; status: 'open' | 'closed'; opens_at: Date; closes_at: Date | null; closed_at: Date | null; created_at: Date }

export interface PollView {
  id: string; streamId: string; question: string; options: PollOption[]; anonymous: boolean; status: 'open' | 'closed' | 'scheduled';
  opensAt: string; closesAt: string | null; closedAt: string | null; createdAt: string;
}

/** A poll past its closing time is closed, whether or not anyone closed it. */
function pollStatus(row: PollRow, now: Date): PollView['status'] {
  if (row.status === 'closed' || (row.closes_at && row.closes_at.getTime() <= now.getTime())) return 'closed';
  return row.opens_at.getTime() > now.getTime() ? 'scheduled' : 'open';
}

const pollView = (row: PollRow, now = new Date()): PollView => ({
  id: row.id, streamId: row.stream_id, question: row.question, options: row.options, anonymous: row.anonymous, status: pollStatus(row, now),
  opensAt: row.opens_at.toISOString(), closesAt: row.closes_at?.toISOString() ?? null, closedAt: row.closed_at?.toISOString() ?? (row.closes_at && row.closes_at.getTime() <= now.getTime() ? row.closes_at.toISOString() : null),
  createdAt: row.created_at.toISOString(),
});

async function pollRow(db: Queryable, orgId: string, pollId: string, lock = ''): Promise<PollRow> {
  const row = await queryOne<PollRow>(db, `SELECT * FROM live_polls WHERE org_id = $1 AND id = $2 ${lock}`, [orgId, pollId]);
  if (!row) throw notFound('Poll', pollId, 'live_get_stream_status and the stream\'s polls (live_get_poll_results) name them.');
  return row;
}

export async function createPoll(db: Queryable, orgId: string, input: { streamId: string; question: string; options: string[]; anonymous?: boolean; opensAt?: string; closesAt?: string; durationMinutes?: number }): Promise<PollView> {
  const stream = await streamRow(db, orgId, input.streamId);
  if (stream.status === 'complete' || stream.status === 'cancelled') throw new StewardError('conflict', `The stream is ${stream.status}`, { details: { reason: `stream_${stream.status}` } });
  const labels = input.options.map((o) => o.trim());
  if (new Set(labels.map((l) => l.toLowerCase())).size !== labels.length) throw new StewardError('validation_failed', 'Two options are the same', { issues: [{ path: 'options', message: 'each option once' }] });
  const opensAt = input.opensAt ? new Date(input.opensAt) : new Date();
  const closesAt = input.closesAt ? new Date(input.closesAt) : input.durationMinutes ? new Date(opensAt.getTime() + input.durationMinutes * MINUTE_MS) : null;
  if (closesAt && closesAt.getTime() <= opensAt.getTime()) throw new StewardError('validation_failed', 'The poll must close after it opens', { issues: [{ path: 'closesAt', message: 'after opensAt' }] });
  const options = labels.map((label, index) => ({ id: `o${index + 1}`, label }));
  const row = await queryOne<PollRow>(db, 'INSERT INTO live_polls (id, org_id, stream_id, question, options, anonymous, opens_at, closes_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *',
    [randomUUID(), orgId, input.streamId, input.question, JSON.stringify(options), input.anonymous ?? true, opensAt, closesAt]);
  return pollView(row!);
}

export async function closePoll(db: Queryable, orgId: string, pollId: string): Promise<PollResults> {
  const row = await pollRow(db, orgId, pollId, 'FOR UPDATE');
  if (pollStatus(row, new Date()) === 'closed' && row.status === 'closed') throw new StewardError('conflict', 'The poll is closed already', { details: { reason: 'poll_closed' } });
  await db.query("UPDATE live_polls SET status = 'closed', closed_at = coalesce(least(closes_at, now()), now()) WHERE org_id = $1 AND id = $2", [orgId, pollId]);
  return pollResults(db, orgId, pollId);
}

export interface PollResults { poll: PollView; totalVotes: number; results: Array<{ optionId: string; label: string; votes: number; percent: number }> }

export async function pollResults(db: Queryable, orgId: string, pollId: string): Promise<PollResults> {
  const row = await pollRow(db, orgId, pollId);
  const counts = await queryRows<{ option_id: string; n: number }>(db, 'SELECT option_id, count(*)::int AS n FROM live_poll_votes WHERE org_id = $1 AND poll_id = $2 GROUP BY option_id', [orgId, pollId]);
  const byOption = new Map(counts.map((c) => [c.option_id, c.n]));
  const total = counts.reduce((sum, c) => sum + c.n, 0);
  return {
    poll: pollView(row), totalVotes: total,
    results: row.options.map((o) => ({ optionId: o.id, label: o.label, votes: byOption.get(o.id) ?? 0, percent: total ? Math.round(((byOption.get(o.id) ?? 0) * 1000) / total) / 10 : 0 })),
  };
}

export async function streamPolls(db: Queryable, orgId: string, streamId: string): Promise<PollView[]> {
  await streamRow(db, orgId, streamId);
  const rows = await queryRows<PollRow>(db, 'SELECT * FROM live_polls WHERE org_id = $1 AND stream_id = $2 ORDER BY created_at DESC, id LIMIT 50', [orgId, streamId]);
  const now = new Date();
  return rows.map((row) => pollView(row, now));
}

/**
 * One vote per viewer per poll: the poll row is read FOR SHARE (a close waits for votes in flight,
 * and a vote after a close sees it closed), and the unique (poll, viewer) index keeps a second vote
 * out however many arrive at once. A second vote answers `counted: false` and changes nothing.
 */
export async function vote(db: Queryable, orgId: string, streamId: string, pollId: string, key: string, optionId: string, contactId: string | null): Promise<{ counted: boolean }> {
  const row = await pollRow(db, orgId, pollId, 'FOR SHARE');
  if (row.stream_id !== streamId) throw notFound('Poll', pollId);
  const status = pollStatus(row, new Date());
  if (status !== 'open') throw new StewardError('conflict', status === 'closed' ? 'This poll is closed' : 'This poll has not opened yet', { details: { reason: `poll_${status}` } });
  if (!row.options.some((o) => o.id === optionId)) throw new StewardError('validation_failed', 'That is not one of the poll\'s options', { issues: [{ path: 'optionId', message: 'one of the poll\'s option ids' }] });
  const inserted = await db.query('INSERT INTO live_poll_votes (id, org_id, poll_id, option_id, viewer_key, contact_id) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (poll_id, viewer_key) DO NOTHING',
    [randomUUID(), orgId, pollId, optionId, key, row.anonymous ? null : contactId]);
  return { counted: (inserted.rowCount ?? 0) > 0 };
}

// ---------------------------------------------------------------- chat

export interface ChatMessage { id: string; displayName: string; body: string; hidden: boolean; viewer: string; blocked: boolean; createdAt: string }

/** A viewer may post this many messages a minute. */
export const CHAT_PER_MINUTE = 10;

export async function postChat(db: Queryable, orgId: string, streamId: string, key: string, input: { name: string; body: string }, contactId: string | null, now = new Date()): Promise<{ id: string }> {
  const stream = await publicStream(db, orgId, streamId);
  if (!(now.getTime() >= stream.scheduled_start.getTime() - stream.chat_before_minutes * MINUTE_MS
    && now.getTime() <= (stream.ended_at ?? stream.scheduled_end).getTime() + stream.chat_after_minutes * MINUTE_MS)) {
    throw new StewardError('conflict', 'The chat is closed for this stream', { details: { reason: 'chat_closed' } });
  }
  await assertNotBlocked(db, orgId, key);
  const recent = await queryOne<{ n: number }>(db, "SELECT count(*)::int AS n FROM live_chat WHERE org_id = $1 AND viewer_key = $2 AND created_at > now() - interval '1 minute'", [orgId, key]);
  if ((recent?.n ?? 0) >= CHAT_PER_MINUTE) throw new StewardError('conflict', 'Too many messages; wait a moment', { details: { reason: 'rate_limited' } });
  const id = randomUUID();
  await db.query('INSERT INTO live_chat (id, org_id, stream_id, viewer_key, contact_id, display_name, body) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [id, orgId, streamId, key, contactId, input.name, input.body]);
  return { id };
}

/** The moderator's handle on a viewer: the message's id stands for its author, so keys (hashes) never leave. */
export async function listChat(db: Queryable, orgId: string, streamId: string, options: { includeHidden: boolean; limit: number; publicView?: boolean }): Promise<ChatMessage[]> {
  await streamRow(db, orgId, streamId);
  const rows = await queryRows<{ id: string; display_name: string; body: string; hidden: boolean; viewer_key: string; blocked: boolean; created_at: Date }>(db,
    `SELECT m.id, m.display_name, m.body, m.hidden, m.viewer_key, (b.id IS NOT NULL) AS blocked, m.created_at FROM live_chat m
      LEFT JOIN live_blocked_viewers b ON b.org_id = m.org_id AND b.viewer_key = m.viewer_key
     WHERE m.org_id = $1 AND m.stream_id = $2 AND ($3::boolean OR (NOT m.hidden AND b.id IS NULL))
     ORDER BY m.created_at DESC, m.id LIMIT $4`, [orgId, streamId, options.includeHidden, options.limit]);
  return rows.reverse().map((r) => ({
    id: r.id, displayName: r.display_name, body: r.body, hidden: r.hidden, blocked: r.blocked, createdAt: r.created_at.toISOString(),
    viewer: viewerRef(r.viewer_key),
  }));
}

/** An opaque, stable reference to a viewer for moderators: a short hash of the key, never the key or a contact id. */
export const viewerRef = (key: string) => `v_${createHmac('sha256', 'live-viewer-ref').update(key).digest('hex').slice(0, 12)}`;

export async function moderateChat(db: Queryable, orgId: string, userId: string | null, input: { streamId: string; messageId: string; action: 'hide' | 'unhide' | 'block_viewer' | 'unblock_viewer'; reason?: string }): Promise<{ message: ChatMessage }> {
  await streamRow(db, orgId, input.streamId);
  const message = await queryOne<{ viewer_key: string }>(db, 'SELECT viewer_key FROM live_chat WHERE org_id = $1 AND stream_id = $2 AND id = $3', [orgId, input.streamId, input.messageId]);
  if (!message) throw notFound('Chat message', input.messageId, 'live_list_chat lists the stream\'s messages.');
  if (input.action === 'hide' || input.action === 'unhide') {
    await db.query('UPDATE live_chat SET hidden = $3, hidden_at = CASE WHEN $3 THEN now() ELSE NULL END WHERE org_id = $1 AND id = $2', [orgId, input.messageId, input.action === 'hide']);
  } else if (input.action === 'block_viewer') {
    await db.query('INSERT INTO live_blocked_viewers (id, org_id, viewer_key, reason, blocked_by_user_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (org_id, viewer_key) DO NOTHING',
      [randomUUID(), orgId, message.viewer_key, input.reason ?? null, userId]);
  } else {
    await db.query('DELETE FROM live_blocked_viewers WHERE org_id = $1 AND viewer_key = $2', [orgId, message.viewer_key]);
  }
  const all = await listChat(db, orgId, input.streamId, { includeHidden: true, limit: 500 });
  return { message: all.find((m) => m.id === input.messageId)! };
}

// ---------------------------------------------------------------- prayer requests

export async function submitPrayer(db: Queryable, orgId: string, streamId: string, key: string, input: { name?: string; contact?: string; body: string; private?: boolean }, contactId: string | null): Promise<{ id: string }> {
  await publicStream(db, orgId, streamId);
  const recent = await queryOne<{ n: number }>(db, "SELECT count(*)::int AS n FROM live_prayer_requests WHERE org_id = $1 AND viewer_key = $2 AND created_at > now() - interval '10 minutes'", [orgId, key]);
  if ((recent?.n ?? 0) >= 5) throw new StewardError('conflict', 'Too many requests; wait a few minutes', { details: { reason: 'rate_limited' } });
  const id = randomUUID();
  // Private: only those holding people:safeguarding see it, as every private pastoral record.
  await db.query(`INSERT INTO live_prayer_requests (id, org_id, stream_id, viewer_key, contact_id, name, contact_detail, body, privacy) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, orgId, streamId, key, contactId, input.name ?? null, input.contact ?? null, input.body, input.private ? 'private' : 'team']);
  return { id };
}
