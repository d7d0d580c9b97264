import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { Op } from 'sequelize';
import { queryRows, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import { displayNameOf, requireContact } from './contacts';
import { inverseLabel, sharesHousehold, type Gender } from './family-labels';
import { Contact, FamilyRelationship } from './models';

export interface FamilyLink {
  contactId: string;
  relatedContactId: string;
  relationship: string;
}

/** Puts both contacts, and everyone already in either household, into one household. */
async function joinHouseholds(db: Queryable, orgId: string, a: { id: string; familyId: string | null }, b: { id: string; familyId: string | null }): Promise<string> {
  const familyId = a.familyId ?? b.familyId ?? randomUUID();
  const households = [a.familyId, b.familyId].filter((id): id is string => id !== null);
  // paranoid: false, because soft-deleted members of either household move with it, as they always have.
  await withModels(db, (transaction) => Contact.update({ familyId }, {
    where: { orgId, [Op.or]: [{ id: [a.id, b.id] }, { familyId: households }] }, paranoid: false, transaction,
  }));
  return familyId;
}

// Insert or relabel in one statement: SQL.
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
  const removed = await withModels(db, (transaction) => FamilyRelationship.destroy({
    where: { orgId, [Op.or]: [{ contactId, relatedContactId }, { contactId: relatedContactId, relatedContactId: contactId }] },
    transaction,
  }));
  if (removed === 0) {
    throw new StewardError('not_found', 'These contacts are not linked', { hint: 'people_list_family shows existing links.' });
  }
  return removed;
}

// Each link with its relative's name, live relatives only: a join, so SQL.
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
  // Contact is paranoid, so the finder sees live contacts only.
  const members = await withModels(db, (transaction) => Contact.findAll({
    attributes: ['id', 'firstName', 'lastName', 'preferredName', 'email'],
    where: { orgId, familyId: contact.familyId },
    order: [['dateOfBirth', 'ASC NULLS LAST'], ['firstName', 'ASC']],
    transaction,
  }));
  return {
    familyId: contact.familyId,
    members: members.map((member) => ({
      contactId: member.id,
      displayName: displayNameOf({ preferred_name: member.preferredName, first_name: member.firstName, last_name: member.lastName, email: member.email }),
    })),
  };
}
