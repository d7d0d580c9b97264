import type { IsolationPart } from '../../../../test/e2e/isolation/part';

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/** The guest pipeline: B's key with A's stages, guest cards, welcome cards, submissions and volunteer schedules. */
export const isolation: IsolationPart = {
  tables: ['guests_pipeline_stages', 'guests_pipeline_cards', 'guests_pipeline_events', 'guests_welcome_cards', 'guests_card_submissions', 'guests_volunteer_assignments'],
  secrets: ['Apart Welcome stage', 'Apartguest', 'Apart door greeter'],
  async seed({ harness, a, ids }) {
    const upcoming = (await harness.call(a.apiKey, 'schedule_create_series', {
      title: 'Apart pipeline service', rrule: 'FREQ=WEEKLY', startDate: tomorrow(), startTime: '09:00', durationMinutes: 60, timeZone: 'Europe/London',
    })).upcoming;
    const stages = (await harness.call(a.apiKey, 'guests_sync_pipeline_stages', { stages: [{ name: 'Apart Welcome stage', expectedDays: 2 }, { name: 'Apart coffee', expectedDays: 7 }] })).stages;
    const submitted = await harness.call(a.apiKey, 'guests_submit_welcome_card', { firstName: 'Apartguest', lastName: 'Visitor', email: 'apartguest@example.org', instanceId: upcoming[0].id });
    const welcomeCard = (await harness.call(a.apiKey, 'guests_send_welcome_card', { contactId: submitted.contactId, purpose: 'service' })).welcomeCard.id;
    const assignment = (await harness.call(a.apiKey, 'guests_assign_volunteer', { instanceId: upcoming[0].id, contactId: ids.contact, role: 'Apart door greeter' })).assignment.id;
    return {
      pipelineInstance: upcoming[0].id, pipelineInstance2: upcoming[1].id, pipelineStage: stages[0].id, pipelineGuest: submitted.contactId,
      pipelineCard: submitted.cardId, pipelineWelcomeCard: welcomeCard, pipelineAssignment: assignment,
    };
  },
  entries: {
    guests_sync_pipeline_stages: [{ args: (i) => ({ stages: [{ id: i.pipelineStage, name: 'Mine now', expectedDays: 1 }] }) }],
    guests_open_guest_card: [{ args: (i) => ({ contactId: i.pipelineGuest }) }],
    guests_advance_guest_card: [{ args: (i) => ({ cardId: i.pipelineCard }) }, { label: 'stage', args: (i) => ({ cardId: i.pipelineCard, stageId: i.pipelineStage }) }],
    guests_snooze_guest_card: [{ args: (i) => ({ cardId: i.pipelineCard, until: tomorrow() }) }],
    guests_complete_guest_card: [{ args: (i) => ({ cardId: i.pipelineCard, outcome: 'Taken' }) }],
    guests_reopen_guest_card: [{ args: (i) => ({ cardId: i.pipelineCard }) }],
    guests_assign_guest_card: [{ args: (i) => ({ cardId: i.pipelineCard, assigneeUserId: i.member }) }],
    guests_send_welcome_card: [{ args: (i) => ({ contactId: i.pipelineGuest }) }],
    guests_mark_welcome_card_sent: [{ args: (i) => ({ welcomeCardId: i.pipelineWelcomeCard }) }],
    guests_submit_welcome_card: [{ args: (i) => ({ firstName: 'Mallory', lastName: 'Probe', instanceId: i.pipelineInstance }) }],
    guests_list_guest_journeys: [{ args: (i) => ({ contactId: i.pipelineGuest }), outcome: 'no_leak' }, { label: 'all', args: () => ({}), outcome: 'no_leak' }],
    guests_list_followup_tasks: [{ args: (i) => ({ stageId: i.pipelineStage }), outcome: 'no_leak' }],
    guests_list_followups_due: [{ args: () => ({ by: tomorrow() }), outcome: 'no_leak' }],
    guests_get_followup_suggestions: [{ args: (i) => ({ contactId: i.pipelineGuest }), outcome: 'no_leak' }],
    guests_list_welcome_cards: [{ args: (i) => ({ contactId: i.pipelineGuest }), outcome: 'no_leak' }],
    guests_list_pipeline_stages: [{ args: () => ({}), outcome: 'no_leak' }],
    guests_pipeline_summary: [{ args: () => ({}), outcome: 'no_leak' }],
    guests_list_volunteer_schedules: [{ args: (i) => ({ instanceId: i.pipelineInstance }) }],
    guests_assign_volunteer: [{ args: (i) => ({ instanceId: i.pipelineInstance, contactId: i.contact }) }],
    guests_update_volunteer_schedule: [{ args: (i) => ({ assignmentId: i.pipelineAssignment, status: 'declined' }) }],
    guests_delete_volunteer_schedule: [{ args: (i) => ({ assignmentId: i.pipelineAssignment }) }],
    guests_copy_welcome_volunteers: [{ args: (i) => ({ fromInstanceId: i.pipelineInstance, toInstanceId: i.pipelineInstance2 }) }],
    guests_get_analytics_summary: [{ args: () => ({}), outcome: 'no_leak' }],
    guests_get_analytics_heatmap: [{ args: () => ({}), outcome: 'no_leak' }],
  },
};
