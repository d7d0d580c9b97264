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
  definePlaybook({
    name: 'welcome-series-first-time-guests',
    title: 'A welcome series for first-time guests',
    description: 'Welcomes first-time guests in steps: a connect card whose follow-up email thanks them at once, their guests pipeline card, a welcome card, and a short series of emails to the new-visitors audience, each tested and previewed before it goes.',
    scopes: ['grow:read', 'grow:write', 'guests:read', 'guests:write', 'people:read', 'people:write'],
    tools: [
      'grow_create_form', 'grow_publish_form', 'people_create_segment_from_template', 'guests_send_welcome_card', 'grow_create_campaign', 'grow_send_test_email',
      'grow_preview_campaign', 'grow_schedule_campaign', 'grow_get_campaign_report',
    ],
    arguments: [{ name: 'church', description: 'How the church names itself in the emails, such as "St Anne\'s"', required: true }],
    steps: (args) => [
      `A welcome series for first-time guests at ${args.church}.`,
      '1. grow_create_form: a connect card (first name, last name, email filling the contact; a consent box for news in the exact words, never ticked for them), creates contact and guest_card, and a followUp email thanking them for coming (it goes at once, through the outbox). grow_publish_form.',
      '2. people_create_segment_from_template with new_visitors: the audience of the series (first-time and returning visitors).',
      '3. guests_send_welcome_card for each new guest who left an address or asked for one.',
      '4. grow_create_campaign for each email of the series (week 1: who we are; week 2: how to get involved; week 4: an invitation to a welcome lunch), audience the segment, purpose charitable_purpose unless they agreed to news.',
      '5. grow_send_test_email to a team member for each, read it back, then grow_preview_campaign (say who is left out and why) and grow_schedule_campaign a week apart; a person approves a new audience.',
      '6. Later: grow_get_campaign_report for opens, clicks, bounces and unsubscribes.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
  definePlaybook({
    name: 'ab-test-christmas-invitation',
    title: 'A/B test the Christmas invitation',
    description: 'Writes the Christmas invitation, tests two subject lines on part of the list, lets clicks (never opens) choose the winner for everyone else, and reads the report.',
    scopes: ['grow:read', 'grow:write'],
    tools: [
      'grow_list_campaigns', 'grow_create_campaign', 'grow_add_ab_variants', 'grow_send_test_email', 'grow_preview_campaign', 'grow_schedule_campaign', 'grow_pick_ab_winner',
      'grow_get_campaign_report',
    ],
    arguments: [{ name: 'services', description: 'The Christmas services to invite people to, such as "Carols by candlelight, 20 December at 6pm"', required: true }],
    steps: (args) => [
      `A Christmas invitation to ${args.services}, with an A/B test of its subject line.`,
      '1. grow_list_campaigns: reuse last year\'s wording if there is one.',
      '2. grow_create_campaign: the audience (a segment or tag of people who agreed to news), a warm plain subject, the services with a link to book or read more.',
      '3. grow_add_ab_variants: variable subject, one or two other subject lines, testPercent 20, waitHours 4. Say plainly that the winner is the subject most people clicked, never opened (mail apps open emails by themselves), and a tie keeps the first.',
      '4. grow_send_test_email of each variant to a team member; read them back.',
      '5. grow_preview_campaign: how many it reaches and who is left out by reason; grow_schedule_campaign with the previewHash (a person approves a new or large audience).',
      '6. If a person wants to decide before the timer, grow_pick_ab_winner. Afterwards grow_get_campaign_report: each variant\'s sent, opens, clicks, bounces and complaints.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
