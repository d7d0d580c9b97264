import { DateTime } from 'luxon';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { requireContact } from '../people/api';
import { nameOr, namesOf } from './common';
import { BLOCKOUT_LINK_DAYS, blockoutUrl } from './links';

export interface BlockoutView { id: string; startsOn: string; endsOn: string; reason: string | null }

/** A person's blockouts that have not ended before `today` (YYYY-MM-DD), soonest first. */
export async function upcomingBlockouts(db: Queryable, orgId: string, contactId: string, today: string): Promise<BlockoutView[]> {
  const rows = await queryRows<{ id: string; starts_on: string; ends_on: string; reason: string | null }>(db,
    `SELECT id, to_char(starts_on, 'YYYY-MM-DD') AS starts_on, to_char(ends_on, 'YYYY-MM-DD') AS ends_on, reason FROM runsheet_blockouts
      WHERE org_id = $1 AND contact_id = $2 AND ends_on >= $3::date ORDER BY starts_on, ends_on, id LIMIT 200`, [orgId, contactId, today]);
  return rows.map((row) => ({ id: row.id, startsOn: row.starts_on, endsOn: row.ends_on, reason: row.reason }));
}

/** Removes one of a person's own blockouts; someone else's (or a missing one) is not found. Freed dates take nobody back onto a rota. */
export async function removeOwnBlockout(db: Queryable, orgId: string, contactId: string, blockoutId: string): Promise<BlockoutView> {
  const row = await queryOne<{ id: string; starts_on: string; ends_on: string; reason: string | null }>(db,
    `DELETE FROM runsheet_blockouts WHERE org_id = $1 AND contact_id = $2 AND id = $3
      RETURNING id, to_char(starts_on, 'YYYY-MM-DD') AS starts_on, to_char(ends_on, 'YYYY-MM-DD') AS ends_on, reason`, [orgId, contactId, blockoutId]);
  if (!row) throw new StewardError('not_found', 'That blockout was not found', { hint: 'It may have been removed already.' });
  return { id: row.id, startsOn: row.starts_on, endsOn: row.ends_on, reason: row.reason };
}

/** The link a volunteer keeps to manage their own blockouts, with what they have now. */
export async function blockoutLink(db: Queryable, orgId: string, contactId: string, now = new Date()) {
  await requireContact(db, orgId, contactId);
  const expiresAt = DateTime.fromJSDate(now).plus({ days: BLOCKOUT_LINK_DAYS }).startOf('second').toJSDate();
  return {
    contactId, name: nameOr(await namesOf(db, orgId, [contactId]), contactId), url: blockoutUrl(orgId, contactId, expiresAt), expiresAt: expiresAt.toISOString(),
    upcoming: await upcomingBlockouts(db, orgId, contactId, now.toISOString().slice(0, 10)),
  };
}
