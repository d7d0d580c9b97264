import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { syncAllSchedules } from '../../../activities/schedules';
import { PROJECT_ROOT } from '../../../db/config';
import { addDays } from '../recurring/calendar';
import { todayUtc } from '../../metrics';
import type { GivingRecurringRunResult } from '../workflows/recurring';
import { createStewardWorker } from '../../../worker/create-worker';
import { BUNDLE_PATH_ENV } from '../../../test/helpers/env';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { insertContact, insertFund } from './pledges-recurring-fixtures';

/**
 * Recurring gifts: the scheduled run's workflow records each occurrence exactly once, into a
 * committed batch; paused dates are skipped, never back-filled; cancelled is final; a lost
 * acknowledgement or a worker killed between recording and acknowledging never records twice.
 * Runs are started directly with the date they record up to (`asOf`), as the schedule would on that day.
 */
describe('giving recurring gifts', () => {
  let harness: Harness;
  let org: TestOrg;
  let fundId: string;
  let contactId: string;
  /** Set to make the next recording's acknowledgement get lost after its transaction committed. */
  let loseNextAcknowledgement = false;
  const today = todayUtc();
  const day = (offset: number) => addDays(today, offset);
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    harness = await Harness.start({
      wrapActivities: (activities) => ({
        ...activities,
        givingRecordDueRecurringGifts: async (input: Parameters<typeof activities.givingRecordDueRecurringGifts>[0]) => {
          const run = await activities.givingRecordDueRecurringGifts(input);
          if (loseNextAcknowledgement) {
            loseNextAcknowledgement = false;
            throw new Error('the acknowledgement was lost');
          }
          return run;
        },
      }),
    });
    org = await harness.createOrg({ name: 'Standing Order Chapel' });
    fundId = await insertFund(harness.pool, org.orgId, 'General');
    contactId = await insertContact(harness.pool, org.orgId, 'Ruth');
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await harness?.close();
  });

  function run(asOf: string, taskQueue = harness.taskQueue): Promise<GivingRecurringRunResult> {
    return harness.temporal.workflow.execute('givingRecurringWorkflow', {
      taskQueue, workflowId: `giving-recurring-test-${randomUUID()}`, args: [{ asOf, orgId: org.orgId }],
    });
  }

  async function create(args: Record<string, unknown>): Promise<any> {
    return (await harness.call(org.apiKey, 'giving_create_recurring_gift', { contactId, fundId, amount: 2500, method: 'standing_order', frequency: 'weekly', ...args })).gift;
  }

  async function recordedDates(giftId: string): Promise<string[]> {
    const { rows } = await harness.pool.query('SELECT occurrence_on FROM giving_donations WHERE recurring_gift_id = $1 ORDER BY occurrence_on', [giftId]);
    return rows.map((row) => row.occurrence_on);
  }

  it('over MCP: a weekly gift is recorded on its date into a committed batch, exactly once however often the run repeats; a late run catches up', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    let gift: any;
    try {
      const created = await mcp.callTool({ name: 'giving_create_recurring_gift', arguments: { contactId, fundId, amount: 2500, method: 'standing_order', frequency: 'weekly' } }, CallToolResultSchema);
      expect(created.isError).toBeFalsy();
      gift = (created.structuredContent as any).gift;
      expect(gift).toMatchObject({ status: 'active', startsOn: today, nextOn: today, amount: 2500, currency: 'GBP', fundName: 'General', contactName: 'Ruth Giver', recordedCount: 0 });
      const shown = await mcp.callTool({ name: 'giving_get_recurring_gift', arguments: { recurringGiftId: gift.id } }, CallToolResultSchema);
      expect((shown.structuredContent as any).upcoming).toEqual([day(0), day(7), day(14), day(21), day(28)]);
    } finally {
      await mcp.close();
    }

    expect(await run(day(0))).toMatchObject({ recorded: 1, failed: [] });
    expect(await run(day(0))).toMatchObject({ recorded: 0 });
    expect(await recordedDates(gift.id)).toEqual([day(0)]);
    // The run's donation is in the audit trail once (the repeat recorded nothing and wrote no event): the system as actor, the money, the giver by id.
    const trail = await harness.pool.query(`SELECT e.action, e.actor_kind, e.tool, e.category, e.amount_minor, e.currency, e.contact_ids, e.outcome
      FROM audit_events e JOIN giving_donations d ON d.id::text = e.target_id WHERE e.org_id = $1 AND d.recurring_gift_id = $2`, [org.orgId, gift.id]);
    expect(trail.rows).toEqual([{ action: 'giving.donation.record', actor_kind: 'system', tool: 'job:giving.recurring', category: 'finance', amount_minor: 2500, currency: 'GBP', contact_ids: [contactId], outcome: 'success' }]);
    const { rows } = await harness.pool.query(`SELECT d.amount, d.received_on, d.source, d.method, d.contact_id, d.gift_aid_status, b.name, b.status,
        (SELECT json_agg(json_build_object('fundId', g.fund_id, 'amount', g.amount)) FROM giving_designations g WHERE g.donation_id = d.id) AS designations
      FROM giving_donations d JOIN giving_batches b ON b.id = d.batch_id WHERE d.recurring_gift_id = $1`, [gift.id]);
    expect(rows).toEqual([{
      amount: 2500, received_on: day(0), source: 'recurring', method: 'standing_order', contact_id: contactId, gift_aid_status: 'unclaimed',
      name: `Recurring gifts ${day(0)}`, status: 'committed', designations: [{ fundId, amount: 2500 }],
    }]);

    // Two weeks without a run: the next one records both missed dates, in one batch.
    expect(await run(day(14))).toMatchObject({ recorded: 2 });
    expect(await recordedDates(gift.id)).toEqual([day(0), day(7), day(14)]);
    const batches = await harness.pool.query('SELECT DISTINCT batch_id FROM giving_donations WHERE recurring_gift_id = $1 AND occurrence_on > $2', [gift.id, day(0)]);
    expect(batches.rows).toHaveLength(1);
    const usage = await harness.pool.query("SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'donations' AND idempotency_key LIKE $2", [org.orgId, `giving-recurring-${gift.id}-%`]);
    expect(usage.rows[0].n).toBe(3);
    const listed = await harness.call(org.apiKey, 'giving_get_recurring_gift', { recurringGiftId: gift.id });
    expect(listed.gift).toMatchObject({ nextOn: day(21), lastRecordedOn: day(14), recordedCount: 3 });
    await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id });
  });

  it('paused then resumed by hand: the dates while paused are skipped, never back-filled', async () => {
    const gift = await create({ startsOn: day(-42) });
    // Set up as if it had been created six weeks ago.
    await harness.pool.query('UPDATE giving_recurring_gifts SET next_on = $2 WHERE id = $1', [gift.id, day(-42)]);
    expect(await run(day(-42))).toMatchObject({ recorded: 1 });

    const paused = (await harness.call(org.apiKey, 'giving_pause_recurring_gift', { recurringGiftId: gift.id })).gift;
    expect(paused).toMatchObject({ status: 'paused', nextOn: null, resumeOn: null });
    expect(paused.pausedAt).not.toBeNull();
    expect(await run(day(-7))).toMatchObject({ recorded: 0 });
    expect(await run(day(0))).toMatchObject({ recorded: 0 });

    const resumed = (await harness.call(org.apiKey, 'giving_resume_recurring_gift', { recurringGiftId: gift.id })).gift;
    expect(resumed).toMatchObject({ status: 'active', nextOn: day(0), pausedAt: null });
    expect(await run(day(0))).toMatchObject({ recorded: 1 });
    expect(await run(day(7))).toMatchObject({ recorded: 1 });
    expect(await recordedDates(gift.id)).toEqual([day(-42), day(0), day(7)]);
    await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id });
  });

  it('paused with a resume date: it resumes by itself that day and continues with the next occurrence; the paused dates stay skipped', async () => {
    const gift = await create({});
    expect(await run(day(0))).toMatchObject({ recorded: 1 });
    const paused = (await harness.call(org.apiKey, 'giving_pause_recurring_gift', { recurringGiftId: gift.id, resumeOn: day(15) })).gift;
    expect(paused).toMatchObject({ status: 'paused', resumeOn: day(15), nextOn: day(21) });

    expect(await run(day(14))).toMatchObject({ recorded: 0, resumed: 0 });
    expect(await run(day(15))).toMatchObject({ recorded: 0, resumed: 1 });
    expect((await harness.call(org.apiKey, 'giving_get_recurring_gift', { recurringGiftId: gift.id })).gift).toMatchObject({ status: 'active', nextOn: day(21), resumeOn: null });
    expect(await run(day(21))).toMatchObject({ recorded: 1 });
    expect(await recordedDates(gift.id)).toEqual([day(0), day(21)]);

    const refused = await harness.invoke(org.apiKey, 'giving_pause_recurring_gift', { recurringGiftId: gift.id, resumeOn: day(0) });
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'resumeOn' }] });
    await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id });
  });

  it('cancelled stops for good: nothing more is recorded and it cannot be paused or resumed', async () => {
    const gift = await create({ frequency: 'fortnightly' });
    expect(await run(day(0))).toMatchObject({ recorded: 1 });
    const cancelled = (await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id })).gift;
    expect(cancelled).toMatchObject({ status: 'cancelled', nextOn: null });
    expect(await run(day(100))).toMatchObject({ recorded: 0 });
    expect(await recordedDates(gift.id)).toEqual([day(0)]);
    for (const tool of ['giving_resume_recurring_gift', 'giving_pause_recurring_gift', 'giving_cancel_recurring_gift']) {
      expect((await harness.invoke(org.apiKey, tool, { recurringGiftId: gift.id })).body.error?.code).toBe('conflict');
    }
    const listed = await harness.call(org.apiKey, 'giving_list_recurring_gifts', { status: 'cancelled' });
    expect(listed.gifts.map((g: any) => g.id)).toContain(gift.id);
    expect(listed.gifts.every((g: any) => g.status === 'cancelled')).toBe(true);
  });

  it('a changed amount or fund applies to occurrences not yet recorded; recorded ones keep their terms', async () => {
    const gift = await create({});
    expect(await run(day(0))).toMatchObject({ recorded: 1 });
    const missions = await insertFund(harness.pool, org.orgId, 'Missions', false);
    const changed = (await harness.call(org.apiKey, 'giving_update_recurring_gift', { recurringGiftId: gift.id, amount: 4000, fundId: missions })).gift;
    expect(changed).toMatchObject({ amount: 4000, fundId: missions, fundName: 'Missions', nextOn: day(7) });
    expect(await run(day(7))).toMatchObject({ recorded: 1 });
    const { rows } = await harness.pool.query(`SELECT d.occurrence_on, d.amount, g.fund_id, d.gift_aid_status FROM giving_donations d
      JOIN giving_designations g ON g.donation_id = d.id WHERE d.recurring_gift_id = $1 ORDER BY d.occurrence_on`, [gift.id]);
    expect(rows).toEqual([
      { occurrence_on: day(0), amount: 2500, fund_id: fundId, gift_aid_status: 'unclaimed' },
      // Missions is not Gift Aid eligible.
      { occurrence_on: day(7), amount: 4000, fund_id: missions, gift_aid_status: 'not_claimable' },
    ]);
    const nothing = await harness.invoke(org.apiKey, 'giving_update_recurring_gift', { recurringGiftId: gift.id });
    expect(nothing.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'amount' }] });
    await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id });
    expect((await harness.invoke(org.apiKey, 'giving_update_recurring_gift', { recurringGiftId: gift.id, amount: 100 })).body.error?.code).toBe('conflict');
  });

  it('a monthly gift on the 31st falls on the last day of shorter months', async () => {
    const gift = await create({ frequency: 'monthly', startsOn: '2099-01-31', method: 'card' });
    expect(gift.nextOn).toBe('2099-01-31');
    expect(await run('2099-05-30')).toMatchObject({ recorded: 4 });
    expect(await recordedDates(gift.id)).toEqual(['2099-01-31', '2099-02-28', '2099-03-31', '2099-04-30']);
    expect((await harness.call(org.apiKey, 'giving_get_recurring_gift', { recurringGiftId: gift.id })).gift.nextOn).toBe('2099-05-31');
    await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id });
  });

  it('an acknowledgement lost after recording: the retried step records nothing more', async () => {
    const gift = await create({ startsOn: day(1) });
    loseNextAcknowledgement = true;
    const result = await run(day(1));
    expect(loseNextAcknowledgement).toBe(false);
    // The first attempt committed and its answer was lost; the retry found nothing left to do.
    expect(result).toMatchObject({ recorded: 0, failed: [] });
    expect(await recordedDates(gift.id)).toEqual([day(1)]);
    await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id });
  });

  it('a worker killed between recording and acknowledging: another worker retries, and the occurrence is recorded once', async () => {
    const gift = await create({ startsOn: day(2) });
    const taskQueue = `giving-crash-${randomBytes(6).toString('hex')}`;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'recurring-crash-worker.ts')], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: harness.db.url, STEWARD_TASK_QUEUE: taskQueue, STEWARD_WORKFLOW_BUNDLE: process.env[BUNDLE_PATH_ENV] },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    const recordedLine = new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const line = output.split('\n').find((text) => text.startsWith('RECORDED '));
        if (line) resolve(line);
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`crash worker exited (${code}): ${output}`)));
    });

    const outcome = run(day(2), taskQueue);
    const line = await recordedLine;
    expect(JSON.parse(line.slice('RECORDED '.length))).toMatchObject({ recorded: 1 });
    // Recorded and committed; the worker dies before it acknowledges.
    expect(await recordedDates(gift.id)).toEqual([day(2)]);
    child.kill('SIGKILL');
    await new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

    const { worker, connection } = await createStewardWorker({
      address: process.env.TEMPORAL_ADDRESS!, namespace: 'default', pool: harness.pool, taskQueue, bundlePath: process.env[BUNDLE_PATH_ENV],
    });
    const running = worker.run();
    try {
      // The heartbeat timeout notices the dead attempt; the retry on this worker finds the occurrence recorded.
      expect(await outcome).toMatchObject({ recorded: 0, failed: [] });
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
    expect(await recordedDates(gift.id)).toEqual([day(2)]);
    const usage = await harness.pool.query('SELECT count(*)::int AS n FROM usage_events WHERE idempotency_key = $1', [`giving-recurring-${gift.id}-${day(2)}`]);
    expect(usage.rows[0].n).toBe(1);
    await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id });
  }, 120_000);

  it('refuses bad input with a clear error, and another organisation sees none of it', async () => {
    const gift = await create({ frequency: 'quarterly' });
    const other = await harness.createOrg({ name: 'Recurring Elsewhere' });
    const foreignContact = await insertContact(harness.pool, other.orgId, 'Foreign');
    const cases: Array<[string, Record<string, unknown>, string, string | undefined]> = [
      ['fractional', { amount: 25.5 }, 'validation_failed', 'amount'],
      ['zero', { amount: 0 }, 'validation_failed', 'amount'],
      ['10^15', { amount: 1e15 }, 'validation_failed', 'amount'],
      ['cash is not recurring', { method: 'cash' }, 'validation_failed', 'method'],
      ['daily is not a frequency', { frequency: 'daily' }, 'validation_failed', 'frequency'],
      ['not a real date', { startsOn: '2026-02-29' }, 'validation_failed', 'startsOn'],
      ['an unknown fund', { fundId: randomUUID() }, 'not_found', undefined],
      ['a foreign giver', { contactId: foreignContact }, 'not_found', undefined],
    ];
    for (const [label, args, code, field] of cases) {
      const response = await harness.invoke(org.apiKey, 'giving_create_recurring_gift', { contactId, fundId, amount: 2500, method: 'standing_order', frequency: 'weekly', ...args });
      expect({ label, code: response.body.error?.code }).toEqual({ label, code });
      if (field) expect({ label, paths: response.body.error?.issues?.map((issue) => issue.path) }).toEqual({ label, paths: expect.arrayContaining([field]) });
    }
    for (const tool of ['giving_get_recurring_gift', 'giving_pause_recurring_gift', 'giving_resume_recurring_gift', 'giving_cancel_recurring_gift']) {
      const response = await harness.invoke(other.apiKey, tool, { recurringGiftId: gift.id });
      expect({ tool, status: response.status, code: response.body.error?.code }).toEqual({ tool, status: 404, code: 'not_found' });
    }
    const update = await harness.invoke(other.apiKey, 'giving_update_recurring_gift', { recurringGiftId: gift.id, amount: 1 });
    expect({ status: update.status, code: update.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
    expect((await harness.call(other.apiKey, 'giving_list_recurring_gifts', { contactId })).gifts).toEqual([]);
    expect((await harness.call(org.apiKey, 'giving_get_recurring_gift', { recurringGiftId: gift.id })).gift.status).toBe('active');
    const volunteer = await harness.createKey(org.orgId, ['people:read'], 'volunteer');
    expect((await harness.invoke(volunteer.apiKey, 'giving_list_recurring_gifts', {})).body.error?.code).toBe('insufficient_scope');
    await harness.call(org.apiKey, 'giving_cancel_recurring_gift', { recurringGiftId: gift.id });
  });

  it('the hourly Temporal Schedule starts the run, which records today\'s gifts of every organisation', async () => {
    const second = await harness.createOrg({ name: 'Second Chapel' });
    const secondFund = await insertFund(harness.pool, second.orgId, 'General');
    const secondGiver = await insertContact(harness.pool, second.orgId, 'Sam');
    const mine = await create({});
    const theirs = (await harness.call(second.apiKey, 'giving_create_recurring_gift', {
      contactId: secondGiver, fundId: secondFund, amount: 1000, method: 'online', frequency: 'monthly',
    })).gift;

    await syncAllSchedules(harness.temporal, harness.pool, harness.taskQueue);
    const schedule = harness.temporal.schedule.getHandle(`giving-recurring-${harness.taskQueue}`);
    try {
      const described = await schedule.describe();
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'givingRecurringWorkflow', taskQueue: harness.taskQueue });
      expect(described.spec.intervals?.[0]?.every).toBe(3_600_000);
      await schedule.trigger();
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && ((await recordedDates(mine.id)).length === 0 || (await recordedDates(theirs.id)).length === 0)) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await recordedDates(mine.id)).toEqual([today]);
      expect(await recordedDates(theirs.id)).toEqual([today]);
    } finally {
      // Schedules outlive the test database: remove every one this sync made.
      for await (const listed of harness.temporal.schedule.list()) {
        if ([harness.taskQueue, org.orgId, second.orgId].some((part) => listed.scheduleId.includes(part))) {
          await harness.temporal.schedule.getHandle(listed.scheduleId).delete().catch(() => undefined);
        }
      }
    }
  });
});
