import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryRows, type Queryable } from '../../db/pool';
import type { OrgSettings } from '../tool';
import { displayNameOf, requireContact } from './contacts';
import { parseOrgDate } from './dates';
import type { Note } from './schemas';

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * A note is restricted when it is private or its confidentiality is amber or red.
 * Restricted notes only ever leave the database for a caller holding people:safeguarding.
 * This SQL fragment is the one definition of that rule; every read path uses it.
 */
export function visibleNoteSql(alias: string, canSeeRestricted: boolean): string {
  return canSeeRestricted ? 'true' : `(${alias}.privacy <> 'private' AND ${alias}.confidentiality_level = 'green')`;
}

/** The same rule for a note already read. */
export function isRestrictedNote(note: Pick<Note, 'privacy' | 'confidentialityLevel'>): boolean {
  return note.privacy === 'private' || note.confidentialityLevel !== 'green';
}

/** Timeline source kind for the removal of a restricted note, shown only to safeguarding holders. */
export const RESTRICTED_NOTE_REMOVAL = 'note_removal_restricted';

interface NoteRow {
  id: string; contact_id: string; content: string; privacy: Note['privacy']; confidentiality_level: Note['confidentialityLevel'];
  follow_up_date: string | null; follow_up_completed: boolean; author_user_id: string | null; created_at: Date; updated_at: Date;
}

