import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { decodeCursor, encodeCursor, notFound, type RowOf } from '../kit';
import { displayNameOf, requireContact } from '../people/api';
import type { ContactRef } from '../module';
import type { GivingGiver } from './models/givers';

export const giverSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid(),
  displayName: z.string(),
  giverReference: z.string(),
  title: z.string().nullable(),
  houseNameOrNumber: z.string().nullable(),
  addressLine: z.string().nullable(),
  town: z.string().nullable(),
  postcode: z.string().nullable(),
  jointContactId: z.uuid().nullable(),
  jointDisplayName: z.string().nullable(),
  bankAccountLast4: z.string().nullable().describe('Only the last four digits are ever stored'),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();
export type GiverView = z.infer<typeof giverSchema>;

/** Every giving_givers column but org_id, with the names of the giver and joint giver from people's published view. */
type GiverRow = Omit<RowOf<GivingGiver>, 'org_id'> & {
  preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null;
  joint_preferred_name: string | null; joint_first_name: string | null; joint_last_name: string | null; joint_email: string | null;
};

const GIVER_SELECT = `SELECT g.id, g.contact_id, g.giver_reference, g.title, g.house_name_or_number, g.address_line, g.town, g.postcode,
    g.joint_contact_id, g.bank_account_last4, g.created_at, g.updated_at,
    c.preferred_name, c.first_name, c.last_name, c.email,
    j.preferred_name AS joint_preferred_name, j.first_name AS joint_first_name, j.last_name AS joint_last_name, j.email AS joint_email
  FROM giving_givers g
  JOIN people_directory c ON c.id = g.contact_id
  LEFT JOIN people_directory j ON j.id = g.joint_contact_id`;

