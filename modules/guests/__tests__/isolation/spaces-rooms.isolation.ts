import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Importing spaces rooms as check-in locations: B's key with A's building. */
export const isolation: IsolationPart = {
  tables: ['guests_locations', 'spaces_rooms', 'spaces_buildings'],
  secrets: ['Apart vestry block', 'Apart sunday school'],
  async seed({ harness, a }) {
    const building = await harness.call(a.apiKey, 'spaces_create_building', { name: 'Apart vestry block' });
    await harness.call(a.apiKey, 'spaces_create_room', { buildingId: building.building.id, name: 'Apart sunday school', capacity: 20 });
    return { guestsSpacesBuilding: building.building.id };
  },
  entries: {
    guests_import_spaces_rooms: [
      { args: () => ({}), outcome: 'no_leak' },
      { label: 'by building', args: (i) => ({ buildingId: i.guestsSpacesBuilding }) },
    ],
  },
};
