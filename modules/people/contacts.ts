import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { fn } from 'sequelize';
import { namedStatement, queryNamed, queryOne, queryRows, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import type { OrgSettings } from '../tool';
import { validateCustomFields } from './custom-fields';
import { parseOrgDate } from './dates';
import { todayUtc } from '../metrics';
import type { AddressDerivation } from './postcodes';
import { Contact as ContactModel, ContactStatusEvent } from './models';
import type { CONTACT_STATUSES, Contact, ContactSummary, contactFields } from './schemas';
import { openWelcomeFollowUp } from './welcome-desk';

// Kept here too: other modules and files name it as a contacts service.
export { displayNameOf } from './display-name';
import { displayNameOf } from './display-name';
import { eraseDeclaredReferences } from './contact-refs';
import { escapeLike } from '../../db/sql';
import { forgetStoredMentions } from '../platform/api';
import { contactConsentWritten } from './extension-points';

const DATE_FIELDS = ['dateOfBirth', 'baptismDate', 'membershipDate', 'anniversaryDate'] as const;

/** The fields a caller can write: the tools' contactFields, each an attribute of the Contact model under the same name. */
export type ContactWrite = Partial<Record<keyof typeof contactFields, unknown>>;

// A contact with its tag names, one statement. The columns are named rather than `c.*`: a statement
// prepared on a pooled connection (CONTACT_BY_ID) keeps its result's shape, and a column added by a
// later migration would otherwise fail it ("cached plan must not change result type").
const SELECT_CONTACT = `
  SELECT c.id, c.prefix, c.first_name, c.last_name, c.preferred_name, c.email, c.phone, c.date_of_birth, c.gender,
         c.address_line1, c.address_line2, c.address_city, c.address_county, c.address_postcode, c.address_country,
         c.status, c.membership_status, c.family_id, c.whatsapp_consent, c.baptism_date, c.membership_date,
         c.anniversary_date, c.custom_fields, c.created_at, c.updated_at,
         COALESCE((SELECT array_agg(t.name ORDER BY t.name) FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id
                   WHERE ct.contact_id = c.id AND t.org_id = c.org_id), '{}') AS tags
  FROM contacts c`;

/**
 * The read behind people_get_contact and every requireContact, the commonest statement a tool runs:
 * prepared once per connection, Postgres skips parsing and planning it (its tag subquery and the
 * row-level security policies included): 0.34 ms less of the server's CPU a read (bench/README.md).
 */
const CONTACT_BY_ID = namedStatement('people-contact-by-id', `${SELECT_CONTACT} WHERE c.org_id = $1 AND c.id = $2 AND c.deleted_at IS NULL`);

/** A contacts row as pg reads it (DATE columns stay 'YYYY-MM-DD' strings, see db/pool.ts), with its tag names. */
interface ContactRow {
  id: string; prefix: string | null; first_name: string | null; last_name: string | null; preferred_name: string | null;
  email: string | null; phone: string | null; date_of_birth: string | null; gender: string | null;
  address_line1: string | null; address_line2: string | null; address_city: string | null; address_county: string | null;
  address_postcode: string | null; address_country: string | null; status: string; membership_status: string | null;
  family_id: string | null; whatsapp_consent: boolean; baptism_date: string | null; membership_date: string | null;
  anniversary_date: string | null; custom_fields: Record<string, unknown> | null; tags: string[] | null; created_at: Date; updated_at: Date;
}

/**
 * Read as plain rows, not Contact model instances: every contact read (a single read, a page, a
 * search) went through a model build of some thirty attributes per row, about 0.2 ms of CPU for
 * one contact (bench/README.md). Writes still go through the model.
 */
function selectContacts(db: Queryable, rest: string, bind: unknown[]): Promise<ContactRow[]> {
  return queryRows<ContactRow>(db, `${SELECT_CONTACT} ${rest}`, bind);
}


function contactView(row: ContactRow): Contact {
  return {
    id: row.id,
    displayName: displayNameOf({ preferred_name: row.preferred_name, first_name: row.first_name, last_name: row.last_name, email: row.email }),
    prefix: row.prefix, firstName: row.first_name, lastName: row.last_name, preferredName: row.preferred_name,
    email: row.email, phone: row.phone, dateOfBirth: row.date_of_birth, gender: row.gender,
    addressLine1: row.address_line1, addressLine2: row.address_line2, addressCity: row.address_city,
    addressCounty: row.address_county, addressPostcode: row.address_postcode, addressCountry: row.address_country,
    status: row.status as Contact['status'], membershipStatus: row.membership_status as Contact['membershipStatus'], familyId: row.family_id,
    whatsappConsent: row.whatsapp_consent, baptismDate: row.baptism_date, membershipDate: row.membership_date,
    // Custom field values were checked against their definitions when written.
    anniversaryDate: row.anniversary_date, customFields: (row.custom_fields ?? {}) as Contact['customFields'],
    tags: row.tags ?? [],
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

export function toSummary(contact: Contact): ContactSummary {
  return {
    id: contact.id, displayName: contact.displayName, email: contact.email, phone: contact.phone,
    status: contact.status, membershipStatus: contact.membershipStatus, tags: contact.tags,
  };
}

/** Normalises dates to ISO in the org's format and checks that a birthday is not in the future. */
function normaliseDates(fields: ContactWrite, org: OrgSettings): ContactWrite {
  const out = { ...fields };
  for (const field of DATE_FIELDS) {
    const value = out[field];
    if (typeof value === 'string') out[field] = parseOrgDate(value, org.dateFormat, field);
  }
  if (typeof out.dateOfBirth === 'string' && out.dateOfBirth > todayUtc()) {
    throw new StewardError('validation_failed', 'dateOfBirth is in the future', { issues: [{ path: 'dateOfBirth', message: 'must not be in the future' }] });
  }
  if (typeof out.email === 'string') out.email = out.email.toLowerCase();
  return out;
}

function requireIdentity(contact: { email?: unknown; firstName?: unknown; lastName?: unknown }): void {
  const hasName = Boolean(contact.firstName) && Boolean(contact.lastName);
  if (!contact.email && !hasName) {
    throw new StewardError('validation_failed', 'A contact needs an email, or a first and a last name', {
      issues: [{ path: 'email', message: 'required unless firstName and lastName are given' }],
      hint: 'Give email, or both firstName and lastName.',
    });
  }
}

export async function getContact(db: Queryable, orgId: string, contactId: string): Promise<Contact | undefined> {
  const [contact] = await queryNamed<ContactRow>(db, CONTACT_BY_ID, [orgId, contactId]);
  return contact && contactView(contact);
}

export async function requireContact(db: Queryable, orgId: string, contactId: string): Promise<Contact> {
  const contact = await getContact(db, orgId, contactId);
  if (!contact) {
    throw new StewardError('not_found', `Contact ${contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  }
  return contact;
}

function digitsOf(phone: string): string {
  return phone.replace(/\D/g, '').slice(-10);
}

/** Live contacts that are probably the same person: same email, same phone digits, or same full name. SQL: every match compares through functions. */
export async function findLikelyDuplicates(
  db: Queryable, orgId: string, probe: { email?: unknown; phone?: unknown; firstName?: unknown; lastName?: unknown }, excludeId?: string,
): Promise<Array<{ id: string; displayName: string; email: string | null; matchedOn: Array<'email' | 'phone' | 'name'> }>> {
  const email = typeof probe.email === 'string' ? probe.email.toLowerCase() : null;
  const phone = typeof probe.phone === 'string' && digitsOf(probe.phone).length >= 6 ? digitsOf(probe.phone) : null;
  const first = typeof probe.firstName === 'string' ? probe.firstName.toLowerCase() : null;
  const last = typeof probe.lastName === 'string' ? probe.lastName.toLowerCase() : null;
  if (!email && !phone && !(first && last)) return [];
  const rows = await queryRows<{
    id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null;
    m_email: boolean; m_phone: boolean; m_name: boolean;
  }>(db, `
    SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email,
      ($2::text IS NOT NULL AND lower(c.email) = $2) AS m_email,
      ($3::text IS NOT NULL AND right(regexp_replace(coalesce(c.phone, ''), '\\D', '', 'g'), 10) = $3) AS m_phone,
      ($4::text IS NOT NULL AND lower(c.first_name) = $4 AND lower(c.last_name) = $5) AS m_name
    FROM contacts c
    WHERE c.org_id = $1 AND c.deleted_at IS NULL AND ($6::uuid IS NULL OR c.id <> $6)
      AND ((lower(c.email) = $2)
        OR ($3::text IS NOT NULL AND right(regexp_replace(coalesce(c.phone, ''), '\\D', '', 'g'), 10) = $3)
        OR (lower(c.first_name) = $4 AND lower(c.last_name) = $5))
    LIMIT 10`, [orgId, email, phone, first, last, excludeId ?? null]);
  return rows.map((row) => ({
    id: row.id,
    displayName: displayNameOf(row),
    email: row.email,
    matchedOn: [row.m_email && 'email', row.m_phone && 'phone', row.m_name && 'name'].filter(Boolean) as Array<'email' | 'phone' | 'name'>,
  }));
}

/** Fills city, county and country from a derived postcode address. */
function applyDerivation(values: ContactWrite, derivation: AddressDerivation | undefined): ContactWrite {
  if (!derivation?.derived || !derivation.address) return values;
  return {
    ...values,
    addressPostcode: derivation.address.postcode,
    addressCity: derivation.address.city ?? undefined,
    addressCounty: derivation.address.county ?? undefined,
    addressCountry: derivation.address.country ?? undefined,
  };
}

async function recordStatusChange(db: Queryable, orgId: string, contactId: string, from: string | null, to: string): Promise<void> {
  if (from === to) return;
  await withModels(db, (transaction) => ContactStatusEvent.create({ orgId, contactId, fromStatus: from, toStatus: to }, { transaction }));
}

export async function createContact(db: Queryable, org: OrgSettings, fields: ContactWrite, derivation?: AddressDerivation): Promise<Contact> {
  requireIdentity(fields);
  if (fields.customFields) await validateCustomFields(db, org.id, fields.customFields as Record<string, unknown>);
  const values = applyDerivation(normaliseDates(fields, org), derivation);
  const id = randomUUID();
  // Only the fields given are written; the others take the table's defaults. Values were checked by the tool's schema.
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  await withModels(db, (transaction) => ContactModel.create({ ...given, id, orgId: org.id } as ContactModel['_creationAttributes'], { transaction }));
  const contact = (await getContact(db, org.id, id))!;
  await recordStatusChange(db, org.id, id, null, contact.status);
  // Consent lives in the channels module's evidence records; these fields are kept as its projection.
  await contactConsentWritten(db, org.id, id, null, contact, null);
  await openWelcomeFollowUp(db, org.id, contact, null);
  return contact;
}

/** Changes only the fields given; `null` clears an optional field. */
export async function updateContact(
  db: Queryable, org: OrgSettings, contactId: string, fields: ContactWrite, derivation?: AddressDerivation,
): Promise<{ contact: Contact; changed: string[] }> {
  // Locked first, so concurrent updates record each consent change against the status it really replaced.
  // paranoid: false, as the lock always took the row soft-deleted or not (requireContact then refuses a deleted one).
  await withModels(db, (transaction) => ContactModel.findOne({ attributes: ['id'], where: { orgId: org.id, id: contactId }, paranoid: false, lock: true, transaction }));
  const before = await requireContact(db, org.id, contactId);
  if (fields.customFields) await validateCustomFields(db, org.id, fields.customFields as Record<string, unknown>);
  const values = applyDerivation(normaliseDates(fields, org), derivation);
  const changed = (Object.keys(values) as Array<keyof ContactWrite>).filter((field) => values[field] !== undefined);
  if (changed.length === 0) {
    throw new StewardError('validation_failed', 'Nothing to update: give at least one field besides contactId');
  }
  const merged = { ...before, ...values };
  requireIdentity(merged);
  const changes: Record<string, unknown> = Object.fromEntries(changed.map((field) => [field, values[field]]));
  if (changes.customFields !== undefined) {
    // Custom fields merge key by key (a null value removes that key), so one update never wipes the others; null clears them all.
    // Merged from `before`, read under the row lock taken above, so no concurrent write can come between.
    const merged = { ...before.customFields, ...(changes.customFields as Record<string, unknown> | null ?? {}) };
    changes.customFields = changes.customFields === null ? {} : Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null));
  }
  // Contact is paranoid, so a deleted contact is not written; updated_at is the model's DEFAULT, the database's now().
  await withModels(db, (transaction) => ContactModel.update(changes, { where: { orgId: org.id, id: contactId }, transaction }));
  const contact = await requireContact(db, org.id, contactId);
  await recordStatusChange(db, org.id, contactId, before.status, contact.status);
  await contactConsentWritten(db, org.id, contactId, before, contact, null);
  await openWelcomeFollowUp(db, org.id, contact, before.membershipStatus);
  return { contact, changed };
}

/**
 * Locks contact rows (FOR UPDATE, in id order) before a change to what a send's check reads: the check
 * reads the contact FOR SHARE and then takes the channels module's address and consent locks, so a
 * writer that will update the contact must take its row first, or the two can deadlock.
 */
export async function lockContactsForUpdate(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<void> {
  if (contactIds.length === 0) return;
  await db.query('SELECT id FROM contacts WHERE org_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE', [orgId, [...contactIds]]);
}

/**
 * Writes the contact's consent fields as the channels module computed them from its consent and
 * suppression records (it owns consent; these fields are a projection kept in step for lists,
 * segments and reports). Records the status change like any other; a deleted contact is left alone.
 */
export async function setConsentProjection(
  db: Queryable, orgId: string, contactId: string, projection: { status?: (typeof CONTACT_STATUSES)[number]; whatsappConsent?: boolean },
): Promise<void> {
  await withModels(db, (transaction) => ContactModel.findOne({ attributes: ['id'], where: { orgId, id: contactId }, lock: true, transaction }));
  const before = await getContact(db, orgId, contactId);
  if (!before) return;
  const changes = Object.fromEntries(Object.entries(projection).filter(([field, value]) => value !== undefined && value !== before[field as keyof Contact]));
  if (Object.keys(changes).length === 0) return;
  await withModels(db, (transaction) => ContactModel.update(changes, { where: { orgId, id: contactId }, transaction }));
  if (projection.status) await recordStatusChange(db, orgId, contactId, before.status, projection.status);
}

export async function deleteContact(db: Queryable, orgId: string, contactId: string, permanent: boolean): Promise<{ erasedNotes: number }> {
  // Erasure reaches a contact already soft-deleted; a soft delete only a live one.
  const found = await withModels(db, (transaction) => ContactModel.count({ where: { orgId, id: contactId }, paranoid: !permanent, transaction }));
  if (!found) throw new StewardError('not_found', `Contact ${contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  if (!permanent) {
    // Not destroy(): it would stamp deleted_at from this process's clock and leave updated_at; both are the database's now().
    await withModels(db, (transaction) => ContactModel.update({ deletedAt: fn('now') }, { where: { orgId, id: contactId }, paranoid: false, transaction }));
    return { erasedNotes: 0 };
  }
  // Erasure is SQL throughout: it reaches every module's tables and stored results.
  // Duplicates merged into this person are soft-deleted copies of the same details: they go too.
  const merged = await queryRows<{ merged_contact_id: string }>(db,
    'SELECT merged_contact_id FROM contact_merges WHERE org_id = $1 AND kept_contact_id = $2', [orgId, contactId]);
  let erasedNotes = 0;
  for (const id of [contactId, ...merged.map((m) => m.merged_contact_id)]) erasedNotes += await eraseRecordsOf(db, orgId, id);
  return { erasedNotes };
}

/** Everything held about one contact id: the row, its notes, every module's declared references, stored write results and decided proposals naming it. */
async function eraseRecordsOf(db: Queryable, orgId: string, contactId: string): Promise<number> {
  const notes = await db.query('DELETE FROM notes WHERE org_id = $1 AND contact_id = $2', [orgId, contactId]);
  await eraseDeclaredReferences(db, orgId, contactId);
  await db.query('DELETE FROM contacts WHERE org_id = $1 AND id = $2', [orgId, contactId]);
  // Stored write results and decided proposals naming this person would otherwise outlive the erasure.
  await forgetStoredMentions(db, orgId, contactId);
  return notes.rowCount ?? 0;
}

export interface ContactFilters {
  status?: string;
  membershipStatus?: string;
  tag?: string;
}

/** Builds WHERE clauses for list filters; values are always parameters. */
function filterClauses(filters: ContactFilters, params: unknown[]): string[] {
  const clauses: string[] = [];
  if (filters.status) {
    params.push(filters.status);
    clauses.push(`c.status = $${params.length}`);
  }
  if (filters.membershipStatus) {
    params.push(filters.membershipStatus);
    clauses.push(`c.membership_status = $${params.length}`);
  }
  if (filters.tag) {
    params.push(filters.tag.toLowerCase());
    clauses.push(`EXISTS (SELECT 1 FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id AND t.org_id = c.org_id AND lower(t.name) = $${params.length})`);
  }
  return clauses;
}

export async function searchContacts(db: Queryable, orgId: string, query: string | undefined, filters: ContactFilters, limit: number): Promise<Contact[]> {
  const params: unknown[] = [orgId];
  const clauses = ['c.org_id = $1', 'c.deleted_at IS NULL', ...filterClauses(filters, params)];
  let rank = '';
  const words = (query ?? '').trim().toLowerCase().split(/\s+/).filter(Boolean).slice(0, 6);
  for (const word of words) {
    params.push(`%${escapeLike(word)}%`);
    const p = `$${params.length}`;
    clauses.push(`(lower(coalesce(c.first_name, '')) LIKE ${p} OR lower(coalesce(c.last_name, '')) LIKE ${p}
      OR lower(coalesce(c.preferred_name, '')) LIKE ${p} OR lower(coalesce(c.email, '')) LIKE ${p} OR coalesce(c.phone, '') LIKE ${p})`);
  }
  if (words.length > 0) {
    params.push(words.join(' '));
    const whole = `$${params.length}`;
    rank = `(CASE WHEN lower(c.email) = ${whole} THEN 3 ELSE 0 END
      + CASE WHEN lower(concat_ws(' ', c.first_name, c.last_name)) = ${whole} OR lower(concat_ws(' ', c.preferred_name, c.last_name)) = ${whole} THEN 2 ELSE 0 END
      + CASE WHEN lower(c.last_name) = ${whole} OR lower(c.first_name) = ${whole} THEN 1 ELSE 0 END)`;
  }
  params.push(limit);
  const contacts = await selectContacts(db, `WHERE ${clauses.join(' AND ')}
    ORDER BY ${rank ? `${rank} DESC, ` : ''}lower(c.last_name) NULLS LAST, lower(c.first_name) NULLS LAST, c.created_at DESC LIMIT $${params.length}`, params);
  return contacts.map(contactView);
}

/** The WHERE clause of live contacts matching the filters, with its parameters. */
function filteredWhere(orgId: string, filters: ContactFilters): { where: string; params: unknown[]; filtered: boolean } {
  const params: unknown[] = [orgId];
  const clauses = ['c.org_id = $1', 'c.deleted_at IS NULL', ...filterClauses(filters, params)];
  return { where: clauses.join(' AND '), params, filtered: clauses.length > 2 };
}

async function countWhere(db: Queryable, where: string, params: unknown[]): Promise<number> {
  return (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM contacts c WHERE ${where}`, params))?.n ?? 0;
}

/** A page of contacts, newest first; with filters, their total too unless `count` is false (a caller that counted already). */
export async function listContacts(
  db: Queryable, orgId: string, filters: ContactFilters, page: { limit: number; offset: number; count?: boolean },
): Promise<{ contacts: Contact[]; total?: number }> {
  const { where, params, filtered } = filteredWhere(orgId, filters);
  const total = filtered && page.count !== false ? await countWhere(db, where, params) : undefined;
  const contacts = await selectContacts(db, `WHERE ${where}
    ORDER BY c.created_at DESC, c.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, page.limit, page.offset]);
  return { contacts: contacts.map(contactView), total };
}

/** How many live contacts match the filters (an export's total, before it reads them page by page). */
export async function countFilteredContacts(db: Queryable, orgId: string, filters: ContactFilters): Promise<number> {
  const { where, params } = filteredWhere(orgId, filters);
  return countWhere(db, where, params);
}

/** The contacts allowance is a standing count: the live contacts the organisation holds now. */
export async function countLiveContacts(db: Queryable, orgId: string): Promise<number> {
  // Contact is paranoid: live contacts only.
  return withModels(db, (transaction) => ContactModel.count({ where: { orgId }, transaction }));
}

// A grouped count for reporting: SQL.
export async function countContacts(db: Queryable, orgId: string): Promise<{ total: number; byStatus: Record<string, number> }> {
  const rows = await queryRows<{ status: string; n: number }>(db,
    'SELECT status, count(*)::int AS n FROM contacts WHERE org_id = $1 AND deleted_at IS NULL GROUP BY status', [orgId]);
  const byStatus = Object.fromEntries(rows.map((row) => [row.status, row.n]));
  return { total: rows.reduce((sum, row) => sum + row.n, 0), byStatus };
}

/** Live contacts by Welcome Desk stage; contacts with no stage count as `unknown`. A grouped count: SQL. */
export async function countByMembershipStatus(db: Queryable, orgId: string): Promise<Record<string, number>> {
  const rows = await queryRows<{ stage: string; n: number }>(db, `
    SELECT COALESCE(membership_status, 'unknown') AS stage, count(*)::int AS n FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL GROUP BY 1`, [orgId]);
  return Object.fromEntries(rows.map((row) => [row.stage, row.n]));
}
