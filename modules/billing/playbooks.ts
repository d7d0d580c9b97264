import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** Billing's playbooks (served as MCP prompts). */
export const billingPlaybooks = [
  definePlaybook({
    name: 'why-did-our-sms-credits-run-out',
    title: 'Why did our SMS credits run out?',
    description: 'Explains why messages stopped (plan allowance, the organisation\'s own spend cap, or the subscription\'s state), what used the credits, and the choices: wait for the month, raise the cap, or upgrade.',
    scopes: ['billing:read', 'billing:write', 'platform:read', 'channels:read'],
    tools: ['billing_get_plan_status', 'billing_get_usage', 'platform_usage', 'channels_list_broadcasts', 'billing_set_spend_cap', 'billing_preview_plan_change', 'billing_create_checkout_link'],
    arguments: [{ name: 'channel', description: 'SMS or WhatsApp (both use messaging credits); email sends are counted apart', required: false }],
    steps: (args) => [
      `Find out why ${args.channel ?? 'SMS'} messages stopped and what can be done.`,
      '1. billing_get_plan_status: is the subscription active? past_due pauses marketing sends (service messages continue until the grace period ends); canceled, unpaid or paused stops everything. If so, say so first: that is the reason, not the credits.',
      '2. billing_get_usage with feature messaging_credits: used against the plan\'s allowance (limit) and against any spend cap the organisation set itself (capUnits, capPercent, alertLevel). Say which one was reached: the allowance (allowance_exceeded) or the cap (spend_cap_reached). platform_usage shows the same figures for every feature.',
      '3. channels_list_broadcasts: which broadcasts this month used the credits (a long message is several segments, each a credit). Name the big ones with their dates.',
      '4. Give the choices plainly: wait for the new month (credits reset on the 1st); raise or remove the spend cap (billing_set_spend_cap, an owner\'s decision); or a bigger allowance: billing_preview_plan_change shows the price and what changes, and billing_create_checkout_link gives the owner a link to pay (the plan changes only once the payment is confirmed).',
      '5. Messages refused at the cap were not sent and are not charged; after the change they can be sent again.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
