import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/**
 * Life events and grief care: organisation A's bereavement (with its plan's touchpoints) and a
 * celebration; B's key probes every tool that names one of them, or A's contact, and must find nothing.
 */
export const isolation: IsolationPart = {
  tables: ['pastoral_life_events', 'pastoral_grief_touchpoints'],
  secrets: ['Isolation bereavement', 'Isolation wedding'],
  seed: async ({ harness, a, ids }) => {
    const call = (tool: string, args: Record<string, unknown>) => harness.call(a.apiKey, tool, args);
    const today = new Date().toISOString().slice(0, 10);
    const loss = await call('people_record_life_event', { contactId: ids.contact, type: 'bereavement', title: 'Isolation bereavement', eventDate: today });
    const wedding = await call('people_record_life_event', { contactId: ids.contact, type: 'marriage', title: 'Isolation wedding', eventDate: today });
    return { lifeEvent: loss.lifeEvent.id, celebration: wedding.lifeEvent.id, touchpoint: loss.griefPlan.touchpoints[0].id };
  },
  entries: {
    people_record_life_event: [{ args: (i) => ({ contactId: i.contact, type: 'birth', title: 'Planted by B' }) }],
    people_update_life_event: [{ args: (i) => ({ lifeEventId: i.lifeEvent, title: 'Changed by B' }) }],
    people_list_pastoral_life_events: [{ args: (i) => ({ contactId: i.contact }) }],
    people_set_life_event_status: [{ args: (i) => ({ lifeEventId: i.lifeEvent, status: 'resolved' }) }],
    people_celebrate_life_event: [{ args: (i) => ({ lifeEventId: i.celebration }) }],
    people_remove_life_event: [{ args: (i) => ({ lifeEventId: i.lifeEvent }) }],
    people_generate_life_event_message: [{ args: (i) => ({ lifeEventId: i.celebration }) }],
    people_get_contact_life_events_timeline: [{ args: (i) => ({ contactId: i.contact }) }],
    people_export_life_events_report: [
      { args: (i) => ({ contactId: i.contact }) },
      { label: 'unfiltered', args: () => ({}), outcome: 'no_leak' },
    ],
    people_export_life_events_calendar: [
      { args: (i) => ({ contactId: i.contact }) },
      { label: 'unfiltered', args: () => ({}), outcome: 'no_leak' },
    ],
    people_list_grief_touchpoints: [
      { args: (i) => ({ lifeEventId: i.lifeEvent }) },
      { label: 'contact', args: (i) => ({ contactId: i.contact }) },
      { label: 'unfiltered', args: () => ({ status: 'all' }), outcome: 'no_leak' },
    ],
    people_complete_grief_touchpoint: [{ args: (i) => ({ touchpointId: i.touchpoint }) }],
  },
};
