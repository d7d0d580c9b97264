import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** The giving module's playbooks (served as MCP prompts). */
export const givingPlaybooks = [
  definePlaybook({
    name: 'record-weekly-offering',
    title: "Record and batch this week's offering",
    description: "Enters a week's gifts (cash, cheques, card and online) into one batch, checks the total against the count, and commits it (an owner or admin approves a large batch).",
    scopes: ['giving:read', 'giving:write', 'people:read', 'platform:read'],
    tools: [
      'giving_get_settings', 'giving_list_funds', 'giving_create_batch', 'people_search_contacts', 'giving_get_giver',
      'giving_add_batch_donations', 'giving_import_donations', 'giving_get_batch', 'giving_list_donations', 'giving_remove_batch_donation',
      'giving_commit_batch', 'platform_get_proposal', 'giving_summary',
    ],
    arguments: [
      { name: 'week', description: 'Which offering, such as "Sunday 22 November"', required: true },
      { name: 'counted', description: 'The counted totals per method, such as "cash £312.40, cheques £150, card £905.10"' },
    ],
    steps: (args) => [
      `Record and batch the offering for ${args.week}.${args.counted ? ` The counters' totals: ${args.counted}.` : ''}`,
      '1. giving_get_settings: amounts are whole minor units of the organisation\'s currency (£12.50 is 1250); never send a decimal.',
      '2. giving_list_funds: the funds gifts may be designated to; a gift that names none goes to the default fund.',
      `3. giving_create_batch with a name such as "Offering ${args.week}".`,
      '4. For each named gift, find the giver with people_search_contacts (and giving_get_giver for their envelope number); loose cash is one anonymous gift.',
      '5. Add the gifts with giving_add_batch_donations (up to 200 at once, all or none): method cash, cheque, card or online, the date received, and designations that add up to each amount exactly. A card or bank export goes through giving_import_donations: mode "dry_run" first, then "commit" into the same batch.',
      '6. giving_get_batch: compare its total per method with the counters\' totals (giving_list_donations { batchId } lists the gifts). Fix a mistake with giving_remove_batch_donation and add the gift again; never commit a batch that does not match the count.',
      '7. giving_commit_batch with expectedTotal set to the checked total. Above the organisation\'s threshold it becomes a proposal: tell the treasurer its id; platform_get_proposal shows when an owner or admin has approved it.',
      '8. Once committed, giving_summary shows the week in this month\'s giving. A committed batch never changes: a later correction is an adjusting entry.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
