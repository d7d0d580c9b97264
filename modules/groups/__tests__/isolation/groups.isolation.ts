import type { IsolationPart } from '../../../../test/e2e/isolation/part';

const daysFromToday = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Small groups: B's key with A's groups, join requests, meetings, members and leaders' logins. */
export const isolation: IsolationPart = {
  tables: ['groups_types', 'groups_groups', 'groups_memberships', 'groups_join_requests', 'groups_meetings', 'groups_meeting_rsvps', 'groups_attendance'],
  secrets: ['Apart home group', 'Apart Elm Road', 'Apart join message'],
  async seed({ harness, a, ids }) {
    const group = (await harness.call(a.apiKey, 'groups_create', {
      name: 'Apart home group', type: 'Apart cell', address: 'Apart Elm Road', leaderContactId: ids.contact, leaderUserId: a.ownerUserId, confidential: true,
    })).group.id as string;
    const request = (await harness.call(a.apiKey, 'groups_request_to_join', { groupId: group, contactId: ids.relative, message: 'Apart join message' })).request.id as string;
    const meeting = (await harness.call(a.apiKey, 'groups_schedule_meeting', { groupId: group, startDate: daysFromToday(-7), startTime: '19:30' })).meetings[0].id as string;
    await harness.call(a.apiKey, 'groups_record_attendance', { meetingId: meeting, present: [ids.contact] });
    return { groupsGroup: group, groupsRequest: request, groupsMeeting: meeting };
  },
  entries: {
    groups_list: [{ args: () => ({ includeArchived: true }), outcome: 'no_leak' }],
    groups_search: [{ args: () => ({ query: 'Apart' }), outcome: 'no_leak' }],
    groups_create: [{ args: (i) => ({ name: 'Mallory group', leaderContactId: i.contact }) }],
    groups_get: [{ args: (i) => ({ groupId: i.groupsGroup, includeFormerMembers: true }) }],
    groups_update: [{ args: (i) => ({ groupId: i.groupsGroup, name: 'Mine now' }) }],
    groups_archive: [{ args: (i) => ({ groupId: i.groupsGroup }) }],
    groups_update_enrolment: [{ args: (i) => ({ groupId: i.groupsGroup, strategy: 'open' }) }],
    groups_request_to_join: [{ args: (i) => ({ groupId: i.groupsGroup, contactId: i.contact }) }],
    groups_decide_join_request: [{ args: (i) => ({ requestId: i.groupsRequest, decision: 'approve' }) }],
    groups_add_member: [{ args: (i) => ({ groupId: i.groupsGroup, contactId: i.relative }) }],
    groups_remove_member: [{ args: (i) => ({ groupId: i.groupsGroup, contactId: i.contact }) }],
    groups_set_leader: [{ args: (i) => ({ groupId: i.groupsGroup, contactId: i.relative }) }, { label: 'user', args: (i) => ({ groupId: i.groupsGroup, contactId: i.contact, userId: i.member }) }],
    groups_schedule_meeting: [{ args: (i) => ({ groupId: i.groupsGroup, startDate: daysFromToday(7), startTime: '19:30' }) }],
    groups_record_attendance: [{ args: (i) => ({ meetingId: i.groupsMeeting, present: [i.contact] }) }],
    groups_get_health_report: [{ args: (i) => ({ groupId: i.groupsGroup }) }, { label: 'all', args: () => ({}), outcome: 'no_leak' }],
    groups_message_members: [{ args: (i) => ({ groupId: i.groupsGroup, channel: 'email', subject: 'Hi', body: 'Hello' }) }],
  },
};
