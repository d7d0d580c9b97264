import { DateTime } from 'luxon';
import { withTransaction } from '../../../db/pool';
import { mergeContacts } from '../../people/merge';
import { Harness, type TestOrg } from '../../../test/helpers/harness';

/**
 * Merging two contacts reaches every runsheet column that names one: rows move to the kept contact,
 * and where the kept contact already holds the same slot (a team position, a place on a plan, their
 * preferences) the moved row gives way instead of refusing the merge. Erasure deletes them all.
 */
jest.setTimeout(120_000);

describe('runsheet rows under merge and erasure', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Merge', planCode: 'growth' });
  });

  afterAll(async () => harness?.close());

  const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);
  const countFor = async (contactId: string) => {
    const tables = ['runsheet_team_members', 'runsheet_plan_people', 'runsheet_blockouts', 'runsheet_preferences'];
    const counts: Record<string, number> = {};
    for (const table of tables) counts[table] = (await harness.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE contact_id = $1`, [contactId])).rows[0].n;
    return counts;
  };

  it('moves rows to the kept contact, giving way where it holds the slot already, and erasure removes them', async () => {
    const keep = (await call('people_create_contact', { firstName: 'Mo', lastName: 'Kept' })).contact.id;
    const dup = (await call('people_create_contact', { firstName: 'Mo', lastName: 'Kept' })).contact.id;
    const team = (await call('runsheet_create_team', { name: 'Merge team' })).teamId;
    const [bass, keys] = [(await call('runsheet_add_position', { teamId: team, name: 'Bass' })).positionId, (await call('runsheet_add_position', { teamId: team, name: 'Keys' })).positionId];
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Merge service' });
    const date = DateTime.now().plus({ days: 25 }).toISODate()!;
    const plan = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '10:00', durationMinutes: 60 }] })).plan.id;
    const other = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date: DateTime.fromISO(date).plus({ days: 7 }).toISODate(), times: [{ kind: 'service', startTime: '10:00', durationMinutes: 60 }] })).plan.id;
    // Both on Bass (the same slot), the duplicate also on Keys; both on the plan's Bass place; the duplicate alone on the other plan.
    for (const [position, person] of [[bass, keep], [bass, dup], [keys, dup]]) await call('runsheet_add_team_member', { positionId: position, contactId: person });
    await call('runsheet_set_needed_positions', { planId: plan, positions: [{ positionId: bass, quantity: 2 }] });
    await call('runsheet_schedule_person', { planId: plan, positionId: bass, contactId: keep });
    await call('runsheet_schedule_person', { planId: plan, positionId: bass, contactId: dup });
    await call('runsheet_schedule_person', { planId: other, positionId: keys, contactId: dup });
    await call('runsheet_set_preferences', { contactId: keep, maxPerMonth: 2 });
    await call('runsheet_set_preferences', { contactId: dup, householdRule: 'apart' });
    await call('runsheet_record_blockout', { contactId: dup, startsOn: DateTime.fromISO(date).plus({ days: 30 }).toISODate() });

    await withTransaction(harness.pool, (db) => mergeContacts(db, org.orgId, keep, dup, null));
    expect(await countFor(dup)).toEqual({ runsheet_team_members: 0, runsheet_plan_people: 0, runsheet_blockouts: 0, runsheet_preferences: 0 });
    expect(await countFor(keep)).toEqual({ runsheet_team_members: 2, runsheet_plan_people: 2, runsheet_blockouts: 1, runsheet_preferences: 1 });
    const kept = (await call('runsheet_get_plan', { planId: plan })).plan.people;
    expect(kept.map((p: any) => p.contactId)).toEqual([keep]);

    await call('people_delete_contact', { contactId: keep, permanent: true });
    expect(await countFor(keep)).toEqual({ runsheet_team_members: 0, runsheet_plan_people: 0, runsheet_blockouts: 0, runsheet_preferences: 0 });
    expect((await call('runsheet_get_plan', { planId: other })).plan.people).toEqual([]);
  });
});
