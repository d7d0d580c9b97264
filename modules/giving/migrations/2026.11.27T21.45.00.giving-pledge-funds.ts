import type { Migration } from '../../../db/migrate';

/**
 * A pledge is to its campaign's fund: a gift linked to it must be to that fund, or a General-fund
 * gift would count towards a Building-fund promise. spans_funds marks a pledge the giver made to
 * the church's work as a whole, which gifts to any fund may pay. Pledges made before stay to their fund.
 */
export const givingPledgeFunds: Migration = {
  name: '2026.11.27T21.45.00.giving-pledge-funds',
  up: `
ALTER TABLE giving_pledges ADD COLUMN spans_funds boolean NOT NULL DEFAULT false;
`,
  down: `
ALTER TABLE giving_pledges DROP COLUMN spans_funds;
`,
};
