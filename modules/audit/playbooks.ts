import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** The audit module's playbooks (served as MCP prompts). */
export const auditPlaybooks = [
  definePlaybook({
    name: 'who-changed-this-donation',
    title: 'Who changed this donation?',
    description: 'Explains how a gift came to be as it is: each change field by field, who made it (a person, or an assistant and the person it acted for) and who approved it.',
    scopes: ['audit:read', 'giving:read'],
    tools: ['giving_list_donations', 'giving_get_donation', 'audit_get_entity_history', 'audit_get_event', 'audit_list_events'],
    arguments: [
      { name: 'donation', description: 'The gift: its id, or who gave it and when, such as "Tom\'s £200 on 3 March"', required: true },
    ],
    steps: (args) => [
      `Find out who changed the donation "${args.donation}" and why.`,
      '1. If you have no id, find the gift with giving_list_donations (by giver and date) and confirm it with giving_get_donation.',
      '2. audit_get_entity_history { targetType: "donation", targetId }: every change to it, oldest first, with before → after per field where recorded.',
      '3. For each entry say who acted: actor.kind "human" is a person at the dashboard; "agent" is an assistant or agent acting for actor.onBehalfOfUserId. An entry with approval names who approved it (approval.decidedByUserId) and when.',
      '4. Corrections and refunds are separate records linked to the gift: audit_list_events { actionPrefix: "giving.donation." } around the same time shows them; audit_get_event gives one in full.',
      '5. Report plainly: what changed, from what to what, by whom, on whose behalf, approved by whom. Redacted entries mean the person was erased: say a change happened without naming them.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
