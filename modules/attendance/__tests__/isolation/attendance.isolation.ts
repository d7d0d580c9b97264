import { startingIn } from '../../../../test/helpers/service-times';
import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Attendance: B's key with A's service instances, headcounts, check-ins, locations and contacts. */
export const isolation: IsolationPart = {
  tables: ['attendance_headcounts'],
  secrets: ['Apart balcony', 'Apart headcount note'],
  async seed({ harness, a, ids }) {
    const instance = (await harness.call(a.apiKey, 'schedule_create_series', {
      title: 'Apart attendance service', rrule: 'FREQ=WEEKLY', ...startingIn(30, 'Europe/London'), // check-in is open from an hour before
      durationMinutes: 60, timeZone: 'Europe/London',
    })).upcoming[0];
    const location = (await harness.call(a.apiKey, 'guests_create_location', { name: 'Apart balcony' })).location.id as string;
    const desk = (await harness.call(a.apiKey, 'guests_create_check_in_station', { name: 'Apart attendance desk', kind: 'manned' })).station.id as string;
    await harness.call(a.apiKey, 'guests_check_in', { instanceId: instance.id, stationId: desk, contactId: ids.contact, locationId: location, personKind: 'adult' });
    await harness.call(a.apiKey, 'attendance_record_headcount', { instanceId: instance.id, locationId: location, count: 12, note: 'Apart headcount note' });
    return { attendanceInstance: instance.id as string, attendanceSeries: instance.seriesId as string, attendanceLocation: location, attendanceDay: instance.localDate as string };
  },
  entries: {
    attendance_record_headcount: [
      { args: (i) => ({ instanceId: i.attendanceInstance, count: 1 }) },
      { label: 'location', args: (i) => ({ instanceId: i.attendanceInstance, locationId: i.attendanceLocation, count: 1 }) },
    ],
    attendance_get_person_history: [{ args: (i) => ({ contactId: i.contact }) }],
    attendance_list_checkins: [{ args: (i) => ({ from: i.attendanceDay, to: i.attendanceDay, instanceId: i.attendanceInstance, contactId: i.contact, locationId: i.attendanceLocation }), outcome: 'no_leak' }],
    attendance_get_summary: [{ args: (i) => ({ from: i.attendanceDay, to: i.attendanceDay, instanceId: i.attendanceInstance, seriesId: i.attendanceSeries, locationId: i.attendanceLocation }), outcome: 'no_leak' }],
  },
};