function toNote(row: NoteRow): Note {
  return {
    id: row.id, contactId: row.contact_id, content: row.content, privacy: row.privacy,
    confidentialityLevel: row.confidentiality_level, followUpDate: row.follow_up_date,
    followUpCompleted: row.follow_up_completed, authorUserId: row.author_user_id,
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

/** Notes name people; ids in prose go stale and leak between systems (spec 4.4 usage rules). */
export function assertNoteMentionsNamesNotIds(content: string): void {
  if (UUID_IN_TEXT.test(content)) {
    throw new StewardError('validation_failed', 'Note content contains an id; refer to people by name', {
      issues: [{ path: 'content', message: 'must not contain ids' }],
      hint: 'Write the contact\'s name instead of their id.',
    });
  }
}

export async function addNote(
  db: Queryable, org: OrgSettings, authorUserId: string,
  input: { contactId: string; content: string; privacy: Note['privacy']; confidentialityLevel: Note['confidentialityLevel']; followUpDate?: string },
): Promise<Note> {
  await requireContact(db, org.id, input.contactId);
  assertNoteMentionsNamesNotIds(input.content);
  const followUp = input.followUpDate ? parseOrgDate(input.followUpDate, org.dateFormat, 'followUpDate') : null;
  const rows = await queryRows<NoteRow>(db, `
    INSERT INTO notes (id, org_id, contact_id, author_user_id, content, privacy, confidentiality_level, follow_up_date)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [randomUUID(), org.id, input.contactId, authorUserId, input.content, input.privacy, input.confidentialityLevel, followUp]);
  return toNote(rows[0]);
}

export async function listNotes(db: Queryable, orgId: string, contactId: string, canSeeRestricted: boolean, limit: number): Promise<Note[]> {
  await requireContact(db, orgId, contactId);
  const rows = await queryRows<NoteRow>(db, `
    SELECT n.* FROM notes n WHERE n.org_id = $1 AND n.contact_id = $2 AND ${visibleNoteSql('n', canSeeRestricted)}
    ORDER BY n.created_at DESC, n.id DESC LIMIT $3`, [orgId, contactId, limit]);
  return rows.map(toNote);
}

/** How a note shows on the care timeline: its opening words. */
export function noteTimelineSummary(content: string): string {
  const oneLine = content.replace(/\s+/g, ' ').trim();
  return oneLine.length > 140 ? `${oneLine.slice(0, 137)}...` : oneLine;
}

/** A note the caller may see; restricted notes behave as missing for callers without safeguarding. */
export async function requireVisibleNote(db: Queryable, orgId: string, noteId: string, canSeeRestricted: boolean): Promise<Note> {
  const rows = await queryRows<NoteRow>(db, `
    SELECT n.* FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.deleted_at IS NULL
    WHERE n.org_id = $1 AND n.id = $2 AND ${visibleNoteSql('n', canSeeRestricted)}`, [orgId, noteId]);
  if (!rows[0]) throw new StewardError('not_found', `Note ${noteId} was not found`, { hint: 'people_list_notes lists a contact\'s notes.' });
  return toNote(rows[0]);
}

export async function updateNote(
  db: Queryable, org: OrgSettings, canSeeRestricted: boolean,
  input: { noteId: string; content?: string; privacy?: Note['privacy']; confidentialityLevel?: Note['confidentialityLevel']; followUpDate?: string | null },
): Promise<{ note: Note; changed: string[] }> {
  await requireVisibleNote(db, org.id, input.noteId, canSeeRestricted);
  if (input.content !== undefined) assertNoteMentionsNamesNotIds(input.content);
  const followUp = typeof input.followUpDate === 'string' ? parseOrgDate(input.followUpDate, org.dateFormat, 'followUpDate') : input.followUpDate;
  const changes: Array<[string, unknown]> = [
    ['content', input.content], ['privacy', input.privacy], ['confidentiality_level', input.confidentialityLevel], ['follow_up_date', followUp],
  ].filter(([, value]) => value !== undefined) as Array<[string, unknown]>;
  if (changes.length === 0) throw new StewardError('validation_failed', 'Nothing to update: give content, privacy, confidentialityLevel or followUpDate');
  const sets = changes.map(([column], i) => `${column} = $${i + 3}`);
  if (followUp !== undefined) sets.push('follow_up_completed = false');
  const rows = await queryRows<NoteRow>(db, `UPDATE notes SET ${sets.join(', ')}, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *`,
    [org.id, input.noteId, ...changes.map(([, value]) => value)]);
  const camel: Record<string, string> = { content: 'content', privacy: 'privacy', confidentiality_level: 'confidentialityLevel', follow_up_date: 'followUpDate' };
  return { note: toNote(rows[0]), changed: changes.map(([column]) => camel[column]) };
}

/** Deletes a note; the caller's timeline sync leaves a content-free note_removed entry in its place. */
export async function removeNote(db: Queryable, orgId: string, noteId: string, canSeeRestricted: boolean): Promise<Note> {
  const note = await requireVisibleNote(db, orgId, noteId, canSeeRestricted);
  await db.query("DELETE FROM timeline_entries WHERE org_id = $1 AND source_kind = 'note' AND source_id = $2", [orgId, noteId]);
  await db.query('DELETE FROM notes WHERE org_id = $1 AND id = $2', [orgId, noteId]);
  return note;
}

export async function completeNoteFollowUp(db: Queryable, orgId: string, noteId: string, canSeeRestricted: boolean): Promise<Note> {
  const note = await requireVisibleNote(db, orgId, noteId, canSeeRestricted);
  if (!note.followUpDate) throw new StewardError('conflict', 'This note has no follow-up to complete', { hint: 'Set followUpDate with people_update_note first.' });
  if (note.followUpCompleted) throw new StewardError('conflict', 'This follow-up is already completed');
  const rows = await queryRows<NoteRow>(db, 'UPDATE notes SET follow_up_completed = true, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *', [orgId, noteId]);
  return toNote(rows[0]);
}

export async function listNoteFollowUps(
  db: Queryable, orgId: string, canSeeRestricted: boolean, filter: { status: 'open' | 'completed' | 'all'; dueBefore?: string; limit: number },
) {
  const rows = await queryRows<NoteRow & { first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db, `
    SELECT n.*, c.first_name, c.last_name, c.preferred_name, c.email
    FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.deleted_at IS NULL
    WHERE n.org_id = $1 AND n.follow_up_date IS NOT NULL AND ${visibleNoteSql('n', canSeeRestricted)}
      AND ($2 = 'all' OR ($2 = 'open' AND NOT n.follow_up_completed) OR ($2 = 'completed' AND n.follow_up_completed))
      AND ($3::date IS NULL OR n.follow_up_date <= $3::date)
    ORDER BY n.follow_up_date, n.created_at LIMIT $4`, [orgId, filter.status, filter.dueBefore ?? null, filter.limit]);
  return rows.map((row) => ({ ...toNote(row), contactName: displayNameOf(row) }));
}
