import { startingIn } from '../../../../test/helpers/service-times';
import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Guests check-in: B's key with A's locations, stations, service instances, children, check-ins and codes. */
export const isolation: IsolationPart = {
  tables: ['guests_locations', 'guests_stations', 'guests_service_checkin_settings', 'guests_checkin_settings', 'guests_child_profiles', 'guests_checkin_groups', 'guests_checkins'],
  secrets: ['Apart toddlers', 'Apart peanut allergy', 'Apart welcome desk'],
  async seed({ harness, a, ids }) {
    const instance = (await harness.call(a.apiKey, 'schedule_create_series', {
      title: 'Apart family service', rrule: 'FREQ=WEEKLY', ...startingIn(30, 'Europe/London'), // check-in is open from an hour before
      durationMinutes: 60, timeZone: 'Europe/London',
    })).upcoming[0];
    const location = (await harness.call(a.apiKey, 'guests_create_location', { name: 'Apart toddlers', capacity: 10 })).location.id as string;
    const desk = (await harness.call(a.apiKey, 'guests_create_check_in_station', { name: 'Apart welcome desk', kind: 'manned' })).station.id as string;
    const kiosk = (await harness.call(a.apiKey, 'guests_create_check_in_station', { name: 'Apart kiosk', kind: 'self' })).station.id as string;
    await harness.call(a.apiKey, 'guests_update_checkin_hub', { stationId: kiosk });
    await harness.call(a.apiKey, 'guests_update_child_profile', { contactId: ids.contact, allergies: 'Apart peanut allergy' });
    await harness.call(a.apiKey, 'guests_update_service_checkin_settings', { seriesId: instance.seriesId, openLocationIds: [location] });
    const checkin = await harness.call(a.apiKey, 'guests_check_in', { instanceId: instance.id, stationId: desk, contactId: ids.contact, locationId: location, personKind: 'child' });
    return {
      guestsInstance: instance.id as string, guestsSeries: instance.seriesId as string, guestsLocation: location, guestsDesk: desk,
      guestsCheckin: checkin.checkins[0].id as string, guestsCode: checkin.securityCode as string,
    };
  },
  entries: {
    guests_update_location: [{ args: (i) => ({ locationId: i.guestsLocation, capacity: 99 }) }],
    guests_create_check_in_station: [{ args: (i) => ({ name: 'Sneaky roster', kind: 'roster', locationId: i.guestsLocation }) }],
    guests_delete_check_in_station: [{ args: (i) => ({ stationId: i.guestsDesk }) }],
    guests_get_service_checkin_settings: [{ args: (i) => ({ instanceId: i.guestsInstance }) }, { label: 'series', args: (i) => ({ seriesId: i.guestsSeries }) }],
    guests_update_service_checkin_settings: [{ args: (i) => ({ instanceId: i.guestsInstance, openLocationIds: [] }) }, { label: 'series', args: (i) => ({ seriesId: i.guestsSeries, labelOptions: { copies: 3 } }) }],
    guests_update_checkin_hub: [{ args: (i) => ({ stationId: i.guestsDesk }) }],
    guests_get_child_profile: [{ args: (i) => ({ contactId: i.contact }) }],
    guests_update_child_profile: [{ args: (i) => ({ contactId: i.contact, allergies: 'none' }) }],
    guests_check_in: [{ args: (i) => ({ instanceId: i.guestsInstance, stationId: i.guestsDesk, contactId: i.contact, locationId: i.guestsLocation, personKind: 'child' }) }],
    guests_check_in_household: [{ args: (i) => ({ instanceId: i.guestsInstance, stationId: i.guestsDesk, householdContactId: i.contact, children: [{ contactId: i.contact, locationId: i.guestsLocation }] }) }],
    guests_check_in_child_hub: [{ args: (i) => ({ instanceId: i.guestsInstance, childContactId: i.contact, locationId: i.guestsLocation }) }],
    guests_get_live_roster: [{ args: (i) => ({ instanceId: i.guestsInstance }) }, { label: 'location', args: (i) => ({ instanceId: i.guestsInstance, locationId: i.guestsLocation }) }],
    guests_check_out_child: [{ args: (i) => ({ checkinId: i.guestsCheckin, stationId: i.guestsDesk, securityCode: i.guestsCode, pickupName: 'Mallory' }) }],
    guests_check_out_person: [{ args: (i) => ({ checkinId: i.guestsCheckin, stationId: i.guestsDesk }) }],
    guests_reprint_label: [{ args: (i) => ({ checkinId: i.guestsCheckin }) }],
    guests_list_locations: [{ args: () => ({}), outcome: 'no_leak' }],
    guests_list_stations: [{ args: () => ({}), outcome: 'no_leak' }],
    guests_list_sweep_reports: [{ args: () => ({}), outcome: 'no_leak' }],
  },
};
