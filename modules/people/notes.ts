import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import type { Transaction } from 'sequelize';
import type { Queryable } from '../../db/pool';
import { sequelize, withModels } from '../../db/sequelize';
import type { OrgSettings } from '../tool';
import { displayNameOf, requireContact } from './contacts';
import { parseOrgDate } from './dates';
import { Note as NoteModel, TimelineEntry } from './models';
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

/** The wire shape of a stored note: the columns the tools promise, timestamps as ISO strings. */
function noteView(note: NoteModel): Note {
  return {
    id: note.id, contactId: note.contactId, content: note.content, privacy: note.privacy as Note['privacy'],
    confidentialityLevel: note.confidentialityLevel as Note['confidentialityLevel'], followUpDate: note.followUpDate,
    followUpCompleted: note.followUpCompleted, authorUserId: note.authorUserId,
    createdAt: note.createdAt.toISOString(), updatedAt: note.updatedAt.toISOString(),
  };
}

/**
 * Reads through visibleNoteSql stay SQL, so the restricted-note rule keeps its one definition;
 * the rows still come back as Note models. `sql` selects `n.*` and may add columns of its own.
 */
function selectNotes(transaction: Transaction, sql: string, bind: unknown[]): Promise<NoteModel[]> {
  return sequelize.query(sql, { bind, transaction, model: NoteModel, mapToModel: true });
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
  const note = await withModels(db, (transaction) => NoteModel.create({
    id: randomUUID(), orgId: org.id, contactId: input.contactId, authorUserId, content: input.content,
    privacy: input.privacy, confidentialityLevel: input.confidentialityLevel, followUpDate: followUp,
  }, { transaction }));
  return noteView(note);
}

export async function listNotes(db: Queryable, orgId: string, contactId: string, canSeeRestricted: boolean, limit: number): Promise<Note[]> {
  await requireContact(db, orgId, contactId);
  const notes = await withModels(db, (transaction) => selectNotes(transaction, `
    SELECT n.* FROM notes n WHERE n.org_id = $1 AND n.contact_id = $2 AND ${visibleNoteSql('n', canSeeRestricted)}
    ORDER BY n.created_at DESC, n.id DESC LIMIT $3`, [orgId, contactId, limit]));
  return notes.map(noteView);
}

/** How a note shows on the care timeline: its opening words. */
export function noteTimelineSummary(content: string): string {
  const oneLine = content.replace(/\s+/g, ' ').trim();
  return oneLine.length > 140 ? `${oneLine.slice(0, 137)}...` : oneLine;
}

/** A note the caller may see; restricted notes behave as missing for callers without safeguarding. */
export async function requireVisibleNote(db: Queryable, orgId: string, noteId: string, canSeeRestricted: boolean): Promise<Note> {
  const [note] = await withModels(db, (transaction) => selectNotes(transaction, `
    SELECT n.* FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.deleted_at IS NULL
    WHERE n.org_id = $1 AND n.id = $2 AND ${visibleNoteSql('n', canSeeRestricted)}`, [orgId, noteId]));
  if (!note) throw new StewardError('not_found', `Note ${noteId} was not found`, { hint: 'people_list_notes lists a contact\'s notes.' });
  return noteView(note);
}

export async function updateNote(
  db: Queryable, org: OrgSettings, canSeeRestricted: boolean,
  input: { noteId: string; content?: string; privacy?: Note['privacy']; confidentialityLevel?: Note['confidentialityLevel']; followUpDate?: string | null },
): Promise<{ note: Note; changed: string[] }> {
  await requireVisibleNote(db, org.id, input.noteId, canSeeRestricted);
  if (input.content !== undefined) assertNoteMentionsNamesNotIds(input.content);
  const followUp = typeof input.followUpDate === 'string' ? parseOrgDate(input.followUpDate, org.dateFormat, 'followUpDate') : input.followUpDate;
  // Each field given changes (a null followUpDate clears it); `changed` names them in this order.
  const changes: Partial<Pick<NoteModel, 'content' | 'privacy' | 'confidentialityLevel' | 'followUpDate' | 'followUpCompleted'>> = {};
  if (input.content !== undefined) changes.content = input.content;
  if (input.privacy !== undefined) changes.privacy = input.privacy;
  if (input.confidentialityLevel !== undefined) changes.confidentialityLevel = input.confidentialityLevel;
  if (followUp !== undefined) changes.followUpDate = followUp;
  const changed = Object.keys(changes);
  if (changed.length === 0) throw new StewardError('validation_failed', 'Nothing to update: give content, privacy, confidentialityLevel or followUpDate');
  // A new or cleared follow-up date starts a fresh follow-up. updated_at is the model's DEFAULT, the database's now().
  if (followUp !== undefined) changes.followUpCompleted = false;
  const [, [note]] = await withModels(db, (transaction) => NoteModel.update(changes, {
    where: { orgId: org.id, id: input.noteId }, returning: true, transaction,
  }));
  return { note: noteView(note), changed };
}

/** Deletes a note; the caller's timeline sync leaves a content-free note_removed entry in its place. */
export async function removeNote(db: Queryable, orgId: string, noteId: string, canSeeRestricted: boolean): Promise<Note> {
  const note = await requireVisibleNote(db, orgId, noteId, canSeeRestricted);
  await withModels(db, async (transaction) => {
    await TimelineEntry.destroy({ where: { orgId, sourceKind: 'note', sourceId: noteId }, transaction });
    await NoteModel.destroy({ where: { orgId, id: noteId }, transaction });
  });
  return note;
}

export async function completeNoteFollowUp(db: Queryable, orgId: string, noteId: string, canSeeRestricted: boolean): Promise<Note> {
  const note = await requireVisibleNote(db, orgId, noteId, canSeeRestricted);
  if (!note.followUpDate) throw new StewardError('conflict', 'This note has no follow-up to complete', { hint: 'Set followUpDate with people_update_note first.' });
  if (note.followUpCompleted) throw new StewardError('conflict', 'This follow-up is already completed');
  const [, [completed]] = await withModels(db, (transaction) => NoteModel.update({ followUpCompleted: true }, {
    where: { orgId, id: noteId }, returning: true, transaction,
  }));
  return noteView(completed);
}

export async function listNoteFollowUps(
  db: Queryable, orgId: string, canSeeRestricted: boolean, filter: { status: 'open' | 'completed' | 'all'; dueBefore?: string; limit: number },
) {
  // The contact's name columns ride along on each Note model, under their column names.
  const notes = await withModels(db, (transaction) => selectNotes(transaction, `
    SELECT n.*, c.first_name AS contact_first_name, c.last_name AS contact_last_name,
      c.preferred_name AS contact_preferred_name, c.email AS contact_email
    FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.deleted_at IS NULL
    WHERE n.org_id = $1 AND n.follow_up_date IS NOT NULL AND ${visibleNoteSql('n', canSeeRestricted)}
      AND ($2 = 'all' OR ($2 = 'open' AND NOT n.follow_up_completed) OR ($2 = 'completed' AND n.follow_up_completed))
      AND ($3::date IS NULL OR n.follow_up_date <= $3::date)
    ORDER BY n.follow_up_date, n.created_at LIMIT $4`, [orgId, filter.status, filter.dueBefore ?? null, filter.limit]));
  return notes.map((note) => {
    const name = (column: string) => note.get(`contact_${column}`) as string | null;
    const contactName = displayNameOf({ first_name: name('first_name'), last_name: name('last_name'), preferred_name: name('preferred_name'), email: name('email') });
    return { ...noteView(note), contactName };
  });
}
