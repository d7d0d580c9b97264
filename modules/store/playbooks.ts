import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** Store's playbooks (served as MCP prompts). */
export const storePlaybooks = [
  definePlaybook({
    name: 'open-the-bookstall-shop',
    title: 'Open the bookstall shop',
    description: 'Sets up the bookstall (or another shop): its products, prices and stock, opens it with a person\'s approval, then sells at the stall and online and reports the takings.',
    scopes: ['store:read', 'store:write'],
    tools: [
      'store_list_shops', 'store_create_shop', 'store_create_product', 'store_adjust_inventory', 'store_open_shop', 'store_record_cash_sale',
      'store_create_checkout_link', 'store_list_low_stock', 'store_get_sales_report',
    ],
    arguments: [{ name: 'shop', description: 'The shop, such as "the bookstall at the back of church"', required: true }],
    steps: (args) => [
      `Open ${args.shop}.`,
      '1. store_list_shops: check it is not set up already (a draft or paused shop counts).',
      '2. store_create_shop: name, currency, how things reach buyers (pickup at church, ship, digital downloads), the cash sale limit (bigger cash sales need approval) and the refund approval threshold.',
      '3. store_create_product for each item: kind (physical, digital with its download, ticket), SKU and price per variant, and the stock counted on the stall (initialStock). Read the list and prices back before going on.',
      '4. When more stock arrives, store_adjust_inventory with the reason (received) and a reference.',
      '5. store_open_shop: it needs an owner or admin to approve; say so, and do not promise it is open until it is.',
      '6. At the stall: store_record_cash_sale for each sale paid in cash. Online: store_create_checkout_link and send the buyer the link; an order is paid only when the payment provider confirms it. A sale is not a donation: never claim Gift Aid on it.',
      '7. store_list_low_stock to say what to reorder, and store_get_sales_report for the takings (cash and online, after refunds).',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
