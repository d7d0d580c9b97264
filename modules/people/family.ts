import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryRows, type Queryable } from '../../db/pool';
import { displayNameOf, requireContact } from './contacts';
import { inverseLabel, sharesHousehold, type Gender } from './family-labels';

export interface FamilyLink {
  contactId: string;
  relatedContactId: string;
  relationship: string;
}

/** Puts both contacts, and everyone already in either household, into one household. */
async function joinHouseholds(db: Queryable, orgId: string, a: { id: string; familyId: string | null }, b: { id: string; familyId: string | null }): Promise<string> {
  const familyId = a.familyId ?? b.familyId ?? randomUUID();
  await db.query(`
    UPDATE contacts SET family_id = $2, updated_at = now()
    WHERE org_id = $1 AND (id = ANY($3::uuid[]) OR family_id = ANY($4::uuid[]))`,
    [orgId, familyId, [a.id, b.id], [a.familyId, b.familyId].filter(Boolean)]);
  return familyId;
}

async function upsertLink(db: Queryable, orgId: string, link: FamilyLink): Promise<void> {
  await db.query(`
    INSERT INTO family_relationships (org_id, contact_id, related_contact_id, relationship) VALUES ($1, $2, $3, $4)
    ON CONFLICT (contact_id, related_contact_id) DO UPDATE SET relationship = EXCLUDED.relationship`,
    [orgId, link.contactId, link.relatedContactId, link.relationship]);
}

/** Links two contacts both ways; the same link twice changes nothing. */
export async function addFamilyRelationship(
  db: Queryable, orgId: string, input: { contactId: string; relatedContactId: string; relationship: string; sameHousehold?: boolean },
): Promise<{ link: FamilyLink; inverse: FamilyLink; familyId: string | null }> {
  if (input.contactId === input.relatedContactId) {
    throw new StewardError('validation_failed', 'A contact cannot be related to themself', { issues: [{ path: 'relatedContactId', message: 'must differ from contactId' }] });
  }
  const contact = await requireContact(db, orgId, input.contactId);
  const related = await requireContact(db, orgId, input.relatedContactId);
  const relationship = input.relationship.toLowerCase();
  const link = { contactId: contact.id, relatedContactId: related.id, relationship };
  const inverse = { contactId: related.id, relatedContactId: contact.id, relationship: inverseLabel(relationship, contact.gender as Gender) };
  await upsertLink(db, orgId, link);
  await upsertLink(db, orgId, inverse);
  const familyId = input.sameHousehold ?? sharesHousehold(relationship)
    ? await joinHouseholds(db, orgId, contact, related)
    : contact.familyId;
  return { link, inverse, familyId };
}

export async function removeFamilyRelationship(db: Queryable, orgId: string, contactId: string, relatedContactId: string): Promise<number> {
  await requireContact(db, orgId, contactId);
  const result = await db.query(`
    DELETE FROM family_relationships WHERE org_id = $1
      AND ((contact_id = $2 AND related_contact_id = $3) OR (contact_id = $3 AND related_contact_id = $2))`,
    [orgId, contactId, relatedContactId]);
  if ((result.rowCount ?? 0) === 0) {
    throw new StewardError('not_found', 'These contacts are not linked', { hint: 'people_list_family shows existing links.' });
  }
  return result.rowCount ?? 0;
}

export async function listFamily(db: Queryable, orgId: string, contactId: string) {
  await requireContact(db, orgId, contactId);
  const rows = await queryRows<{ related_contact_id: string; relationship: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db, `
    SELECT f.related_contact_id, f.relationship, c.first_name, c.last_name, c.preferred_name, c.email
    FROM family_relationships f JOIN contacts c ON c.id = f.related_contact_id AND c.deleted_at IS NULL
    WHERE f.org_id = $1 AND f.contact_id = $2 ORDER BY f.relationship, c.last_name, c.first_name`, [orgId, contactId]);
  return rows.map((row) => ({ contactId: row.related_contact_id, displayName: displayNameOf(row), relationship: row.relationship }));
}

export async function listHousehold(db: Queryable, orgId: string, contactId: string) {
  const contact = await requireContact(db, orgId, contactId);
  if (!contact.familyId) return { familyId: null, members: [{ contactId: contact.id, displayName: contact.displayName }] };
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db, `
    SELECT id, first_name, last_name, preferred_name, email FROM contacts
    WHERE org_id = $1 AND family_id = $2 AND deleted_at IS NULL ORDER BY date_of_birth NULLS LAST, first_name`, [orgId, contact.familyId]);
  return { familyId: contact.familyId, members: rows.map((row) => ({ contactId: row.id, displayName: displayNameOf(row) })) };
}
