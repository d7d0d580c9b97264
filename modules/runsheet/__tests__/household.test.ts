import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { eventually } from '../../../test/helpers/sandbox-stack';

/**
 * Household rules per service time, end to end over MCP: on a plan with a 9:00 and an 11:00, Hal
 * (who serves apart from his household) may serve the 11:00 while his husband Hank serves the 9:00,
 * and is refused the 9:00 itself, or another plan at 9:00; Jo (who serves together with hers) is
 * refused a time her household does not serve. Autofill and the substitute search place them the same way.
 */
jest.setTimeout(120_000);

describe('runsheet: household rules per service time', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Chad', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  const call = (tool: string, args: Record<string, unknown>) => mcpCall(mcp, tool, args);
  const refusal = (tool: string, args: Record<string, unknown>) => mcpRefusal(mcp, tool, args);
  const contact = async (firstName: string) => (await call('people_create_contact', { firstName, lastName: 'Household' })).contact.id as string;
  const codes = (error: any) => (error.details?.conflicts ?? []).map((conflict: { code: string }) => conflict.code);

  it('lets "apart" serve at different times of one plan and flags the same time; "together" the other way round', async () => {
    const [hal, hank, jo, kit, lee] = await Promise.all(['Hal', 'Hank', 'Jo', 'Kit', 'Lee'].map((name) => contact(name)));
    await call('people_add_family_relationship', { contactId: hal, relatedContactId: hank, relationship: 'husband' });
    await call('people_add_family_relationship', { contactId: jo, relatedContactId: kit, relationship: 'wife' });
    await call('runsheet_set_preferences', { contactId: hal, householdRule: 'apart' });
    await call('runsheet_set_preferences', { contactId: jo, householdRule: 'together' });
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Sunday mornings' });
    const team = (await call('runsheet_create_team', { name: 'Tech' })).teamId;
    const welcome = (await call('runsheet_add_position', { teamId: team, name: 'Welcome' })).positionId;
    const sound = (await call('runsheet_add_position', { teamId: team, name: 'Sound desk' })).positionId;
    const projection = (await call('runsheet_add_position', { teamId: team, name: 'Projection' })).positionId;
    const lights = (await call('runsheet_add_position', { teamId: team, name: 'Lights' })).positionId;
    for (const person of [hal, jo]) await call('runsheet_add_team_member', { positionId: projection, contactId: person });
    for (const person of [hal, lee]) await call('runsheet_add_team_member', { positionId: lights, contactId: person });
    const twoTimes = [{ kind: 'service', startTime: '09:00', durationMinutes: 60 }, { kind: 'service', startTime: '11:00', durationMinutes: 60 }];
    // A plan with a 9:00 and an 11:00; Hank welcomes at 9:00 and Kit at 11:00.
    const onDay = async (days: number, needs: Array<{ positionId: string; at: 'nine' | 'eleven'; quantity: number }>) => {
      const plan = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date: DateTime.now().plus({ days }).toISODate(), times: twoTimes })).plan;
      const [nine, eleven] = plan.times.map((time: { id: string }) => time.id);
      const time = { nine, eleven };
      await call('runsheet_set_needed_positions', {
        planId: plan.id, positions: [{ positionId: welcome, planTimeId: nine, quantity: 1 }, { positionId: welcome, planTimeId: eleven, quantity: 1 },
          ...needs.map((need) => ({ positionId: need.positionId, planTimeId: time[need.at], quantity: need.quantity }))],
      });
      await call('runsheet_schedule_person', { planId: plan.id, positionId: welcome, contactId: hank, planTimeId: nine });
      await call('runsheet_schedule_person', { planId: plan.id, positionId: welcome, contactId: kit, planTimeId: eleven });
      return { plan, nine, eleven };
    };

    // Scheduling by hand.
    const sunday = await onDay(15, [{ positionId: sound, at: 'nine', quantity: 2 }, { positionId: sound, at: 'eleven', quantity: 2 }]);
    const at = (time: string, contactId: string) => ({ planId: sunday.plan.id, positionId: sound, contactId, planTimeId: time });
    const halAtNine = await refusal('runsheet_schedule_person', at(sunday.nine, hal));
    expect(halAtNine.code).toBe('conflict');
    expect(codes(halAtNine)).toEqual(['household_rule']);
    expect(halAtNine.details.conflicts[0].message).toMatch(/at that time/);
    expect(await call('runsheet_schedule_person', at(sunday.eleven, hal))).toMatchObject({ planTimeId: sunday.eleven, conflictsOverridden: [] });
    const joAtNine = await refusal('runsheet_schedule_person', at(sunday.nine, jo));
    expect(codes(joAtNine)).toEqual(['household_rule']);
    expect(joAtNine.details.conflicts[0].message).toMatch(/another time that day/);
    expect(await call('runsheet_schedule_person', at(sunday.eleven, jo))).toMatchObject({ planTimeId: sunday.eleven, conflictsOverridden: [] });
    // Another plan at 9:00 the same day is the same time too.
    const youth = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date: DateTime.now().plus({ days: 15 }).toISODate(), times: [{ kind: 'service', startTime: '09:15', durationMinutes: 30 }] })).plan;
    expect(codes(await refusal('runsheet_schedule_person', { planId: youth.id, positionId: lights, contactId: hal }))).toEqual(['household_rule']);
    // The readiness check agrees: Hal at 11:00 and Jo at 11:00 are no household problem.
    const ready = await call('runsheet_check_readiness', { planId: sunday.plan.id });
    expect(ready.fixes.filter((fix: any) => fix.title.includes('household'))).toEqual([]);
    // Overridden at the same time, it is recorded and the readiness check warns.
    const forced = await call('runsheet_schedule_person', { ...at(sunday.nine, hal), allowConflicts: true });
    expect(forced.conflictsOverridden).toEqual([expect.objectContaining({ code: 'household_rule' })]);
    const warned = await call('runsheet_check_readiness', { planId: sunday.plan.id });
    expect(warned.fixes.filter((fix: any) => fix.title.includes('household rule')).map((fix: any) => fix.fix.args.planPersonId)).toEqual([forced.planPersonId]);

    // Autofill: Hal only at 11:00, Jo only at 11:00; nobody else can take the 9:00.
    const later = await onDay(16, [{ positionId: projection, at: 'nine', quantity: 1 }, { positionId: projection, at: 'eleven', quantity: 2 }]);
    const run = await call('runsheet_autofill_positions', { planId: later.plan.id, positionIds: [projection] });
    expect(run.filled.map((f: any) => [f.contactId, f.planTimeId]).sort()).toEqual([[hal, later.eleven], [jo, later.eleven]].sort());
    expect(run.unfilled).toEqual([{ positionId: projection, planTimeId: later.nine, open: 1, reason: 'only 0 eligible team member(s) were free' }]);

    // The substitute search: Lee gives up the 11:00 and the 9:00 lights; Hal is offered the 11:00 only.
    await call('runsheet_update_team', { teamId: team, autoReplace: true, offerExpiresSeconds: 600 });
    const third = await onDay(17, [{ positionId: lights, at: 'nine', quantity: 1 }, { positionId: lights, at: 'eleven', quantity: 1 }]);
    const searchFor = async (time: string) => {
      const { planPersonId } = await call('runsheet_schedule_person', { planId: third.plan.id, positionId: lights, contactId: lee, planTimeId: time });
      return (await call('runsheet_respond_to_request', { planPersonId, response: 'decline', reason: 'Away' })).substitutionId as string;
    };
    const [atEleven, atNine] = [await searchFor(third.eleven), await searchFor(third.nine)];
    const searches = await eventually(async () => (await call('runsheet_get_plan', { planId: third.plan.id })).plan.substitutions as any[],
      (rows) => rows.length === 2 && rows.find((row) => row.id === atEleven)?.offers.length > 0 && rows.find((row) => row.id === atNine)?.status === 'unfilled', 60_000);
    expect(searches.find((row) => row.id === atEleven).offers[0]).toMatchObject({ contactId: hal, rank: 1 });
    expect(searches.find((row) => row.id === atNine).offers).toEqual([]);
  });
});
