import type { Migration } from '../../../db/migrate';

/**
 * A donation added at checkout ("donate £5 extra"): paid with the order, never part of its sale.
 * The order keeps how much and to which fund, and, once paid, the giving donation it became.
 */
export const storeDonationsMigration: Migration = {
  name: '2026.11.28T18.00.00.store-donations',
  up: `
ALTER TABLE store_orders
  ADD COLUMN donation_minor integer NOT NULL DEFAULT 0 CHECK (donation_minor >= 0),
  ADD COLUMN donation_fund_id uuid,
  ADD COLUMN donation_id uuid,
  ADD CONSTRAINT store_orders_donation_fund CHECK ((donation_minor = 0) = (donation_fund_id IS NULL));
`,
  down: `
ALTER TABLE store_orders DROP CONSTRAINT store_orders_donation_fund, DROP COLUMN donation_id, DROP COLUMN donation_fund_id, DROP COLUMN donation_minor;
`,
};
