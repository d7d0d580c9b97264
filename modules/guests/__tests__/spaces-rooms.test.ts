import { Harness, type TestOrg } from '../../../test/helpers/harness';

/** guests_import_spaces_rooms: rooms managed in spaces become check-in locations, capacity carried, idempotently. */
describe('guests: importing spaces rooms as check-in locations', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  const call = (tool: string, args: Record<string, unknown>, key = org.apiKey) => harness.call(key, tool, args);

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Aidan' });
    other = await harness.createOrg({ name: 'Elsewhere' });
  });
  afterAll(async () => harness?.close());

  it('creates a location per room, links one already named like a room, and changes nothing new when run again', async () => {
    const building = (await call('spaces_create_building', { name: 'Centre' })).building;
    const annexe = (await call('spaces_create_building', { name: 'Annexe' })).building;
    const toddlers = (await call('spaces_create_room', { buildingId: building.id, name: 'Toddler room', capacity: 15 })).room;
    const store = (await call('spaces_create_room', { buildingId: building.id, name: 'Store', capacity: 0 })).room;
    const youth = (await call('spaces_create_room', { buildingId: annexe.id, name: 'Youth room', capacity: 40 })).room;
    const existing = (await call('guests_create_location', { name: 'youth ROOM', capacity: 30, childrenPerAdult: 8 })).location;

    const first = await call('guests_import_spaces_rooms', {});
    expect(first).toMatchObject({ created: 2, linked: 1, updated: 0, unchanged: 0 });
    const byRoom = new Map(first.locations.map((l: any) => [l.spacesRoomId, l]));
    expect(byRoom.get(toddlers.id)).toMatchObject({ name: 'Toddler room', capacity: 15 });
    expect(byRoom.get(store.id)).toMatchObject({ name: 'Store', capacity: null });
    expect(byRoom.get(youth.id)).toMatchObject({ id: existing.id, name: 'Youth room', capacity: 40, childrenPerAdult: 8 });

    const again = await call('guests_import_spaces_rooms', {});
    expect(again).toMatchObject({ created: 0, linked: 0, updated: 0, unchanged: 3 });
    await call('spaces_update_room', { roomId: toddlers.id, changes: { capacity: 18 } });
    const onlyCentre = await call('guests_import_spaces_rooms', { buildingId: building.id });
    expect(onlyCentre).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    const locations = (await call('guests_list_locations', {})).locations;
    expect(locations).toHaveLength(3);
    expect(locations.find((l: any) => l.name === 'Toddler room').capacity).toBe(18);

    const { body } = await harness.invoke(other.apiKey, 'guests_import_spaces_rooms', { buildingId: building.id });
    expect(body.error?.code).toBe('not_found');
    expect((await call('guests_import_spaces_rooms', {}, other.apiKey))).toMatchObject({ created: 0, locations: [] });
  });
});
