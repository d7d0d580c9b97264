import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * Needed positions per plan time, end to end over MCP: a plan with a 9:00 and an 11:00 service needs
 * one sound engineer at 9:00 and two at 11:00 (and a singer for both); places fill and refuse per
 * time, one person may serve both times, "already serving" looks at the time they would serve,
 * autofill and the copy to next week keep the times, and twenty schedulers racing for the 9:00 place
 * leave exactly one scheduled.
 */
describe('runsheet: needed positions per plan time', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Aidan', planCode: 'growth' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  const call = (tool: string, args: Record<string, unknown>) => mcpCall(mcp, tool, args);
  const refusal = (tool: string, args: Record<string, unknown>) => mcpRefusal(mcp, tool, args);
  const contact = async (firstName: string) => (await call('people_create_contact', { firstName, lastName: 'Times' })).contact.id as string;

  it('counts, fills and copies places per time', async () => {
    const [ann, bea, cal, dan] = [await contact('Ann'), await contact('Bea'), await contact('Cal'), await contact('Dan')];
    const racers = await Promise.all(Array.from({ length: 20 }, (_, i) => contact(`Racer${i}`)));
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Sunday services' });
    const team = (await call('runsheet_create_team', { name: 'Production' })).teamId;
    const sound = (await call('runsheet_add_position', { teamId: team, name: 'Sound desk' })).positionId;
    const vocals = (await call('runsheet_add_position', { teamId: team, name: 'Vocals' })).positionId;
    for (const person of [ann, bea, cal, dan, ...racers]) await call('runsheet_add_team_member', { positionId: sound, contactId: person });
    await call('runsheet_add_team_member', { positionId: vocals, contactId: dan });
    const date = DateTime.now().plus({ days: 8 }).toISODate()!;
    const plan = (await call('runsheet_create_plan', {
      serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '09:00', durationMinutes: 60 }, { kind: 'service', startTime: '11:00', durationMinutes: 60 }],
    })).plan;
    const [nine, eleven] = plan.times.map((time: { id: string }) => time.id);
    await call('runsheet_set_needed_positions', {
      planId: plan.id, positions: [{ positionId: sound, planTimeId: nine, quantity: 1 }, { positionId: sound, planTimeId: eleven, quantity: 2 }, { positionId: vocals, quantity: 1 }],
    });
    const needed = (await call('runsheet_get_plan', { planId: plan.id })).plan.neededPositions;
    expect(needed.map((n: any) => [n.positionId, n.planTimeId, n.quantity, n.open])).toEqual([[sound, nine, 1, 1], [sound, eleven, 2, 2], [vocals, null, 1, 1]]);

    // A position is needed one way: per time, or for the whole plan.
    expect((await refusal('runsheet_set_needed_positions', { planId: plan.id, positions: [{ positionId: sound, quantity: 3 }] })).code).toBe('validation_failed');
    expect((await refusal('runsheet_schedule_person', { planId: plan.id, positionId: sound, contactId: ann })).code).toBe('validation_failed');
    expect((await refusal('runsheet_schedule_person', { planId: plan.id, positionId: vocals, contactId: dan, planTimeId: nine })).code).toBe('validation_failed');
    // Another plan's time, or another organisation's, is not found.
    const elsewhere = (await harness.call(other.apiKey, 'runsheet_create_plan', {
      serviceTypeId: (await harness.call(other.apiKey, 'runsheet_create_service_type', { name: 'Other' })).serviceType.id, date, times: [{ kind: 'service', startTime: '09:00', durationMinutes: 60 }],
    })).plan;
    expect((await refusal('runsheet_schedule_person', { planId: plan.id, positionId: sound, contactId: ann, planTimeId: elsewhere.times[0].id })).code).toBe('not_found');
    expect((await refusal('runsheet_set_needed_positions', { planId: plan.id, positions: [{ positionId: sound, planTimeId: elsewhere.times[0].id, quantity: 1 }] })).code).toBe('not_found');

    // Twenty schedulers race for the one 9:00 place: exactly one is scheduled.
    const raced = await Promise.all(racers.map((contactId) => harness.invoke(org.apiKey, 'runsheet_schedule_person', { planId: plan.id, positionId: sound, contactId, planTimeId: nine })));
    expect(raced.filter((r) => r.body.ok)).toHaveLength(1);
    expect(raced.filter((r) => !r.body.ok).every((r) => r.body.error?.details?.reason === 'position_full')).toBe(true);
    const winner = raced.find((r) => r.body.ok)!.body.result as { planPersonId: string; planTimeId: string };
    expect(winner.planTimeId).toBe(nine);
    await call('runsheet_unschedule_person', { planPersonId: winner.planPersonId });

    // One person may serve both times; a full time refuses, the other still has room.
    expect(await call('runsheet_schedule_person', { planId: plan.id, positionId: sound, contactId: ann, planTimeId: nine })).toMatchObject({ planTimeId: nine, conflictsOverridden: [] });
    expect(await call('runsheet_schedule_person', { planId: plan.id, positionId: sound, contactId: ann, planTimeId: eleven })).toMatchObject({ planTimeId: eleven, conflictsOverridden: [] });
    expect((await refusal('runsheet_schedule_person', { planId: plan.id, positionId: sound, contactId: bea, planTimeId: nine })).details).toMatchObject({ reason: 'position_full', quantity: 1, filled: 1 });

    // Dan serves 8:30 to 9:30 elsewhere: not free for the whole plan (which takes in 9:00).
    const early = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '08:30', durationMinutes: 60 }] })).plan;
    await call('runsheet_schedule_person', { planId: early.id, positionId: vocals, contactId: dan });
    expect((await refusal('runsheet_schedule_person', { planId: plan.id, positionId: vocals, contactId: dan })).details.conflicts).toEqual([expect.objectContaining({ code: 'already_serving' })]);

    const before = await call('runsheet_check_readiness', { planId: plan.id });
    expect(before.fixes.filter((f: any) => f.title.startsWith('Sound desk')).map((f: any) => f.title)).toEqual(['Sound desk at 11:00: 1 of 2 place(s) open']);

    // Autofill fills the 11:00's open place at 11:00 (Ann is on it already; the others, with no place on the plan yet, come first).
    const filled = await call('runsheet_autofill_positions', { planId: plan.id, positionIds: [sound] });
    expect(filled.filled).toHaveLength(1);
    expect(filled.filled[0]).toMatchObject({ positionId: sound, planTimeId: eleven });
    expect([bea, cal, dan, ...racers]).toContain(filled.filled[0].contactId);
    const after = (await call('runsheet_get_plan', { planId: plan.id })).plan;
    expect(after.neededPositions.map((n: any) => [n.planTimeId, n.filled, n.open])).toEqual([[nine, 1, 0], [eleven, 2, 0], [null, 0, 1]]);
    const readiness = await call('runsheet_check_readiness', { planId: plan.id });
    expect(readiness.fixes.filter((f: any) => f.title.startsWith('Sound desk'))).toEqual([]);
    expect(readiness.fixes.map((f: any) => f.title)).toContain('Vocals: 1 of 1 place(s) open');

    // Ann's request names both her times.
    await harness.call(org.apiKey, 'people_update_contact', { contactId: ann, email: 'ann.times@example.org' });
    const sent = await call('runsheet_send_requests', { planId: plan.id });
    expect(sent.queued.map((q: any) => q.contactId)).toContain(ann);
    const { rows } = await harness.pool.query("SELECT body FROM runsheet_notifications WHERE org_id = $1 AND plan_id = $2 AND contact_id = $3 AND kind = 'request'", [org.orgId, plan.id, ann]);
    expect(rows[0].body).toContain('you are down for Sound desk at 09:00 and Sound desk at 11:00 at ');

    // Ann declines the 11:00 on a team whose declines fix themselves: that time's place opens, and the search is for that time.
    await call('runsheet_update_team', { teamId: team, autoReplace: true, offerExpiresSeconds: 5 });
    const annAtEleven = after.people.find((p: any) => p.contactId === ann && p.planTimeId === eleven).id;
    const declined = await call('runsheet_respond_to_request', { planPersonId: annAtEleven, response: 'decline', reason: 'Away after 10' });
    expect(declined.substitutionId).toEqual(expect.any(String));
    const search = await harness.pool.query('SELECT plan_time_id FROM runsheet_substitutions WHERE org_id = $1 AND id = $2', [org.orgId, declined.substitutionId]);
    expect(search.rows).toEqual([{ plan_time_id: eleven }]);
    const reopened = (await call('runsheet_get_plan', { planId: plan.id })).plan.neededPositions;
    expect(reopened.map((n: any) => [n.planTimeId, n.filled])).toEqual([[nine, 1], [eleven, 1], [null, 0]]);
    await call('runsheet_update_team', { teamId: team, autoReplace: false });

    // Copied to next week with its people: each need and person on the same time of the copy.
    const copy = await call('runsheet_copy_plan', { sourcePlanId: plan.id, date: DateTime.fromISO(date).plus({ days: 7 }).toISODate(), include: { items: true, positions: true, people: true } });
    const next = (await call('runsheet_get_plan', { planId: copy.plan.id })).plan;
    const [nextNine, nextEleven] = next.times.map((time: { id: string }) => time.id);
    expect(next.neededPositions.map((n: any) => [n.positionId, n.planTimeId, n.quantity])).toEqual([[sound, nextNine, 1], [sound, nextEleven, 2], [vocals, null, 1]]);
    // Ann's 9:00 place is copied to the copy's 9:00; her declined 11:00 is not copied.
    expect(next.people.filter((p: any) => p.contactId === ann).map((p: any) => p.planTimeId)).toEqual([nextNine]);
    expect(nextEleven).not.toBe(eleven);
  });

  it('autofill fills each time on its own: one person may take the 9:00 and the 11:00, never two places at once, with blockouts, household, monthly maximum and other plans honoured per time', async () => {
    // An organisation of its own: the first journey used this plan's runsheet seats.
    const fresh = await harness.createOrg({ name: 'St Bede', planCode: 'growth' });
    const own = await harness.mcpClient(fresh.apiKey);
    const call = (tool: string, args: Record<string, unknown>) => mcpCall(own, tool, args);
    const refusal = (tool: string, args: Record<string, unknown>) => mcpRefusal(own, tool, args);
    const contact = async (firstName: string) => (await call('people_create_contact', { firstName, lastName: 'Times' })).contact.id as string;
    const [eve, gus, ivy, fay, hal, hank, max] = await Promise.all(['Eve', 'Gus', 'Ivy', 'Fay', 'Hal', 'Hank', 'Max'].map((name) => contact(name)));
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Morning services' });
    const team = (await call('runsheet_create_team', { name: 'Tech' })).teamId;
    const projection = (await call('runsheet_add_position', { teamId: team, name: 'Projection' })).positionId;
    const welcome = (await call('runsheet_add_position', { teamId: team, name: 'Welcome' })).positionId;
    const lights = (await call('runsheet_add_position', { teamId: team, name: 'Lights' })).positionId;
    for (const person of [eve, gus, ivy, fay, hal, max]) await call('runsheet_add_team_member', { positionId: projection, contactId: person });
    await call('runsheet_add_team_member', { positionId: lights, contactId: eve });
    const date = DateTime.now().plus({ days: 22 }).toISODate()!;
    const plan = (await call('runsheet_create_plan', {
      serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '09:00', durationMinutes: 60 }, { kind: 'service', startTime: '11:00', durationMinutes: 60 }],
    })).plan;
    const [nine, eleven] = plan.times.map((time: { id: string }) => time.id);
    await call('runsheet_set_needed_positions', { planId: plan.id, positions: [{ positionId: projection, planTimeId: nine, quantity: 2 }, { positionId: projection, planTimeId: eleven, quantity: 3 }] });

    // Fay is away that day. Hal will not serve with his household, and Hank (his husband) is on the plan.
    await call('runsheet_record_blockout', { contactId: fay, startsOn: date });
    await call('people_add_family_relationship', { contactId: hal, relatedContactId: hank, relationship: 'husband' });
    await call('runsheet_set_preferences', { contactId: hal, householdRule: 'apart' });
    await call('runsheet_schedule_person', { planId: plan.id, positionId: welcome, contactId: hank });
    // Max serves at most once a month and is down for an evening service that day; Gus too serves at most once a month, with nothing else.
    await call('runsheet_set_preferences', { contactId: max, maxPerMonth: 1 });
    await call('runsheet_set_preferences', { contactId: gus, maxPerMonth: 1 });
    const evening = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '18:00', durationMinutes: 60 }] })).plan;
    await call('runsheet_schedule_person', { planId: evening.id, positionId: welcome, contactId: max });
    // Ivy serves an early service from 9:00 to 10:00: busy at 9:00, free at 11:00.
    const early = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '09:00', durationMinutes: 60 }] })).plan;
    await call('runsheet_schedule_person', { planId: early.id, positionId: welcome, contactId: ivy });

    const run = await call('runsheet_autofill_positions', { planId: plan.id });
    const at = (time: string) => run.filled.filter((f: any) => f.planTimeId === time).map((f: any) => f.contactId).sort();
    expect(at(nine)).toEqual([eve, gus].sort());
    // Ivy, with no place on the plan yet, is chosen before Eve and Gus take a second time; Gus's two times are one plan toward his monthly maximum.
    expect(at(eleven)).toEqual([eve, gus, ivy].sort());
    expect(run.filled.find((f: any) => f.contactId === ivy).planTimeId).toBe(eleven);
    expect(run.unfilled).toEqual([]);
    const placed = new Set(run.filled.map((f: any) => f.contactId));
    for (const never of [fay, hal, max]) expect(placed.has(never)).toBe(false);
    const after = (await call('runsheet_get_plan', { planId: plan.id })).plan;
    expect(after.neededPositions.filter((n: any) => n.positionId === projection).map((n: any) => [n.planTimeId, n.filled, n.open])).toEqual([[nine, 2, 0], [eleven, 3, 0]]);
    // Scheduling by hand agrees: Eve is now serving at 11:00, so a place at 11:00 elsewhere is a conflict.
    const clash = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '11:00', durationMinutes: 30 }] })).plan;
    expect((await refusal('runsheet_schedule_person', { planId: clash.id, positionId: welcome, contactId: eve })).details.conflicts).toEqual([expect.objectContaining({ code: 'already_serving' })]);

    // Undo takes back all five unconfirmed places.
    expect(await call('runsheet_undo_autofill', { runId: run.runId })).toMatchObject({ removed: 5, kept: 0 });

    // Two times that overlap (9:00 to 10:30 and 10:00): the only lighting person takes one, never both.
    const overlapping = (await call('runsheet_create_plan', {
      serviceTypeId: serviceType.id, date: DateTime.fromISO(date).plus({ days: 1 }).toISODate(), times: [{ kind: 'service', startTime: '09:00', durationMinutes: 90 }, { kind: 'service', startTime: '10:00', durationMinutes: 60 }],
    })).plan;
    const [first, second] = overlapping.times.map((time: { id: string }) => time.id);
    await call('runsheet_set_needed_positions', { planId: overlapping.id, positions: [{ positionId: lights, planTimeId: first, quantity: 1 }, { positionId: lights, planTimeId: second, quantity: 1 }] });
    const lit = await call('runsheet_autofill_positions', { planId: overlapping.id, positionIds: [lights] });
    expect(lit.filled).toEqual([expect.objectContaining({ contactId: eve, planTimeId: first })]);
    expect(lit.unfilled).toEqual([{ positionId: lights, planTimeId: second, open: 1, reason: 'only 0 eligible team member(s) were free' }]);
    await own.close();
  });
});
