import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * Plan next Sunday by copying last week's, over MCP: a service type, a band and a sound team with
 * positions and members → this Sunday's plan with its running order and songs → the band scheduled
 * (conflicts refused: a blockout, a missing safeguarding clearance, a full position) → next Sunday
 * copied from it with the same band reset to unconfirmed, times moved to the new date → the previous
 * plan found → a song repeated within four weeks warned about → the live view → autofill and its undo.
 */
jest.setTimeout(180_000);

describe('runsheet journey: plan next Sunday from last week\'s, schedule a band', () => {
  const ZONE = 'Europe/London';
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Cecilia', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  const contact = async (firstName: string) =>
    (await mcpCall(mcp, 'people_create_contact', { firstName, lastName: 'Player', email: `${firstName.toLowerCase()}@example.org` })).contact.id as string;

  it('builds a plan, schedules a band, copies it to the next Sunday and fills the gaps', async () => {
    // Two and three Sundays from now, so both plans are upcoming whatever day the test runs.
    const now = DateTime.now().setZone(ZONE).startOf('day');
    const sunday = now.plus({ days: ((7 - now.weekday) % 7) + 7 }).toISODate()!;
    const nextSunday = DateTime.fromISO(sunday).plus({ days: 7 }).toISODate()!;

    const { serviceType } = await mcpCall(mcp, 'runsheet_create_service_type', { name: 'Morning worship' });
    const band = (await mcpCall(mcp, 'runsheet_create_team', { name: 'Band' })).teamId;
    const sound = (await mcpCall(mcp, 'runsheet_create_team', { name: 'Sound' })).teamId;
    const kids = (await mcpCall(mcp, 'runsheet_create_team', { name: 'Kids church' })).teamId;
    const drums = (await mcpCall(mcp, 'runsheet_add_position', { teamId: band, name: 'Drums' })).positionId;
    const vocals = (await mcpCall(mcp, 'runsheet_add_position', { teamId: band, name: 'Vocals' })).positionId;
    const desk = (await mcpCall(mcp, 'runsheet_add_position', { teamId: sound, name: 'Sound desk' })).positionId;
    const leader = (await mcpCall(mcp, 'runsheet_add_position', { teamId: kids, name: 'Leader', requiresClearance: true })).positionId;
    expect((await mcpRefusal(mcp, 'runsheet_add_position', { teamId: band, name: 'drums' })).code).toBe('conflict');

    const [sam, priya, jo, ben, ana, tom] = [await contact('Sam'), await contact('Priya'), await contact('Jo'), await contact('Ben'), await contact('Ana'), await contact('Tom')];
    for (const [position, person] of [[drums, sam], [drums, tom], [vocals, priya], [vocals, jo], [vocals, ana], [desk, ben], [desk, tom], [leader, ana]] as const) {
      await mcpCall(mcp, 'runsheet_add_team_member', { positionId: position, contactId: person });
    }
    const again = await mcpCall(mcp, 'runsheet_add_team_member', { positionId: drums, contactId: sam });
    expect(again).toMatchObject({ added: false, newSeat: false });
    const teams = (await mcpCall(mcp, 'runsheet_list_teams', {})).teams;
    expect(teams.find((team: any) => team.id === band).positions.find((p: any) => p.id === vocals).members.map((m: any) => m.name)).toEqual(['Ana Player', 'Jo Player', 'Priya Player']);

    // This Sunday: a 10:30 service and a rehearsal the evening before.
    const first = (await mcpCall(mcp, 'runsheet_create_plan', {
      serviceTypeId: serviceType.id, date: sunday, title: 'Morning worship', seriesTitle: 'Psalms',
      times: [{ kind: 'service', startTime: '10:30', durationMinutes: 90 }, { kind: 'rehearsal', startTime: '19:00', durationMinutes: 120, dayOffset: -1 }],
    })).plan;
    expect(first).toMatchObject({ date: sunday, state: 'draft', timeZone: expect.any(String) });
    expect(first.times.map((t: any) => t.kind).sort()).toEqual(['rehearsal', 'service']);
    const zone = first.timeZone;
    const service = first.times.find((t: any) => t.kind === 'service');
    expect(DateTime.fromISO(service.startsAt, { zone }).toFormat('yyyy-LL-dd HH:mm')).toBe(`${sunday} 10:30`);

    // Running order: a header holding items, songs from the library.
    const cornerstone = (await mcpCall(mcp, 'runsheet_create_song', { title: 'Cornerstone', author: 'Hillsong', ccliNumber: '6158927' })).songId;
    const grace = (await mcpCall(mcp, 'runsheet_create_song', { title: 'Amazing Grace', publicDomain: true })).songId;
    const inG = (await mcpCall(mcp, 'runsheet_add_arrangement', { songId: cornerstone, name: 'Band', key: 'G', bpm: 72, meter: '4/4', sequence: ['V1', 'C', 'V2', 'C', 'B', 'C'], lengthSeconds: 300 })).arrangementId;
    const welcome = (await mcpCall(mcp, 'runsheet_add_item', { planId: first.id, kind: 'item', title: 'Welcome', lengthSeconds: 180 })).itemId;
    const worship = (await mcpCall(mcp, 'runsheet_add_item', { planId: first.id, kind: 'header', title: 'Worship' })).itemId;
    const opener = (await mcpCall(mcp, 'runsheet_add_item', { planId: first.id, kind: 'song', songId: cornerstone, arrangementId: inG, parentId: worship, notes: { band: 'Soft intro' } })).itemId;
    await mcpCall(mcp, 'runsheet_add_item', { planId: first.id, kind: 'song', songId: grace, parentId: worship, lengthSeconds: 240 });
    const sermon = (await mcpCall(mcp, 'runsheet_add_item', { planId: first.id, kind: 'item', title: 'Sermon', lengthSeconds: 1500 })).itemId;
    expect((await mcpRefusal(mcp, 'runsheet_add_item', { planId: first.id, kind: 'item', title: 'Nested', parentId: opener })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'runsheet_add_item', { planId: first.id, kind: 'item', title: 'Misplaced', afterItemId: opener })).code).toBe('validation_failed');
    const call = await mcpCall(mcp, 'runsheet_add_item', { planId: first.id, kind: 'item', title: 'Call to worship', lengthSeconds: 60, parentId: worship, afterItemId: opener });
    expect(call.items.filter((i: any) => i.parentId === worship).map((i: any) => i.title)).toEqual(['Cornerstone', 'Call to worship', 'Amazing Grace']);
    await mcpCall(mcp, 'runsheet_remove_item', { planId: first.id, itemId: call.itemId });
    const reordered = (await mcpCall(mcp, 'runsheet_reorder_items', { planId: first.id, itemIds: [worship, welcome, sermon] })).items;
    expect(reordered.map((i: any) => i.title)).toEqual(['Worship', 'Cornerstone', 'Amazing Grace', 'Welcome', 'Sermon']);
    expect(reordered[1]).toMatchObject({ key: 'G', lengthSeconds: 300, notes: { band: 'Soft intro' }, parentId: worship });
    expect((await mcpRefusal(mcp, 'runsheet_reorder_items', { planId: first.id, itemIds: [worship, welcome] })).code).toBe('validation_failed');
    await mcpCall(mcp, 'runsheet_update_item', { planId: first.id, itemId: sermon, lengthSeconds: 1800, notes: { sound: 'Lapel mic' } });

    // The band: needed positions, then people; conflicts are refused with their reasons.
    await mcpCall(mcp, 'runsheet_set_needed_positions', { planId: first.id, positions: [{ positionId: drums, quantity: 1 }, { positionId: vocals, quantity: 2 }, { positionId: desk, quantity: 1 }, { positionId: leader, quantity: 1 }] });
    await mcpCall(mcp, 'runsheet_record_blockout', { contactId: jo, startsOn: sunday, reason: 'Away' });
    const blocked = await mcpRefusal(mcp, 'runsheet_schedule_person', { planId: first.id, positionId: vocals, contactId: jo });
    expect(blocked).toMatchObject({ code: 'conflict', details: { conflicts: [{ code: 'blockout' }] } });
    const uncleared = await mcpRefusal(mcp, 'runsheet_schedule_person', { planId: first.id, positionId: leader, contactId: ana, allowConflicts: true });
    expect(uncleared.details.conflicts.map((c: any) => c.code)).toEqual(['missing_clearance']);
    await mcpCall(mcp, 'runsheet_schedule_person', { planId: first.id, positionId: drums, contactId: sam });
    await mcpCall(mcp, 'runsheet_schedule_person', { planId: first.id, positionId: vocals, contactId: priya });
    await mcpCall(mcp, 'runsheet_schedule_person', { planId: first.id, positionId: vocals, contactId: ana });
    const full = await mcpRefusal(mcp, 'runsheet_schedule_person', { planId: first.id, positionId: drums, contactId: tom });
    expect(full).toMatchObject({ code: 'conflict', details: { reason: 'position_full' } });
    // Tom is on sound; he cannot also be on drums at the same time once he serves.
    await mcpCall(mcp, 'runsheet_schedule_person', { planId: first.id, positionId: desk, contactId: tom });
    await mcpCall(mcp, 'runsheet_set_needed_positions', { planId: first.id, positions: [{ positionId: drums, quantity: 2 }] });
    const twice = await mcpRefusal(mcp, 'runsheet_schedule_person', { planId: first.id, positionId: drums, contactId: tom });
    expect(twice.details.conflicts.map((c: any) => c.code)).toEqual(['already_serving']);
    await mcpCall(mcp, 'runsheet_set_needed_positions', { planId: first.id, positions: [{ positionId: drums, quantity: 1 }, { positionId: leader, quantity: 0 }] });

    const accepted = await mcpCall(mcp, 'runsheet_get_plan', { planId: first.id });
    const priyaRow = accepted.plan.people.find((p: any) => p.contactId === priya);
    await mcpCall(mcp, 'runsheet_respond_to_request', { planPersonId: priyaRow.id, response: 'accept' });
    const firstPlan = (await mcpCall(mcp, 'runsheet_get_plan', { planId: first.id })).plan;
    expect(firstPlan.people.map((p: any) => [p.name, p.positionName, p.status]).sort()).toEqual([
      ['Ana Player', 'Vocals', 'unconfirmed'], ['Priya Player', 'Vocals', 'accepted'], ['Sam Player', 'Drums', 'unconfirmed'], ['Tom Player', 'Sound desk', 'unconfirmed'],
    ]);
    expect(firstPlan.neededPositions.map((n: any) => [n.positionName, n.quantity, n.filled, n.open])).toEqual([['Drums', 1, 1, 0], ['Vocals', 2, 2, 0], ['Sound desk', 1, 1, 0]]);
    expect(firstPlan.totalLengthSeconds).toBe(300 + 240 + 180 + 1800);

    // Next Sunday, copied from this one with its band: same clock times on the new date, people unconfirmed.
    const copy = await mcpCall(mcp, 'runsheet_copy_plan', { sourcePlanId: first.id, date: nextSunday, include: { items: true, positions: true, people: true } });
    expect(copy.copied).toEqual({ items: 5, positions: 3, people: 4 });
    const second = copy.plan;
    expect(second).toMatchObject({ date: nextSunday, copiedFromPlanId: first.id, state: 'draft', seriesTitle: 'Psalms' });
    const secondService = second.times.find((t: any) => t.kind === 'service');
    const secondRehearsal = second.times.find((t: any) => t.kind === 'rehearsal');
    expect(DateTime.fromISO(secondService.startsAt, { zone }).toFormat('yyyy-LL-dd HH:mm')).toBe(`${nextSunday} 10:30`);
    expect(DateTime.fromISO(secondRehearsal.startsAt, { zone }).toFormat('yyyy-LL-dd HH:mm')).toBe(`${DateTime.fromISO(nextSunday).minus({ days: 1 }).toISODate()} 19:00`);
    expect(second.items.map((i: any) => [i.title, i.parentId === null])).toEqual([['Worship', true], ['Cornerstone', false], ['Amazing Grace', false], ['Welcome', true], ['Sermon', true]]);
    expect(second.people.every((p: any) => p.status === 'unconfirmed' && p.notifiedAt === null)).toBe(true);
    expect(second.people).toHaveLength(4);

    const previous = await mcpCall(mcp, 'runsheet_find_previous_plan', { planId: second.id });
    expect(previous.plan.id).toBe(first.id);
    const listed = await mcpCall(mcp, 'runsheet_list_plans', { serviceTypeId: serviceType.id, limit: 1 });
    expect(listed.plans.map((p: any) => p.id)).toEqual([first.id]);
    expect((await mcpCall(mcp, 'runsheet_list_plans', { serviceTypeId: serviceType.id, limit: 1, cursor: listed.nextCursor })).plans.map((p: any) => p.id)).toEqual([second.id]);

    // Cornerstone again within four weeks: set, with a warning.
    const songItem = second.items.find((i: any) => i.title === 'Amazing Grace').id;
    const set = await mcpCall(mcp, 'runsheet_set_song', { planId: second.id, itemId: songItem, songId: cornerstone, arrangementId: inG });
    expect(set.warnings).toHaveLength(1);
    expect(set.recentUses.map((u: any) => u.planId)).toEqual([first.id]);

    // Live view of a service that began 5 minutes 10 seconds ago: Cornerstone (5 minutes) is done, Amazing Grace is on, Welcome is next.
    const live = await mcpCall(mcp, 'runsheet_get_live_view', { planId: first.id, startedAt: new Date(Date.now() - 310_000).toISOString() });
    expect(live.current).toMatchObject({ title: 'Amazing Grace' });
    expect(live.current.secondsLeft).toBeGreaterThan(200);
    expect(live.current.secondsLeft).toBeLessThanOrEqual(230);
    expect(live.next).toMatchObject({ title: 'Welcome' });
    const notYet = await mcpCall(mcp, 'runsheet_get_live_view', { planId: first.id });
    expect(notYet).toMatchObject({ state: 'draft', current: null, next: { title: 'Cornerstone' } });

    // Autofill the copy's open places after a vocalist drops out; undo takes back only the unconfirmed.
    const anaRow = second.people.find((p: any) => p.contactId === ana);
    await mcpCall(mcp, 'runsheet_respond_to_request', { planPersonId: anaRow.id, response: 'decline', reason: 'Working' });
    await mcpCall(mcp, 'runsheet_set_needed_positions', { planId: second.id, positions: [{ positionId: vocals, quantity: 3 }] });
    const fill = await mcpCall(mcp, 'runsheet_autofill_positions', { planId: second.id });
    // Jo is blocked out only on the first Sunday; Ana declined this one: Jo fills one place, one stays open.
    expect(fill.filled.map((f: any) => f.contactId)).toEqual([jo]);
    expect(fill.unfilled).toEqual([{ positionId: vocals, planTimeId: null, open: 1, reason: expect.any(String) }]);
    const undo = await mcpCall(mcp, 'runsheet_undo_autofill', { runId: fill.runId });
    expect(undo).toMatchObject({ removed: 1, kept: 0 });
    expect((await mcpCall(mcp, 'runsheet_get_plan', { planId: second.id })).plan.people.some((p: any) => p.contactId === jo)).toBe(false);

    // Locked: the running order no longer changes until unlocked.
    expect((await mcpCall(mcp, 'runsheet_lock_plan', { planId: second.id })).state).toBe('locked');
    expect((await mcpRefusal(mcp, 'runsheet_add_item', { planId: second.id, kind: 'item', title: 'Late notice' })).code).toBe('conflict');
    expect((await mcpCall(mcp, 'runsheet_lock_plan', { planId: second.id, locked: false })).state).toBe('draft');
  });

  it('refuses bad input and foreign ids plainly, changing nothing', async () => {
    const other = await harness.createOrg({ name: 'Elsewhere' });
    const { serviceType } = await harness.call(other.apiKey, 'runsheet_create_service_type', { name: 'Evening' });
    const foreign = (await harness.call(other.apiKey, 'runsheet_create_plan', {
      serviceTypeId: serviceType.id, date: DateTime.now().plus({ days: 30 }).toISODate(), times: [{ kind: 'service', startTime: '18:00', durationMinutes: 60 }],
    })).plan.id;
    expect((await mcpRefusal(mcp, 'runsheet_get_plan', { planId: foreign })).code).toBe('not_found');
    expect((await mcpRefusal(mcp, 'runsheet_add_item', { planId: foreign, kind: 'item', title: 'x' })).code).toBe('not_found');
    expect((await mcpRefusal(mcp, 'runsheet_create_plan', { serviceTypeId: serviceType.id, date: '2030-01-01', times: [{ kind: 'service', startTime: '10:00', durationMinutes: 60 }] })).code).toBe('not_found');
    const mine = (await mcpCall(mcp, 'runsheet_create_service_type', { name: 'Midweek' })).serviceType.id;
    expect((await mcpRefusal(mcp, 'runsheet_create_plan', { serviceTypeId: mine, date: '2030-01-01' })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'runsheet_create_plan', { serviceTypeId: mine, date: '2030-01-01', times: [{ kind: 'rehearsal', startTime: '10:00', durationMinutes: 60 }] })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'runsheet_create_plan', { serviceTypeId: mine, date: '2030-01-01', times: [{ kind: 'service', startTime: '25:00', durationMinutes: 60 }] })).code).toBe('validation_failed');
    const plans = await mcpCall(mcp, 'runsheet_list_plans', { serviceTypeId: mine });
    expect(plans.plans).toEqual([]);
  });
});
