import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** The schedule: B's key with A's series and instances. */
export const isolation: IsolationPart = {
  tables: ['schedule_series', 'schedule_instances'],
  secrets: ['Apart evensong', 'Apart crypt'],
  async seed({ harness, a }) {
    const created = await harness.call(a.apiKey, 'schedule_create_series', {
      title: 'Apart evensong', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: new Date().toISOString().slice(0, 10), startTime: '23:45',
      durationMinutes: 60, timeZone: 'Europe/London', locationLabel: 'Apart crypt',
    });
    const instance = created.upcoming[0].id as string;
    return { scheduleSeries: created.series.id, scheduleInstance: instance };
  },
  entries: {
    schedule_get_series: [{ args: (i) => ({ seriesId: i.scheduleSeries }) }],
    schedule_update_series: [
      { label: 'all', args: (i) => ({ seriesId: i.scheduleSeries, scope: 'all', changes: { title: 'B renames it' } }) },
      { label: 'this', args: (i) => ({ seriesId: i.scheduleSeries, scope: 'this', instanceId: i.scheduleInstance, changes: { title: 'B renames it' } }) },
    ],
    schedule_delete_series: [{ args: (i) => ({ seriesId: i.scheduleSeries }) }],
    schedule_add_extra_instance: [{ args: (i) => ({ seriesId: i.scheduleSeries, localDate: '2030-01-05', localStartTime: '18:00' }) }],
    schedule_cancel_instance: [{ args: (i) => ({ instanceId: i.scheduleInstance }) }],
    schedule_move_instance: [{ args: (i) => ({ instanceId: i.scheduleInstance, localStartTime: '23:50' }) }],
    schedule_restore_instance: [{ args: (i) => ({ instanceId: i.scheduleInstance }) }],
    schedule_get_instance: [{ args: (i) => ({ instanceId: i.scheduleInstance }) }],
    schedule_list_upcoming_instances: [
      { args: () => ({ days: 30, includeCancelled: true }), outcome: 'no_leak' },
      { label: 'by series', args: (i) => ({ seriesId: i.scheduleSeries }) },
    ],
    schedule_export_ical: [
      { args: () => ({}), outcome: 'no_leak' },
      { label: 'by series', args: (i) => ({ seriesId: i.scheduleSeries }) },
    ],
    schedule_list_series: [{ args: () => ({}), outcome: 'no_leak' }],
  },
};
