import { randomUUID } from 'node:crypto';
import type { Pool } from '../../../db/pool';

/**
 * Starting data for the Gift Aid tests, written straight to the database: funds, givers with
 * their Gift Aid details, and donations in committed (or open) batches. The Gift Aid tools under
 * test are always called through a real surface.
 */

export async function fund(pool: Pool, orgId: string, name: string, giftAidEligible = true): Promise<string> {
  const id = randomUUID();
  await pool.query('INSERT INTO giving_funds (id, org_id, name, gift_aid_eligible) VALUES ($1, $2, $3, $4)', [id, orgId, name, giftAidEligible]);
  return id;
}

export interface GiverSetup {
  firstName: string;
  lastName: string;
  title?: string | null;
  house?: string | null;
  postcode?: string | null;
}

/** A contact and their giving record. */
export async function giver(pool: Pool, orgId: string, setup: GiverSetup): Promise<string> {
  const contactId = randomUUID();
  await pool.query('INSERT INTO contacts (id, org_id, first_name, last_name) VALUES ($1, $2, $3, $4)', [contactId, orgId, setup.firstName, setup.lastName]);
  await pool.query(`INSERT INTO giving_givers (id, org_id, contact_id, giver_reference, title, house_name_or_number, postcode)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  [randomUUID(), orgId, contactId, `G-${contactId.slice(0, 8)}`, setup.title ?? null, setup.house === undefined ? '1' : setup.house, setup.postcode === undefined ? 'SW1A 1AA' : setup.postcode]);
  return contactId;
}

export async function batch(pool: Pool, orgId: string, committed = true): Promise<string> {
  const id = randomUUID();
  await pool.query(`INSERT INTO giving_batches (id, org_id, name, status, currency, committed_at) VALUES ($1, $2, $3, $4, 'GBP', $5)`,
    [id, orgId, `Batch ${id.slice(0, 8)}`, committed ? 'committed' : 'in_progress', committed ? new Date() : null]);
  return id;
}

export interface GiftSetup {
  contactId: string | null;
  parts: Array<{ fundId: string; amount: number }>;
  receivedOn: string;
  batchId?: string;
  method?: string;
  giftAidStatus?: string;
}

/** A donation split across funds, in its own committed batch unless one is given. */
export async function gift(pool: Pool, orgId: string, setup: GiftSetup): Promise<string> {
  const batchId = setup.batchId ?? await batch(pool, orgId);
  const id = randomUUID();
  const amount = setup.parts.reduce((sum, part) => sum + part.amount, 0);
  await pool.query(`INSERT INTO giving_donations (id, org_id, batch_id, contact_id, amount, currency, method, received_on, gift_aid_status)
    VALUES ($1, $2, $3, $4, $5, 'GBP', $6, $7, $8)`,
  [id, orgId, batchId, setup.contactId, amount, setup.method ?? 'card', setup.receivedOn, setup.giftAidStatus ?? (setup.contactId ? 'unclaimed' : 'not_claimable')]);
  for (const part of setup.parts) {
    await pool.query('INSERT INTO giving_designations (org_id, donation_id, fund_id, amount) VALUES ($1, $2, $3, $4)', [orgId, id, part.fundId, part.amount]);
  }
  return id;
}

/** Many small gifts at once, for concurrency tests and the bench. */
export async function manyGifts(pool: Pool, orgId: string, options: { contactIds: string[]; fundId: string; count: number; receivedOn: string; amount?: number }): Promise<string[]> {
  const batchId = await batch(pool, orgId);
  const ids = Array.from({ length: options.count }, () => randomUUID());
  const contacts = ids.map((_, i) => options.contactIds[i % options.contactIds.length]);
  const amount = options.amount ?? 1000;
  await pool.query(`INSERT INTO giving_donations (id, org_id, batch_id, contact_id, amount, currency, method, received_on, gift_aid_status)
    SELECT u.id, $1, $2, u.contact_id, $3, 'GBP', 'card', $4, 'unclaimed' FROM unnest($5::uuid[], $6::uuid[]) AS u(id, contact_id)`,
  [orgId, batchId, amount, options.receivedOn, ids, contacts]);
  await pool.query(`INSERT INTO giving_designations (org_id, donation_id, fund_id, amount) SELECT $1, u.id, $2, $3 FROM unnest($4::uuid[]) AS u(id)`,
    [orgId, options.fundId, amount, ids]);
  return ids;
}

export async function refund(pool: Pool, orgId: string, donationId: string, fundId: string, amount: number): Promise<void> {
  await pool.query(`INSERT INTO giving_refunds (id, org_id, donation_id, fund_id, amount, reason, refunded_on) VALUES ($1, $2, $3, $4, $5, 'Test refund', CURRENT_DATE)`,
    [randomUUID(), orgId, donationId, fundId, amount]);
}

export async function giftAidStatuses(pool: Pool, ids: string[]): Promise<Record<string, string>> {
  const { rows } = await pool.query('SELECT id, gift_aid_status FROM giving_donations WHERE id = ANY($1::uuid[])', [ids]);
  return Object.fromEntries(rows.map((row: { id: string; gift_aid_status: string }) => [row.id, row.gift_aid_status]));
}
