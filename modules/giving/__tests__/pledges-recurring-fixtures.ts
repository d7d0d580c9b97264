import { randomUUID } from 'node:crypto';
import type { Pool } from '../../../db/pool';

/**
 * Giving records written straight to the database, for tests of refunds, pledges and recurring
 * gifts that need committed (or uncommitted) donations as a starting point. The tools under test
 * are always called through a real surface; only their starting data is set up here.
 */

export async function insertFund(pool: Pool, orgId: string, name: string, giftAidEligible = true): Promise<string> {
  const id = randomUUID();
  await pool.query('INSERT INTO giving_funds (id, org_id, name, gift_aid_eligible) VALUES ($1, $2, $3, $4)', [id, orgId, name, giftAidEligible]);
  return id;
}

export async function insertContact(pool: Pool, orgId: string, firstName: string): Promise<string> {
  const id = randomUUID();
  await pool.query('INSERT INTO contacts (id, org_id, first_name, last_name) VALUES ($1, $2, $3, $4)', [id, orgId, firstName, 'Giver']);
  return id;
}

export interface DonationSetup {
  contactId?: string | null;
  designations: Array<{ fundId: string; amount: number }>;
  committed?: boolean;
  pledgeId?: string;
  receivedOn?: string;
  giftAidStatus?: string;
  method?: string;
}

/** A donation in a batch of its own (committed unless asked otherwise), split as given. */
export async function insertDonation(pool: Pool, orgId: string, setup: DonationSetup): Promise<{ donationId: string; batchId: string }> {
  const batchId = randomUUID();
  const donationId = randomUUID();
  const committed = setup.committed ?? true;
  const amount = setup.designations.reduce((sum, part) => sum + part.amount, 0);
  await pool.query(`INSERT INTO giving_batches (id, org_id, name, status, currency, committed_at) VALUES ($1, $2, $3, $4, 'GBP', $5)`,
    [batchId, orgId, `Batch ${batchId.slice(0, 8)}`, committed ? 'committed' : 'in_progress', committed ? new Date() : null]);
  await pool.query(`INSERT INTO giving_donations (id, org_id, batch_id, contact_id, amount, currency, method, received_on, pledge_id, gift_aid_status)
    VALUES ($1, $2, $3, $4, $5, 'GBP', $6, $7, $8, $9)`,
  [donationId, orgId, batchId, setup.contactId ?? null, amount, setup.method ?? 'card', setup.receivedOn ?? '2026-11-01', setup.pledgeId ?? null, setup.giftAidStatus ?? 'not_claimable']);
  for (const part of setup.designations) {
    await pool.query('INSERT INTO giving_designations (org_id, donation_id, fund_id, amount) VALUES ($1, $2, $3, $4)', [orgId, donationId, part.fundId, part.amount]);
  }
  return { donationId, batchId };
}

export async function refundedTotal(pool: Pool, donationId: string): Promise<number> {
  const { rows } = await pool.query('SELECT COALESCE(sum(amount), 0)::bigint AS total FROM giving_refunds WHERE donation_id = $1', [donationId]);
  return Number(rows[0].total);
}
