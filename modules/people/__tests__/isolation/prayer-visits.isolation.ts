import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Prayer requests, pastoral visits and the community roster: B's key with A's ids. */
export const isolation: IsolationPart = {
  tables: ['prayer_requests', 'pastoral_visits', 'community_memberships', 'community_settings'],
  secrets: ['Pray for the Apart family reunion', 'Hospital visit to the Apart household'],
  async seed({ harness, a, ids }) {
    const prayerRequest = (await harness.call(a.apiKey, 'people_add_prayer_request', { contactId: ids.contact, request: 'Pray for the Apart family reunion', visibility: 'congregation' })).prayerRequest.id;
    const visit = (await harness.call(a.apiKey, 'people_log_pastoral_visit', { contactId: ids.contact, kind: 'hospital', summary: 'Hospital visit to the Apart household' })).visit.id;
    await harness.call(a.apiKey, 'people_set_community_membership_bulk', { memberships: [{ contactId: ids.contact, member: true }] });
    await harness.call(a.apiKey, 'people_set_community_settings', { wallPostLifetimeDays: 21 });
    return { pvPrayerRequest: prayerRequest, pvVisit: visit };
  },
  entries: {
    people_add_prayer_request: [{ args: (i) => ({ contactId: i.contact, request: 'Planted by B' }) }],
    people_list_prayer_requests: [{ args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' }, { label: 'unfiltered', args: () => ({}), outcome: 'no_leak' }],
    people_update_prayer_request: [{ args: (i) => ({ prayerRequestId: i.pvPrayerRequest, visibility: 'private' }) }],
    people_set_prayer_request_status: [{ args: (i) => ({ prayerRequestId: i.pvPrayerRequest, status: 'answered' }) }],
    people_log_pastoral_visit: [{ args: (i) => ({ contactId: i.contact, summary: 'Planted by B' }) }],
    people_list_pastoral_visits: [{ args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' }, { label: 'unfiltered', args: () => ({}), outcome: 'no_leak' }],
    people_remove_pastoral_visit: [{ args: (i) => ({ visitId: i.pvVisit }) }],
    // Each entry answers on its own: A's contact is reported not_found inside a successful call, and nothing is written.
    people_set_community_membership_bulk: [{ args: (i) => ({ memberships: [{ contactId: i.contact, member: false }, { contactId: i.contact, member: true }] }), outcome: 'no_leak' }],
  },
};
