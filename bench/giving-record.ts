/**
 * The giving_record_donation scenario of `npm run bench:giving` (bench/giving.ts runs it): the
 * latency of recording one gift into an open batch in an organisation that already holds 10,000
 * committed donations, through the HTTP bridge (the whole durable call) and in process (the
 * tool's run() alone, in a write transaction of its own, as the activity runs it).
 * Knob: BENCH_GIVING_DONATIONS (10000).
 */
import { randomUUID } from 'node:crypto';
import { withTenantTransaction, type Pool } from '../db/pool';
import { transactionOf } from '../db/sequelize';
import { catalogue, findTool } from '../modules/catalogue';
import { getOrgSettings } from '../modules/platform/orgs';
import type { ToolContext } from '../modules/tool';
import { measureSequential } from './stats';
import type { Scenario } from './giving';
import { invokeBridge } from './load-client';
import type { BenchOrg } from './seed';

const TOOL = 'giving_record_donation';

/** 10,000 committed gifts from 1,000 givers, spread over the last 300 days; returns the fund and the givers. */
async function seedCommittedDonations(pool: Pool, orgId: string, donations: number): Promise<{ fundId: string; contactIds: string[] }> {
  const fundId = randomUUID();
  const batchId = randomUUID();
  const contactIds = Array.from({ length: 1000 }, () => randomUUID());
  await pool.query('INSERT INTO giving_funds (id, org_id, name) VALUES ($1, $2, $3)', [fundId, orgId, 'General']);
  await pool.query(`INSERT INTO giving_batches (id, org_id, name, status, currency, committed_at) VALUES ($1, $2, 'Seed', 'committed', 'GBP', now())`, [batchId, orgId]);
  await pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name)
    SELECT u.id, $1, 'Giver', 'Number ' || u.n FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`, [orgId, contactIds]);
  await pool.query(`INSERT INTO giving_donations (id, org_id, batch_id, contact_id, amount, currency, method, received_on, gift_aid_status)
    SELECT gen_random_uuid(), $1, $2, ($3::uuid[])[1 + (n % 1000)], 500 + (n % 5000), 'GBP', 'card', CURRENT_DATE - (n % 300)::int, 'unclaimed'
    FROM generate_series(1, $4::int) AS n`, [orgId, batchId, contactIds, donations]);
  await pool.query(`INSERT INTO giving_designations (org_id, donation_id, fund_id, amount)
    SELECT org_id, id, $2, amount FROM giving_donations WHERE org_id = $1`, [orgId, fundId]);
  await pool.query('ANALYZE');
  return { fundId, contactIds };
}

/** Runs the tool's run() in a write transaction of the organisation, as the tool activity does (without its result store). */
async function runWriteInProcess(pool: Pool, org: BenchOrg, args: unknown): Promise<unknown> {
  const tool = findTool(TOOL)!;
  return withTenantTransaction(pool, org.orgId, async (db) => {
    const ctx: ToolContext = { db, transaction: transactionOf(db), principal: org.principal, org: await getOrgSettings(db, org.orgId), workflowId: `bench-${randomUUID()}`, catalogue: catalogue() };
    return tool.output.parse(await tool.run(ctx, tool.input.parse(args)));
  });
}

export const recordDonationScenario: Scenario = {
  name: 'record-donation',
  async run(stack, org, samples) {
    const donations = Number(process.env.BENCH_GIVING_DONATIONS ?? 10_000);
    console.error(`bench:giving: seeding ${donations} committed donations for ${TOOL}`);
    const { fundId, contactIds } = await seedCommittedDonations(stack.pool, org.orgId, donations);
    const batch = (await invokeBridge(stack.url, org.apiKey, 'giving_create_batch', { name: 'Bench Sunday' }) as { batch: { id: string } }).batch;
    let n = 0;
    const gift = () => ({
      batchId: batch.id, contactId: contactIds[n++ % contactIds.length], amount: 1000 + (n % 900), method: 'card', receivedOn: new Date().toISOString().slice(0, 10),
      fundId, externalId: `bench-${randomUUID()}`,
    });
    const setup = `${donations} committed donations, 1,000 givers; one gift into an open batch per call`;
    const direct = await measureSequential(async () => void await runWriteInProcess(stack.pool, org, gift()), samples, 2);
    const bridge = await measureSequential(async () => void await invokeBridge(stack.url, org.apiKey, TOOL, gift()), samples, 2);
    return [
      { scenario: this.name, tool: TOOL, path: 'in-process run()', setup, latency: direct },
      { scenario: this.name, tool: TOOL, path: 'bridge', setup, latency: bridge },
    ];
  },
};
