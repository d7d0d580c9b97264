import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** The people module's playbooks (served as MCP prompts). */
export const peoplePlaybooks = [
  definePlaybook({
    name: 'welcome-first-time-visitor',
    title: 'Welcome a first-time visitor',
    description: 'Adds a newcomer (or finds them if already known), tags them, and drafts a welcome message for a person to approve.',
    scopes: ['people:read', 'people:write'],
    tools: ['people_search_contacts', 'people_create_contact', 'people_add_contact_tags', 'people_list_welcome_desk_visitors', 'people_create_outreach'],
    arguments: [
      { name: 'visitor', description: 'The visitor\'s name, and an email or phone number if given', required: true },
      { name: 'context', description: 'Anything they shared: how they heard of the church, family, needs' },
    ],
    steps: (args) => [
      `Welcome the first-time visitor: ${args.visitor}.${args.context ? ` What they shared: ${args.context}.` : ''}`,
      '1. Search with people_search_contacts first (name, email, phone): never create a second record for someone already known.',
      '2. If they are new, create them with people_create_contact, with consent only as they gave it.',
      '3. Tag them with people_add_contact_tags (for example "First-time visitor") so the Welcome Desk finds them; people_list_welcome_desk_visitors shows where they are in the welcome journey.',
      '4. Draft a short, warm welcome with people_create_outreach (channel they can receive; reason welcome). It waits for a person to approve it.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
  definePlaybook({
    name: 'weekly-pastoral-follow-ups',
    title: "Prepare this week's pastoral follow-ups",
    description: 'Finds who is due a pastoral contact and which note follow-ups are open, and prepares drafts for the pastor to approve.',
    scopes: ['people:read', 'people:write'],
    tools: ['people_list_welfare_due_contacts', 'people_list_pastoral_note_followups', 'people_list_follow_up_tasks', 'people_list_care_timeline', 'people_create_outreach', 'people_complete_note_followup'],
    arguments: [{ name: 'focus', description: 'Optional: a group of people or a concern to start with' }],
    steps: (args) => [
      `Prepare this week's pastoral follow-ups.${args.focus ? ` Start with: ${args.focus}.` : ''}`,
      '1. people_list_welfare_due_contacts: who has had no pastoral contact for longer than the welfare interval.',
      '2. people_list_pastoral_note_followups and people_list_follow_up_tasks: follow-ups that are due or overdue.',
      '3. For each person, read people_list_care_timeline before writing anything, so a message fits what has happened.',
      '4. Draft messages with people_create_outreach; summarise the list for the pastor, most urgent first.',
      '5. Mark a note follow-up done (people_complete_note_followup) only when the pastor says it happened.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
  definePlaybook({
    name: 'merge-duplicates-safely',
    title: 'Merge duplicate contacts safely',
    description: 'Confirms two records are the same person, then proposes a merge for an owner or admin to approve.',
    scopes: ['people:read', 'people:write', 'platform:read'],
    tools: ['people_search_contacts', 'people_get_contact', 'people_merge_data_quality_contacts', 'platform_get_proposal'],
    arguments: [{ name: 'person', description: 'The name (or email) that appears twice', required: true }],
    steps: (args) => [
      `Check for duplicate records of ${args.person} and merge them safely.`,
      '1. people_search_contacts, then people_get_contact on each candidate: compare email, phone, address, birth date and family links.',
      '2. If anything disagrees, stop and ask a person which is right: a wrong merge mixes two people\'s pastoral history.',
      '3. Propose the merge with people_merge_data_quality_contacts, keeping the record with the richer history; it becomes a proposal.',
      '4. Tell the person the proposal id; platform_get_proposal shows its state once an owner or admin has decided.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
  definePlaybook({
    name: 'respond-to-crisis-disclosure',
    title: 'Respond to a crisis disclosure',
    description: 'When someone discloses harm, danger or abuse: involve a person now, record it confidentially, and send nothing automatically.',
    scopes: ['people:read', 'people:write'],
    tools: ['people_search_contacts', 'people_get_contact', 'people_add_note'],
    arguments: [{ name: 'what_happened', description: 'What was disclosed, in the words used, without adding interpretation', required: true }],
    steps: (args) => [
      `A crisis disclosure: a person must act now; your part is to support them, not to decide. What was disclosed: ${args.what_happened}`,
      '1. Tell the person you are helping to contact the pastor or safeguarding lead immediately; if anyone is in immediate danger, call the emergency services first.',
      '2. Do not message the person who disclosed, or anyone else, on your own: no outreach, no automation.',
      '3. Find the contact (people_search_contacts, people_get_contact) and record what was disclosed, in the words used, with people_add_note as privacy private and confidentialityLevel red, so only safeguarding holders can read it.',
      '4. Summarise for the safeguarding lead what is known and what is not; never speculate.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
