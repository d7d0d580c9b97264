import { randomUUID } from 'node:crypto';
import { STAFF_ROLES } from '../../../core/roles';
import type { Principal } from '../../../core/principal';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { hashSecret, newSecret } from '../../../kernel/oauth/secrets';
import { portalPath, portalPublicOrigin } from './invites';

/**
 * Capture sessions: a kiosk or tablet at the welcome desk taking sign-ups through its own link. After
 * `idleLockMinutes` without a sign-up it locks itself, so a device left on a table takes nothing more;
 * only a staff credential (owner, admin or staff; never a volunteer's) unlocks it. The kiosk link's
 * token is shown once, when the session is opened, and stored as its hash.
 */
export const KIOSK_TOKEN_SHAPE = /^kio_[A-Za-z0-9_-]{43}$/;

interface CaptureRow {
  id: string; name: string; idle_lock_minutes: number; status: 'open' | 'closed'; locked_at: Date | null; idle_locked: boolean;
  last_activity_at: Date; signups: number; unlocks: number; last_unlocked_by: string | null; created_at: Date;
}

const SELECT_CAPTURE = `SELECT id, name, idle_lock_minutes, status, locked_at, last_activity_at, signups, unlocks, last_unlocked_by, created_at,
  (locked_at IS NULL AND last_activity_at <= now() - make_interval(mins => idle_lock_minutes)) AS idle_locked FROM capture_sessions`;

function captureView(row: CaptureRow) {
  const locked = row.locked_at !== null || row.idle_locked;
  return {
    captureSessionId: row.id, name: row.name, status: row.status, state: (row.status === 'closed' ? 'closed' : locked ? 'locked' : 'open') as 'open' | 'locked' | 'closed',
    idleLockMinutes: row.idle_lock_minutes, lastActivityAt: row.last_activity_at.toISOString(),
    lockedAt: row.locked_at?.toISOString() ?? (row.idle_locked ? new Date(row.last_activity_at.getTime() + row.idle_lock_minutes * 60_000).toISOString() : null),
    signups: row.signups, unlocks: row.unlocks, lastUnlockedBy: row.last_unlocked_by, createdAt: row.created_at.toISOString(),
  };
}

export type CaptureSessionView = ReturnType<typeof captureView>;

export async function listCaptureSessions(db: Queryable, orgId: string, filters: { state?: 'open' | 'locked' | 'closed'; limit: number }): Promise<CaptureSessionView[]> {
  const rows = await queryRows<CaptureRow>(db, `${SELECT_CAPTURE} WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT 500`, [orgId]);
  return rows.map(captureView).filter((view) => !filters.state || view.state === filters.state).slice(0, filters.limit);
}

export async function requireCaptureSession(db: Queryable, orgId: string, id: string): Promise<CaptureSessionView> {
  const row = await queryOne<CaptureRow>(db, `${SELECT_CAPTURE} WHERE org_id = $1 AND id = $2`, [orgId, id]);
  if (!row) throw new StewardError('not_found', `Capture session ${id} was not found`, { hint: 'people_list_capture_sessions lists them.' });
  return captureView(row);
}

/** Opens a session; the kiosk link is in this answer only. */
export async function openCaptureSession(db: Queryable, orgId: string, actor: string | null, input: { name: string; idleLockMinutes: number }) {
  const id = randomUUID();
  const token = newSecret('kio_');
  await db.query('INSERT INTO capture_sessions (id, org_id, name, kiosk_token_hash, idle_lock_minutes, created_by) VALUES ($1, $2, $3, $4, $5, $6)',
    [id, orgId, input.name, hashSecret(token), input.idleLockMinutes, actor]);
  return { session: await requireCaptureSession(db, orgId, id), kioskUrl: `${portalPublicOrigin()}${portalPath(orgId)}/kiosk/${token}` };
}

export async function closeCaptureSession(db: Queryable, orgId: string, id: string): Promise<CaptureSessionView> {
  await requireCaptureSession(db, orgId, id);
  await db.query("UPDATE capture_sessions SET status = 'closed' WHERE org_id = $1 AND id = $2", [orgId, id]);
  return requireCaptureSession(db, orgId, id);
}

export function assertStaffCredential(principal: Principal): void {
  if (!STAFF_ROLES.includes(principal.role)) {
    throw new StewardError('forbidden', `Unlocking a capture session needs a staff credential; this credential's role is ${principal.role}`, {
      hint: 'Ask an owner, admin or staff member to unlock it with their own credential.',
    });
  }
}

/** Unlocks a locked (or idle) session and restarts its idle clock; an open one is left as it is. */
export async function unlockCaptureSession(db: Queryable, orgId: string, principal: Principal, id: string): Promise<{ session: CaptureSessionView; wasLocked: boolean }> {
  assertStaffCredential(principal);
  const before = await requireCaptureSession(db, orgId, id);
  if (before.state === 'closed') throw new StewardError('conflict', 'This capture session is closed', { hint: 'Open a new one through platform_portal_invoke_api_write.' });
  if (before.state === 'open') return { session: before, wasLocked: false };
  await db.query('UPDATE capture_sessions SET locked_at = NULL, last_activity_at = now(), unlocks = unlocks + 1, last_unlocked_by = $3 WHERE org_id = $1 AND id = $2',
    [orgId, id, principal.userId]);
  return { session: await requireCaptureSession(db, orgId, id), wasLocked: true };
}

/**
 * The kiosk's own view of its session (by its link), locking it first if it has been idle too long.
 * Runs in the kiosk page's tenant transaction.
 */
export async function kioskSession(db: Queryable, orgId: string, token: string): Promise<{ id: string; name: string; state: 'open' | 'locked' | 'closed' } | undefined> {
  if (!KIOSK_TOKEN_SHAPE.test(token)) return undefined;
  const row = await queryOne<{ id: string; name: string; status: string; locked: boolean }>(db, `
    UPDATE capture_sessions SET locked_at = COALESCE(locked_at, last_activity_at + make_interval(mins => idle_lock_minutes))
    WHERE org_id = $1 AND kiosk_token_hash = $2 AND locked_at IS NULL AND last_activity_at <= now() - make_interval(mins => idle_lock_minutes)
    RETURNING id, name, status, true AS locked`, [orgId, hashSecret(token)])
    ?? await queryOne(db, 'SELECT id, name, status, locked_at IS NOT NULL AS locked FROM capture_sessions WHERE org_id = $1 AND kiosk_token_hash = $2 FOR UPDATE', [orgId, hashSecret(token)]);
  if (!row) return undefined;
  return { id: row.id, name: row.name, state: row.status === 'closed' ? 'closed' : row.locked ? 'locked' : 'open' };
}

export async function recordKioskSignup(db: Queryable, orgId: string, id: string): Promise<void> {
  await db.query('UPDATE capture_sessions SET signups = signups + 1, last_activity_at = now() WHERE org_id = $1 AND id = $2', [orgId, id]);
}
