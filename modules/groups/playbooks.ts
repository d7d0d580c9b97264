import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** The groups module's playbooks (served as MCP prompts). */
export const groupsPlaybooks = [
  definePlaybook({
    name: 'place-someone-in-a-small-group',
    title: 'Help someone find and join a small group',
    description: 'Finds small groups that suit a person (day, area, age, openness), asks them to choose, then asks to join and tells them what happens next.',
    scopes: ['groups:read', 'groups:write', 'people:read'],
    tools: ['people_search_contacts', 'groups_search', 'groups_get', 'groups_request_to_join'],
    arguments: [
      { name: 'person', description: 'Who wants a group, such as "Sam Green"', required: true },
      { name: 'wishes', description: 'What suits them: day, area, age, online', required: false },
    ],
    steps: (args) => [
      `Help ${args.person} find a small group${args.wishes ? ` (${args.wishes})` : ''}. Small groups are home groups, cells and classes, not CRM ministry teams.`,
      `1. people_search_contacts: find ${args.person}; if several match, ask which one.`,
      '2. groups_search with openOnly true and the day, area and age that suit them: read back each group\'s name, when and where it meets, and places left.',
      '3. groups_get on the one they like, for its next meetings. Do not read out other members\' names to someone outside the group.',
      '4. Ask the person to confirm, then groups_request_to_join. "joined" means they are in; "pending" means its leaders will decide; a conflict with group_full or enrolment_closed means choose another group.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
  definePlaybook({
    name: 'small-groups-health-check',
    title: 'Check on the small groups',
    description: 'Reads the small groups\' health: attendance trends, groups not taking a register, and members who have stopped coming, then suggests who should follow up.',
    scopes: ['groups:read', 'community:read'],
    tools: ['groups_get_health_report', 'groups_get', 'community_get_followup_radar'],
    arguments: [{ name: 'weeks', description: 'How many weeks to look back (default 12)', required: false }],
    steps: (args) => [
      `Check on the small groups over the last ${args.weeks ?? '12'} weeks.`,
      `1. groups_get_health_report with weeks ${args.weeks ?? '12'}: for each group, its trend and why, meetings without a register, and members who missed three or more meetings in a row.`,
      '2. Groups with no attendance logged: suggest the staff member asks their leaders to take a register after each meeting.',
      '3. For members missing meetings: suggest their group leader gets in touch first; community_get_followup_radar shows whether the pastoral team already has other reasons to contact them.',
      '4. A confidential group\'s absent members are counted, not named: never try to find out who they are.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
  definePlaybook({
    name: 'after-a-small-group-meeting',
    title: 'After a small group meeting',
    description: 'For a group leader: records who came (visitors too), decides waiting join requests, and tells the group about the next meeting.',
    scopes: ['groups:read', 'groups:write'],
    tools: ['groups_list', 'groups_get', 'groups_record_attendance', 'groups_decide_join_request', 'groups_message_members'],
    arguments: [{ name: 'group', description: 'Which group, such as "Tuesday home group"', required: true }],
    steps: (args) => [
      `Wrap up tonight's meeting of ${args.group}.`,
      `1. groups_list with ledByMe true, then groups_get on ${args.group}: its members, pending join requests and the meeting that just took place.`,
      '2. Ask who came and who brought visitors; groups_record_attendance with the members present and visitors by contact or name (everyone else is recorded absent).',
      '3. For each pending join request, ask the leader to approve or decline (with a reason), then groups_decide_join_request.',
      '4. If the leader wants to tell the group about the next meeting, draft it, show it, and only after they agree groups_message_members; read back anyone skipped and why.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
