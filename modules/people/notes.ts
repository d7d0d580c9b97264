import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryRows, type Queryable } from '../../db/pool';
import type { OrgSettings } from '../tool';
import { requireContact } from './contacts';
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
