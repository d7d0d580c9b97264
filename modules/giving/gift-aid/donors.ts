import { queryRows, type Queryable } from '../../../db/pool';
import { getContact } from '../../people/contacts';
import { normalisePostcode, type DonorDetails } from './rules';

export interface Donor extends DonorDetails {
  contactId: string;
  displayName: string;
}

interface GiverRow {
  contact_id: string;
  title: string | null;
  house_name_or_number: string | null;
  address_line: string | null;
  postcode: string | null;
}

/** A house number at the start of an address line ("12 High Street" → "12", "12a Mill Lane" → "12a"). */
function leadingHouseNumber(line: string | null | undefined): string | null {
  const match = /^\s*(\d+[A-Za-z]?)\b/.exec(line ?? '');
  return match ? match[1] : null;
}

/**
 * What a claim line says about each giver: the giving record's Gift Aid details first (title,
 * house name or number, postcode), the contact's own (prefix, address) where those are blank.
 * Names come from the people module's service. A contact that no longer exists has no entry.
 */
export async function donorsOf(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<Map<string, Donor>> {
  const givers = new Map((await queryRows<GiverRow>(db, `SELECT contact_id, title, house_name_or_number, address_line, postcode
    FROM giving_givers WHERE org_id = $1 AND contact_id = ANY($2::uuid[])`, [orgId, contactIds])).map((row) => [row.contact_id, row]));
  const donors = new Map<string, Donor>();
  for (const contactId of contactIds) {
    const contact = await getContact(db, orgId, contactId);
    if (!contact) continue;
    const giver = givers.get(contactId);
    const postcode = giver?.postcode ?? contact.addressPostcode;
    donors.set(contactId, {
      contactId,
      displayName: contact.displayName,
      title: giver?.title ?? contact.prefix ?? null,
      firstName: contact.firstName,
      lastName: contact.lastName,
      houseNameOrNumber: giver?.house_name_or_number ?? leadingHouseNumber(giver?.address_line) ?? leadingHouseNumber(contact.addressLine1),
      postcode: normalisePostcode(postcode) ?? postcode ?? null,
    });
  }
  return donors;
}
