import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** The guests module's services: B's key with A's service instances (from the schedule). */
export const isolation: IsolationPart = {
  tables: ['schedule_instances'],
  secrets: ['Apart harvest service'],
  async seed({ harness, a }) {
    const created = await harness.call(a.apiKey, 'schedule_create_series', {
      title: 'Apart harvest service', rrule: 'FREQ=DAILY', startDate: new Date().toISOString().slice(0, 10), startTime: '23:40',
      durationMinutes: 60, timeZone: 'Europe/London',
    });
    return { guestsServiceInstance: created.upcoming[0].id as string };
  },
  entries: {
    guests_duplicate_service: [{ args: (i) => ({ instanceId: i.guestsServiceInstance, localDate: '2030-01-05', localStartTime: '18:00' }) }],
    guests_list_services_today: [{ args: () => ({}), outcome: 'no_leak' }],
    guests_list_services: [{ args: () => ({ from: new Date().toISOString().slice(0, 10), to: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10) }), outcome: 'no_leak' }],
  },
};
