import { StewardError } from '../../core/errors';
import { queryRows, type Queryable } from '../../db/pool';
import type { OrgSettings } from '../tool';
import { lockContactsForUpdate, updateContact, type ContactWrite } from './contacts';
import { bulkWhatsappOptedIn } from './extension-points';
import type { Contact } from './schemas';

export const MAX_BULK_UPDATE = 50;

/** Applies every entry or none: the caller's transaction rolls back on the first bad one, whose position the error names. */
export async function bulkUpdateContacts(
  db: Queryable, org: OrgSettings, entries: Array<{ contactId: string } & ContactWrite>,
): Promise<Array<{ contact: Contact; changed: string[] }>> {
  const seen = new Set<string>();
  for (const [index, { contactId }] of entries.entries()) {
    if (seen.has(contactId)) {
      throw new StewardError('validation_failed', `entries[${index}]: contact ${contactId} appears twice`, { issues: [{ path: `entries.${index}.contactId`, message: 'duplicate contactId' }] });
    }
    seen.add(contactId);
  }
  // Every row first, in id order, as merges and suppressions take them: in the entries' own order, two
  // writes naming the same people in different orders could each hold one and wait for the other.
  await lockContactsForUpdate(db, org.id, [...seen]);
  const results = [];
  for (const [index, { contactId, ...fields }] of entries.entries()) {
    try {
      results.push(await updateContact(db, org, contactId, fields));
    } catch (error) {
      if (error instanceof StewardError) {
        throw new StewardError(error.code, `entries[${index}] (contact ${contactId}): ${error.message}; nothing was changed`, {
          hint: error.hint,
          issues: (error.issues ?? [{ path: '', message: error.message }]).map((issue) => ({ path: `entries.${index}${issue.path ? `.${issue.path}` : ''}`, message: issue.message })),
          details: { entryIndex: index, contactId },
        });
      }
      throw error;
    }
  }
  return results;
}

/** Opts contacts in to WhatsApp; only contacts with a phone number can be opted in. */
export async function bulkOptInWhatsapp(db: Queryable, orgId: string, target: { contactIds?: string[]; allWithPhone?: boolean }) {
  const rows = await queryRows<{ id: string; has_phone: boolean }>(db, `
    SELECT id, (phone IS NOT NULL AND phone <> '') AS has_phone FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL AND (${target.allWithPhone ? "phone IS NOT NULL AND phone <> ''" : 'id = ANY($2::uuid[])'})`,
    target.allWithPhone ? [orgId] : [orgId, target.contactIds ?? []]);
  const found = new Set(rows.map((row) => row.id));
  const notFound = (target.contactIds ?? []).filter((id) => !found.has(id));
  const eligible = rows.filter((row) => row.has_phone).map((row) => row.id);
  const optedIn = eligible.length === 0 ? [] : await queryRows<{ id: string }>(db,
    'UPDATE contacts SET whatsapp_consent = true, updated_at = now() WHERE org_id = $1 AND id = ANY($2::uuid[]) AND NOT whatsapp_consent RETURNING id',
    [orgId, eligible]);
  // Consent evidence lives in the channels module; the flag is its projection.
  await bulkWhatsappOptedIn(db, orgId, optedIn.map((row) => row.id));
  const updated = optedIn.length;
  return {
    optedIn: updated,
    alreadyOptedIn: eligible.length - updated,
    skippedNoPhone: rows.filter((row) => !row.has_phone).map((row) => row.id),
    notFound,
  };
}
