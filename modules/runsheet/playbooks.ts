import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** The runsheet module's playbooks (served as MCP prompts). */
export const runsheetPlaybooks = [
  definePlaybook({
    name: 'plan-next-sunday',
    title: 'Plan next Sunday from last week\'s',
    description: 'Copies the last plan of a service to the coming date with its running order and team, swaps the songs, fills the gaps and asks the volunteers, then checks it is ready.',
    scopes: ['runsheet:read', 'runsheet:write'],
    tools: [
      'runsheet_list_service_types', 'runsheet_find_previous_plan', 'runsheet_copy_plan', 'runsheet_get_plan', 'runsheet_list_songs', 'runsheet_set_song',
      'runsheet_update_item', 'runsheet_autofill_positions', 'runsheet_undo_autofill', 'runsheet_send_requests', 'runsheet_check_readiness',
    ],
    arguments: [
      { name: 'service', description: 'Which service, such as "Morning worship"', required: true },
      { name: 'date', description: 'The date to plan, YYYY-MM-DD', required: true },
    ],
    steps: (args) => [
      `Plan ${args.service} on ${args.date} from the last one.`,
      '1. runsheet_list_service_types: find the service type\'s id.',
      `2. runsheet_find_previous_plan { serviceTypeId, before: "${args.date}" }: the plan to start from.`,
      `3. runsheet_copy_plan { sourcePlanId, date: "${args.date}", include: { items: true, positions: true, people: true } }: the same clock times on the new date; copied people are unconfirmed and not yet asked. Leave people out if the team rotates weekly.`,
      '4. runsheet_get_plan: read the running order back to the person; change songs with runsheet_set_song (runsheet_list_songs finds them). A warning that a song was used in the last weeks is for the person to weigh, not a refusal.',
      '5. Lengths, notes and keys with runsheet_update_item.',
      '6. runsheet_autofill_positions fills open places with people free and eligible; show who it chose. If the person does not like it, runsheet_undo_autofill with its run id takes back everyone still unconfirmed.',
      '7. runsheet_send_requests asks everyone not yet asked (a large send waits for approval); tell the person who could not be reached and why.',
      '8. runsheet_check_readiness: go through its fix list, most pressing first, and say plainly what it could not check.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
  definePlaybook({
    name: 'find-a-replacement',
    title: 'Find a replacement for a volunteer',
    description: 'When someone cannot serve (the sound desk on Sunday, say): records their answer, lets the substitute search run or schedules a chosen substitute, and confirms the place is filled.',
    scopes: ['runsheet:read', 'runsheet:write'],
    tools: ['runsheet_list_plans', 'runsheet_get_plan', 'runsheet_respond_to_request', 'runsheet_list_teams', 'runsheet_update_team', 'runsheet_schedule_person', 'runsheet_check_readiness'],
    arguments: [
      { name: 'who', description: 'Who cannot serve, and where, such as "Ben on the sound desk"', required: true },
      { name: 'when', description: 'Which service, such as "this Sunday"', required: true },
    ],
    steps: (args) => [
      `Find a replacement for ${args.who} ${args.when}.`,
      '1. runsheet_list_plans, then runsheet_get_plan: find their place (people[].id) and the position.',
      '2. runsheet_respond_to_request { planPersonId, response: "decline", reason } records that they cannot serve.',
      '3. If the answer names a substitutionId, the team finds its own replacement: substitutes are asked one at a time, each offer open for the team\'s time; runsheet_get_plan shows each offer and the outcome, and the scheduler is emailed if nobody accepts. Tell the person that, and stop here.',
      '4. Otherwise (runsheet_list_teams shows autoReplace off for the team): offer to switch it on with runsheet_update_team, or choose a substitute with the person from the position\'s members and runsheet_schedule_person. A refusal lists the conflicts (blockout, already serving, monthly maximum, household, safeguarding clearance): never override clearance; override the others only when the person says so (allowConflicts).',
      '5. runsheet_check_readiness confirms the position is filled.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
