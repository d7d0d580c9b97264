import type { IsolationPart } from '../../../../test/e2e/isolation/part';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Spaces: B's key with A's buildings, rooms, resources, bookings and conflicts. */
export const isolation: IsolationPart = {
  tables: [
    'spaces_campuses', 'spaces_buildings', 'spaces_rooms', 'spaces_resources', 'spaces_bookings', 'spaces_booking_resources', 'spaces_blockouts', 'spaces_occurrences', 'spaces_conflicts',
    'spaces_incidents', 'spaces_utility_meters', 'spaces_utility_bills', 'spaces_booking_charges', 'spaces_charge_payments',
  ],
  secrets: ['Apart annexe', 'Apart ballroom', 'Apart gala', 'Apart harps', 'Apart leak', 'Apart hire', 'Apart gas'],
  async seed({ harness, a }) {
    const building = await harness.call(a.apiKey, 'spaces_create_building', { name: 'Apart annexe', campus: 'Apart campus' });
    const room = await harness.call(a.apiKey, 'spaces_create_room', { buildingId: building.building.id, name: 'Apart ballroom', capacity: 50 });
    const resource = await harness.call(a.apiKey, 'spaces_create_resource', { name: 'Apart harps', quantity: 3 });
    const first = await harness.call(a.apiKey, 'spaces_create_booking', { title: 'Apart gala', roomId: room.room.id, localDate: day(20), startTime: '19:00', durationMinutes: 60 });
    const second = await harness.call(a.apiKey, 'spaces_create_booking', {
      title: 'Apart gala rehearsal', roomId: room.room.id, localDate: day(13), startTime: '19:00', durationMinutes: 60, rrule: 'FREQ=WEEKLY;COUNT=3', onConflict: 'hold',
    });
    const conflicts = await harness.call(a.apiKey, 'spaces_list_conflicts', { bookingId: second.booking.id });
    const incident = await harness.call(a.apiKey, 'spaces_report_incident', { title: 'Apart leak', roomId: room.room.id });
    const charge = await harness.call(a.apiKey, 'spaces_create_booking_charge', { bookingId: first.booking.id, description: 'Apart hire', amountMinor: 1000, currency: 'GBP', dueDate: day(10) });
    await harness.call(a.apiKey, 'spaces_record_utility_bill', { buildingId: building.building.id, kind: 'gas', periodStart: day(-30), periodEnd: day(-1), usage: 10, costMinor: 999, currency: 'GBP', supplier: 'Apart gas' });
    return {
      spacesBuilding: building.building.id, spacesCampus: building.building.campusId, spacesRoom: room.room.id, spacesResource: resource.resource.id,
      spacesBooking: first.booking.id, spacesOccurrence: first.booking.upcoming.next[0].id, spacesConflict: conflicts.conflicts[0].id,
      spacesIncident: incident.incident.id, spacesCharge: charge.charge.id,
    };
  },
  entries: {
    spaces_list_buildings: [{ args: () => ({}), outcome: 'no_leak' }],
    spaces_list_rooms: [{ args: () => ({}), outcome: 'no_leak' }, { label: 'by building', args: (i) => ({ buildingId: i.spacesBuilding }) }, { label: 'by campus', args: (i) => ({ campusId: i.spacesCampus }) }],
    spaces_create_room: [{ args: (i) => ({ buildingId: i.spacesBuilding, name: 'B room', capacity: 5 }) }],
    spaces_update_room: [{ args: (i) => ({ roomId: i.spacesRoom, changes: { capacity: 1 } }) }],
    spaces_archive_room: [{ args: (i) => ({ roomId: i.spacesRoom }) }],
    spaces_list_resources: [{ args: () => ({}), outcome: 'no_leak' }, { label: 'by building', args: (i) => ({ buildingId: i.spacesBuilding }) }],
    spaces_create_resource: [{ args: (i) => ({ name: 'B chairs', quantity: 5, buildingId: i.spacesBuilding }) }],
    spaces_search_availability: [
      { args: () => ({ localDate: day(20), startTime: '19:00', durationMinutes: 60 }), outcome: 'no_leak' },
      { label: 'by building', args: (i) => ({ localDate: day(20), startTime: '19:00', durationMinutes: 60, buildingId: i.spacesBuilding }), outcome: 'no_leak' },
      { label: 'by campus', args: (i) => ({ localDate: day(20), startTime: '19:00', durationMinutes: 60, campusId: i.spacesCampus }), outcome: 'no_leak' },
    ],
    spaces_create_booking: [
      { args: (i) => ({ title: 'B', roomId: i.spacesRoom, localDate: day(21), startTime: '10:00', durationMinutes: 30 }) },
      { label: 'resource', args: (i) => ({ title: 'B', resources: [{ resourceId: i.spacesResource, quantity: 1 }], localDate: day(21), startTime: '10:00', durationMinutes: 30 }) },
    ],
    spaces_update_booking: [{ args: (i) => ({ bookingId: i.spacesBooking, changes: { title: 'B renames it' } }) }],
    spaces_cancel_booking: [{ args: (i) => ({ bookingId: i.spacesBooking }) }],
    spaces_list_bookings: [
      { args: () => ({ days: 60 }), outcome: 'no_leak' },
      { label: 'by room', args: (i) => ({ roomId: i.spacesRoom, days: 60 }) },
      { label: 'by booking', args: (i) => ({ bookingId: i.spacesBooking, days: 60 }), outcome: 'no_leak' },
    ],
    spaces_get_room_schedule: [{ args: (i) => ({ roomId: i.spacesRoom, localDate: day(20) }) }],
    spaces_approve_booking: [{ args: (i) => ({ bookingId: i.spacesBooking }) }],
    spaces_reject_booking: [{ args: (i) => ({ bookingId: i.spacesBooking }) }],
    spaces_list_conflicts: [{ args: () => ({}), outcome: 'no_leak' }, { label: 'by booking', args: (i) => ({ bookingId: i.spacesBooking }), outcome: 'no_leak' }],
    spaces_resolve_conflict: [{ args: (i) => ({ conflictId: i.spacesConflict, keep: 'other' }) }],
    spaces_create_blockout: [
      { args: (i) => ({ roomId: i.spacesRoom, from: `${day(20)}T08:00`, to: `${day(20)}T22:00`, reason: 'B closes it' }) },
      { label: 'building', args: (i) => ({ buildingId: i.spacesBuilding, from: `${day(20)}T08:00`, to: `${day(20)}T22:00`, reason: 'B closes it' }) },
      { label: 'campus', args: (i) => ({ campusId: i.spacesCampus, from: `${day(20)}T08:00`, to: `${day(20)}T22:00`, reason: 'B closes it' }) },
      { label: 'resource', args: (i) => ({ resourceId: i.spacesResource, from: `${day(20)}T08:00`, to: `${day(20)}T22:00`, reason: 'B closes it' }) },
    ],
    spaces_report_incident: [{ label: 'room', args: (i) => ({ title: 'B', roomId: i.spacesRoom }) }, { label: 'building', args: (i) => ({ title: 'B', buildingId: i.spacesBuilding }) }],
    spaces_update_incident: [{ args: (i) => ({ incidentId: i.spacesIncident, status: 'done' }) }],
    spaces_list_incidents: [{ args: () => ({}), outcome: 'no_leak' }, { label: 'by room', args: (i) => ({ roomId: i.spacesRoom }) }, { label: 'by building', args: (i) => ({ buildingId: i.spacesBuilding }) }],
    spaces_record_utility_bill: [{ args: (i) => ({ buildingId: i.spacesBuilding, kind: 'water', periodStart: day(-30), periodEnd: day(-1), usage: 1, costMinor: 1, currency: 'GBP' }) }],
    spaces_get_utility_summary: [{ args: () => ({}), outcome: 'no_leak' }, { label: 'by building', args: (i) => ({ buildingId: i.spacesBuilding }) }],
    spaces_create_booking_charge: [{ args: (i) => ({ bookingId: i.spacesBooking, description: 'B', amountMinor: 1, currency: 'GBP', dueDate: day(5) }) }],
    spaces_record_charge_payment: [{ args: (i) => ({ chargeId: i.spacesCharge, amountMinor: 1, paidOn: day(0), method: 'cash' }) }],
    spaces_list_charges: [{ args: () => ({}), outcome: 'no_leak' }, { label: 'by booking', args: (i) => ({ bookingId: i.spacesBooking }) }],
  },
};
