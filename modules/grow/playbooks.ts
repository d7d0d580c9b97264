import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** Grow's playbooks (served as MCP prompts). */
export const growPlaybooks = [
  definePlaybook({
    name: 'connect-card-landing-page',
    title: 'Put a connect card on a landing page',
    description: 'Builds a form that matches or creates each person and opens their guests pipeline card, puts it on a landing page, publishes both (the page with a person\'s approval) and reads the results.',
    scopes: ['grow:read', 'grow:write'],
    tools: ['grow_list_forms', 'grow_create_form', 'grow_publish_form', 'grow_create_landing_page', 'grow_publish_landing_page', 'grow_get_page_stats', 'grow_list_submissions', 'grow_export_submissions'],
    arguments: [{ name: 'occasion', description: 'What the page is for, such as "newcomers at the Christmas services"', required: true }],
    steps: (args) => [
      `A connect card page for ${args.occasion}.`,
      '1. grow_list_forms: reuse a form that fits rather than making a second.',
      '2. grow_create_form: first name, last name and email (each filling the contact\'s detail), any questions, consent boxes in the exact words people agree to (never ticked for them), a guardian\'s consent if a child\'s details are asked; creates contact and guest_card. Read the questions back.',
      '3. grow_publish_form.',
      '4. grow_create_landing_page: a slug, a heading, a few plain sentences, the form block and any button.',
      '5. grow_publish_landing_page: it needs a person\'s approval; say so and do not share the address until it is published.',
      '6. Later: grow_get_page_stats (views, submissions, conversion), grow_list_submissions (who came, matched or new), grow_export_submissions for a spreadsheet.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
