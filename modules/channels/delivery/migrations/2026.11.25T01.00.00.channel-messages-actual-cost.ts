import type { Migration } from '../../../../db/migrate';

/**
 * The actual cost of a message, as the provider reported it in a status callback (Twilio-style
 * `Price`/`PriceUnit`, or a price in a Meta-style status's `pricing`), in integer minor units of the
 * currency the provider billed in, which need not be the estimate's. Both stay null until a callback
 * carries a price: an absent price is never guessed.
 */
export const channelMessagesActualCost: Migration = {
  name: '2026.11.25T01.00.00.channel-messages-actual-cost',
  up: `
ALTER TABLE channel_messages ADD COLUMN actual_cost_currency text CHECK (actual_cost_currency IS NULL OR actual_cost_currency ~ '^[A-Z]{3}$');
ALTER TABLE channel_messages ADD CONSTRAINT channel_messages_actual_cost_pair CHECK ((actual_cost_minor IS NULL) = (actual_cost_currency IS NULL));
`,
  down: `
ALTER TABLE channel_messages DROP CONSTRAINT channel_messages_actual_cost_pair;
ALTER TABLE channel_messages DROP COLUMN actual_cost_currency;
`,
};
