import { randomUUID } from 'node:crypto';
import { todayUtc } from '../../metrics';
import type { GivingRecurringRunResult } from '../workflows/recurring';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { chainHeadIsFree, holdLock, started, untilWaitingBehind } from '../../../test/helpers/row-locks';
import { insertContact, insertFund } from './pledges-recurring-fixtures';

/**
 * The recurring run records its audit events after its loop, not one per gift as it goes: an event
 * holds the organisation's audit chain head until commit, and a later gift's donation waits for its
 * giver's row, which a person's edit may hold while waiting, at its own end, for that chain head (a
 * cycle Postgres would break by failing one of them). Shown with a test transaction holding the second
 * giver's row: the run, having recorded the first gift, waits for it without holding the chain head.
 */
describe('giving recurring run: the audit chain head is taken last', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Standing Order Chapel' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('waits for a giver\'s row holding no chain head, then records every gift and its event', async () => {
    const fundId = await insertFund(harness.pool, org.orgId, 'General');
    const givers = [await insertContact(harness.pool, org.orgId, 'Ruth'), await insertContact(harness.pool, org.orgId, 'Naomi')];
    for (const contactId of givers) {
      await harness.call(org.apiKey, 'giving_create_recurring_gift', {
        contactId, fundId, amount: 2500, method: 'standing_order', frequency: 'weekly', startsOn: todayUtc(),
      });
    }
    // The run takes gifts by next date, then id: the second it reaches is the one whose giver is held.
    const order = (await harness.pool.query<{ contact_id: string }>(
      'SELECT contact_id FROM giving_recurring_gifts WHERE org_id = $1 ORDER BY next_on, id', [org.orgId])).rows.map((row) => row.contact_id);
    expect(order).toHaveLength(2);
    const chainSeqBefore = (await harness.pool.query<{ seq: string }>('SELECT seq FROM audit_chain_heads WHERE org_id = $1', [org.orgId])).rows[0]?.seq;

    const held = await holdLock(harness.pool, 'SELECT id FROM contacts WHERE id = $1 FOR UPDATE', [order[1]]);
    const run = started(() => harness.temporal.workflow.execute('givingRecurringWorkflow', {
      taskQueue: harness.taskQueue, workflowId: `giving-recurring-test-${randomUUID()}`, args: [{ asOf: todayUtc(), orgId: org.orgId }],
    }) as Promise<GivingRecurringRunResult>);
    try {
      // The run has recorded the first gift and waits for the held giver's row.
      await untilWaitingBehind(harness.pool, held);
      expect(await chainHeadIsFree(harness.pool, org.orgId)).toBe(true);
      expect(run.settled()).toBe(false);
    } finally {
      await held.release();
    }
    const result = await run.running;
    expect(result).toMatchObject({ recorded: 2, failed: [] });
    const recorded = await harness.pool.query<{ contact_id: string }>(
      'SELECT contact_id FROM giving_donations WHERE org_id = $1 AND source = $2 ORDER BY contact_id', [org.orgId, 'recurring']);
    expect(recorded.rows.map((row) => row.contact_id)).toEqual([...givers].sort());
    const events = await harness.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_events WHERE org_id = $1 AND tool = 'job:giving.recurring' AND action = 'giving.donation.record'`, [org.orgId]);
    expect(events.rows[0].n).toBe(2);
    const chainSeqAfter = (await harness.pool.query<{ seq: string }>('SELECT seq FROM audit_chain_heads WHERE org_id = $1', [org.orgId])).rows[0].seq;
    expect(Number(chainSeqAfter) - Number(chainSeqBefore ?? 0)).toBeGreaterThanOrEqual(2);
  });
});
