import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { triggerScheduleAfter } from '../../../test/helpers/schedule-trigger';

/**
 * The Runsheet agent, run through its own Temporal Schedule as the interval would run it: it proposes
 * filling the open places of the next two weeks' plans that free, eligible team members can fill (one
 * autofill call per plan, for those positions only), leaves out locked plans, plans further ahead and
 * places nobody eligible can take; an approved proposal fills the place, a rejected one is not
 * proposed again.
 */
jest.setTimeout(150_000);

describe('runsheet agent: open rota places', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Columba', planCode: 'growth' });
  });

  afterAll(async () => {
    // Schedules outlive the test database; remove this organisation's.
    for await (const schedule of harness.temporal.schedule.list()) {
      if (schedule.scheduleId.includes(org.orgId)) await harness.temporal.schedule.getHandle(schedule.scheduleId).delete().catch(() => undefined);
    }
    await harness?.close();
  });

  const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);
  const contact = async (firstName: string) => (await call('people_create_contact', { firstName, lastName: 'Rota' })).contact.id as string;

  async function lastRun(): Promise<Date | null> {
    const { rows } = await harness.pool.query("SELECT last_run_at FROM agents WHERE org_id = $1 AND agent_key = 'runsheet'", [org.orgId]);
    return rows[0]?.last_run_at ?? null;
  }

  async function runAgent(): Promise<string> {
    const before = (await lastRun())?.getTime() ?? 0;
    await triggerScheduleAfter(harness.temporal, `agent-${org.orgId}-runsheet`, before);
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const { rows } = await harness.pool.query("SELECT last_run_at, last_run_status, last_run_summary FROM agents WHERE org_id = $1 AND agent_key = 'runsheet'", [org.orgId]);
      if (rows[0]?.last_run_at && rows[0].last_run_at.getTime() > before) {
        expect(rows[0].last_run_status).toBe('succeeded');
        return rows[0].last_run_summary as string;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error('the runsheet agent did not run');
  }

  const proposals = async () => (await harness.pool.query("SELECT id, tool, args, summary, status FROM proposals WHERE org_id = $1 AND agent_key = 'runsheet' ORDER BY created_at", [org.orgId])).rows;

  it('proposes filling the places free team members can take, and fills them when approved', async () => {
    // Switched on first: the schedule this makes may take a run at once (seen with the dev server's
    // scheduler), which must find nothing yet, so that the runs below are the ones the test counts.
    await harness.call(org.apiKey, 'platform_set_agent_autonomy', { agent: 'runsheet', autonomy: 'propose' });
    const [ann, bea, cal] = [await contact('Ann'), await contact('Bea'), await contact('Cal')];
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Morning worship' });
    const team = (await call('runsheet_create_team', { name: 'Tech' })).teamId;
    const sound = (await call('runsheet_add_position', { teamId: team, name: 'Sound desk' })).positionId;
    const vocals = (await call('runsheet_add_position', { teamId: team, name: 'Vocals' })).positionId;
    for (const member of [ann, bea]) await call('runsheet_add_team_member', { positionId: sound, contactId: member });
    await call('runsheet_add_team_member', { positionId: vocals, contactId: cal });
    const plan = async (days: number) => {
      const date = DateTime.now().plus({ days }).toISODate()!;
      const made = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '10:30', durationMinutes: 90 }] })).plan;
      await call('runsheet_set_needed_positions', { planId: made.id, positions: [{ positionId: sound, quantity: 2 }, { positionId: vocals, quantity: 1 }] });
      return { id: made.id as string, date };
    };
    const soon = await plan(5);
    // Bea is away then, and Cal (the only singer) too: one sound place can be filled, by Ann.
    await call('runsheet_record_blockout', { contactId: bea, startsOn: soon.date });
    await call('runsheet_record_blockout', { contactId: cal, startsOn: soon.date });
    const locked = await plan(6);
    await call('runsheet_lock_plan', { planId: locked.id });
    await plan(30);

    expect(await runAgent()).toBe('Proposed 1 action');
    const [proposed] = await proposals();
    expect(proposed).toMatchObject({ tool: 'runsheet_autofill_positions', status: 'pending', args: { planId: soon.id, positionIds: [sound] } });
    expect(proposed.summary).toMatch(/^Fill 1 of 3 open place\(s\) on Morning worship, .* \(Sound desk 1\) from free team members$/);
    // Running again while it waits proposes nothing more.
    await runAgent();
    expect(await proposals()).toHaveLength(1);

    const decided = await call('platform_approve_proposal', { proposalId: proposed.id });
    expect(decided.execution).toMatchObject({ status: 'succeeded', result: { filled: [{ positionId: sound, contactId: ann }] } });
    expect((await call('runsheet_get_plan', { planId: soon.id })).plan.people).toEqual([expect.objectContaining({ contactId: ann, status: 'unconfirmed' })]);
    // Nobody eligible is left for the open places: nothing to propose.
    expect(await runAgent()).toBe('Proposed 0 actions');

    // A rejected proposal is not made again.
    const later = await plan(9);
    await runAgent();
    const second = (await proposals()).find((row) => row.args.planId === later.id);
    expect(second).toMatchObject({ status: 'pending', args: { positionIds: [sound, vocals].sort() } });
    await call('platform_reject_proposal', { proposalId: second.id });
    await runAgent();
    expect((await proposals()).filter((row) => row.args.planId === later.id)).toHaveLength(1);
  });
});
