import { queryRows, type Queryable } from '../../../db/pool';
import type { RowOf } from '../../kit';
import { displayNameOf } from '../../people/api';
import type { GivingGiver } from '../models/givers';
import { normalisePostcode, type DonorDetails } from './rules';

export interface Donor extends DonorDetails {
  contactId: string;
  displayName: string;
}

/** The contact's columns from people's published view (people_directory), the giving record's from its model. */
type DonorRow = Pick<RowOf<GivingGiver>, 'title' | 'house_name_or_number' | 'address_line' | 'postcode'> & {
  contact_id: string;
  first_name: string | null;
  last_name: string | null;
  preferred_name: string | null;
  email: string | null;
  prefix: string | null;
  address_line1: string | null;
  address_postcode: string | null;
};

/** A house number at the start of an address line ("12 High Street" → "12", "12a Mill Lane" → "12a"). */
function leadingHouseNumber(line: string | null | undefined): string | null {
  const match = /^\s*(\d+[A-Za-z]?)\b/.exec(line ?? '');
  return match ? match[1] : null;
}

/**
 * What a claim line says about each giver: the giving record's Gift Aid details first (title,
 * house name or number, postcode), the contact's own (prefix, address) where those are blank.
 * One statement for every giver of a claim (a claim can hold thousands), joining the people
 * module's published view of live contacts (people_directory); the display name is people's
 * own rule (displayNameOf). A deleted or missing contact has no entry.
 */
export async function donorsOf(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<Map<string, Donor>> {
  if (contactIds.length === 0) return new Map();
  const rows = await queryRows<DonorRow>(db, `SELECT c.id AS contact_id, c.first_name, c.last_name, c.preferred_name, c.email, c.prefix,
      c.address_line1, c.address_postcode, g.title, g.house_name_or_number, g.address_line, g.postcode
    FROM people_directory c LEFT JOIN giving_givers g ON g.contact_id = c.id AND g.org_id = c.org_id
    WHERE c.org_id = $1 AND c.id = ANY($2::uuid[])`, [orgId, contactIds]);
  const donors = new Map<string, Donor>();
  for (const row of rows) {
    const postcode = row.postcode ?? row.address_postcode;
    donors.set(row.contact_id, {
      contactId: row.contact_id,
      displayName: displayNameOf(row),
      title: row.title ?? row.prefix,
      firstName: row.first_name,
      lastName: row.last_name,
      houseNameOrNumber: row.house_name_or_number ?? leadingHouseNumber(row.address_line) ?? leadingHouseNumber(row.address_line1),
      postcode: normalisePostcode(postcode) ?? postcode ?? null,
    });
  }
  return donors;
}
