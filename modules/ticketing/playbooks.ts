import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** Ticketing's playbooks (served as MCP prompts). */
export const ticketingPlaybooks = [
  definePlaybook({
    name: 'sell-tickets-for-an-event',
    title: 'Sell tickets for an event (e.g. the carol concert)',
    description: 'Sets up a ticketed event, its ticket types, capacity and promo codes, publishes it, and then sells, follows the waitlist and reports on sales.',
    scopes: ['ticketing:read', 'ticketing:write'],
    tools: [
      'ticketing_list_events', 'ticketing_create_event', 'ticketing_create_ticket_type', 'ticketing_create_promo_code', 'ticketing_publish_event',
      'ticketing_get_availability', 'ticketing_create_order', 'ticketing_join_waitlist', 'ticketing_offer_waitlist_spots', 'ticketing_get_sales_report',
    ],
    arguments: [{ name: 'event', description: 'The event, such as "the carol concert on 20 December at 7pm"', required: true }],
    steps: (args) => [
      `Sell tickets for ${args.event}.`,
      '1. ticketing_list_events: check it is not set up already (a draft counts).',
      '2. ticketing_create_event: title, start and end, time zone, and the whole capacity of the room (ask if you do not know it). Link the spaces booking if the room is booked, so publishing checks the room holds everyone.',
      '3. ticketing_create_ticket_type for each price the person wants (adult, child, concession; price 0 for free), with per-order limits; an access code hides a type (the choir, volunteers).',
      '4. If they want a discount, ticketing_create_promo_code (percent or fixed, a use limit). Read back every price and code before going on.',
      '5. ticketing_publish_event: report the checks it made (a skipped room check says why).',
      '6. To sell: ticketing_create_order with the items; a paid order answers a checkoutUrl to send the buyer, and becomes paid only when the payment provider confirms. Never tell someone they have a ticket before the order is paid. ticketing_get_availability says what is left.',
      '7. When it sells out: ticketing_join_waitlist for those who ask; when places come back (a refund), ticketing_offer_waitlist_spots offers them in order.',
      '8. ticketing_get_sales_report: tickets sold, takings after discounts and refunds, promo code uses, the waitlist.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