function giverView(row: GiverRow): GiverView {
  return {
    id: row.id, contactId: row.contact_id, displayName: displayNameOf(row), giverReference: row.giver_reference, title: row.title,
    houseNameOrNumber: row.house_name_or_number, addressLine: row.address_line, town: row.town, postcode: row.postcode,
    jointContactId: row.joint_contact_id,
    jointDisplayName: row.joint_contact_id && (row.joint_first_name || row.joint_last_name || row.joint_preferred_name || row.joint_email)
      ? displayNameOf({ preferred_name: row.joint_preferred_name, first_name: row.joint_first_name, last_name: row.joint_last_name, email: row.joint_email })
      : null,
    bankAccountLast4: row.bank_account_last4, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

/** A giver by their giver id or their contact id; another organisation's ids are missing. */
export async function findGiver(db: Queryable, orgId: string, by: { giverId?: string; contactId?: string }): Promise<GiverView | undefined> {
  const row = by.giverId
    ? await queryOne<GiverRow>(db, `${GIVER_SELECT} WHERE g.org_id = $1 AND g.id = $2`, [orgId, by.giverId])
    : await queryOne<GiverRow>(db, `${GIVER_SELECT} WHERE g.org_id = $1 AND g.contact_id = $2`, [orgId, by.contactId]);
  return row && giverView(row);
}

export async function requireGiver(db: Queryable, orgId: string, by: { giverId?: string; contactId?: string }): Promise<GiverView> {
  const giver = await findGiver(db, orgId, by);
  if (!giver) {
    throw by.giverId
      ? notFound('Giver', by.giverId, 'giving_upsert_giver records a contact\'s giving details.')
      : notFound('Giver for contact', by.contactId ?? '', 'giving_upsert_giver records a contact\'s giving details.');
  }
  return giver;
}

export interface GiverWrite {
  contactId: string;
  giverReference?: string;
  title?: string | null;
  houseNameOrNumber?: string | null;
  addressLine?: string | null;
  town?: string | null;
  postcode?: string | null;
  jointContactId?: string | null;
  /** A full account number is accepted only to keep its last four digits; the rest is never stored or logged. */
  bankAccountNumber?: string | null;
}

/** The last four digits of an account number, or a refusal naming the field; the number itself goes no further. */
export function lastFourDigits(accountNumber: string): string {
  const digits = accountNumber.replace(/[\s-]/g, '');
  if (!/^\d{4,34}$/.test(digits)) {
    throw new StewardError('validation_failed', 'bankAccountNumber must be 4 to 34 digits (spaces and dashes are ignored)', {
      issues: [{ path: 'bankAccountNumber', message: 'expected digits' }],
    });
  }
  return digits.slice(-4);
}

/** UK postcodes as Gift Aid writes them: upper case, one space before the inward code. */
export function normalisePostcode(postcode: string): string {
  const compact = postcode.replace(/\s+/g, '').toUpperCase();
  return compact.length > 3 ? `${compact.slice(0, -3)} ${compact.slice(-3)}` : compact;
}

/**
 * Records or changes a contact's giving details. A new giver without a reference gets one from
 * their contact id; fields left out keep their value, null clears them.
 */
export async function upsertGiver(db: Queryable, orgId: string, input: GiverWrite): Promise<{ giver: GiverView; created: boolean }> {
  await requireContact(db, orgId, input.contactId);
  if (input.jointContactId) {
    if (input.jointContactId === input.contactId) {
      throw new StewardError('validation_failed', 'A giver cannot be their own joint giver', { issues: [{ path: 'jointContactId', message: 'must differ from contactId' }] });
    }
    await requireContact(db, orgId, input.jointContactId);
  }
  const last4 = input.bankAccountNumber === undefined ? undefined : input.bankAccountNumber === null ? null : lastFourDigits(input.bankAccountNumber);
  const postcode = input.postcode === undefined || input.postcode === null ? input.postcode : normalisePostcode(input.postcode);
  const existing = await queryOne<{ id: string }>(db, 'SELECT id FROM giving_givers WHERE org_id = $1 AND contact_id = $2 FOR UPDATE', [orgId, input.contactId]);
  const set = (value: unknown) => value !== undefined;
  const values = [
    input.giverReference ?? null, set(input.title), input.title ?? null, set(input.houseNameOrNumber), input.houseNameOrNumber ?? null,
    set(input.addressLine), input.addressLine ?? null, set(input.town), input.town ?? null, set(postcode), postcode ?? null,
    set(input.jointContactId), input.jointContactId ?? null, set(last4), last4 ?? null,
  ];
  try {
    await db.query('SAVEPOINT giving_giver_write');
    if (existing) {
      await db.query(`UPDATE giving_givers SET
          giver_reference = COALESCE($3, giver_reference),
          title = CASE WHEN $4::boolean THEN $5 ELSE title END,
          house_name_or_number = CASE WHEN $6::boolean THEN $7 ELSE house_name_or_number END,
          address_line = CASE WHEN $8::boolean THEN $9 ELSE address_line END,
          town = CASE WHEN $10::boolean THEN $11 ELSE town END,
          postcode = CASE WHEN $12::boolean THEN $13 ELSE postcode END,
          joint_contact_id = CASE WHEN $14::boolean THEN $15::uuid ELSE joint_contact_id END,
          bank_account_last4 = CASE WHEN $16::boolean THEN $17 ELSE bank_account_last4 END,
          updated_at = now()
        WHERE org_id = $1 AND id = $2`, [orgId, existing.id, ...values]);
    } else {
      // Two first writes for one contact at once meet on UNIQUE (org_id, contact_id): the later one is refused as a conflict below.
      await db.query(`INSERT INTO giving_givers (id, org_id, contact_id, giver_reference, title, house_name_or_number, address_line, town, postcode,
          joint_contact_id, bank_account_last4)
        VALUES ($1, $2, $3, COALESCE($4, $5), $6, $7, $8, $9, $10, $11, $12)`, [
        randomUUID(), orgId, input.contactId, input.giverReference ?? null, `G-${input.contactId.slice(0, 8).toUpperCase()}`,
        input.title ?? null, input.houseNameOrNumber ?? null, input.addressLine ?? null, input.town ?? null, postcode ?? null,
        input.jointContactId ?? null, last4 ?? null,
      ]);
    }
    await db.query('RELEASE SAVEPOINT giving_giver_write');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT giving_giver_write');
    const constraint = (error as { constraint?: string }).constraint;
    if (constraint === 'giving_givers_reference_key') {
      throw new StewardError('conflict', 'Another giver already has this giver reference', {
        hint: 'Give a different giverReference.', details: { giverReference: input.giverReference ?? null },
      });
    }
    // The other unique key is (org_id, contact_id): two first writes for one contact at once.
    if ((error as { code?: string }).code === '23505') {
      throw new StewardError('conflict', 'This contact\'s giving details were being recorded at the same time; call again to update them');
    }
    throw error;
  }
  return { giver: await requireGiver(db, orgId, { contactId: input.contactId }), created: !existing };
}

/** Contact columns of the core giving tables: money records stay on erasure without the person's id; giving details go. */
export const coreContactRefs: readonly ContactRef[] = [
  { table: 'giving_givers', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  { table: 'giving_givers', column: 'joint_contact_id', onMerge: 'move', onErase: 'null' },
  { table: 'giving_donations', column: 'contact_id', onMerge: 'move', onErase: 'null' },
  { table: 'giving_pledges', column: 'contact_id', onMerge: 'move', onErase: 'null' },
  { table: 'giving_recurring_gifts', column: 'contact_id', onMerge: 'move', onErase: 'null' },
];

/**
 * Givers, newest first, optionally those whose reference, name or postcode contains `query`
 * (case ignored); keyset pages on (created_at, id).
 */
export async function listGivers(db: Queryable, orgId: string, input: { query?: string; limit: number; cursor?: string }): Promise<{ givers: GiverView[]; nextCursor: string | null }> {
  const position = input.cursor ? decodeCursor(input.cursor) : null;
  const values: unknown[] = [orgId, input.query ? `%${input.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null, position?.at ?? null, position?.id ?? null, input.limit + 1];
  const rows = await queryRows<GiverRow & { page_at: string }>(db, `${GIVER_SELECT.replace('SELECT g.id,', "SELECT to_json(g.created_at) #>> '{}' AS page_at, g.id,")}
    WHERE g.org_id = $1
      AND ($2::text IS NULL OR g.giver_reference ILIKE $2 OR g.postcode ILIKE $2
        OR concat_ws(' ', c.preferred_name, c.first_name, c.last_name) ILIKE $2)
      AND ($3::timestamptz IS NULL OR (g.created_at, g.id) < ($3::timestamptz, $4::uuid))
    ORDER BY g.created_at DESC, g.id DESC LIMIT $5`, values);
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return { givers: page.map(giverView), nextCursor: rows.length > input.limit && last ? encodeCursor({ at: last.page_at, id: last.id }) : null };
}
