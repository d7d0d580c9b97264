import type { Migration } from '../../../db/migrate';

/**
 * A campaign recipient whose email the mail provider could not take now is tried again after a
 * doubling wait and fails after channels' limit of attempts: the row counts its attempts and keeps
 * when the next is due (also when quiet hours deferred it).
 */
export const growCampaignAttemptsMigration: Migration = {
  name: '2026.11.29T17.00.00.grow-campaign-attempts',
  up: `
ALTER TABLE grow_campaign_recipients ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE grow_campaign_recipients ADD COLUMN not_before timestamptz;
`,
  down: `
ALTER TABLE grow_campaign_recipients DROP COLUMN not_before;
ALTER TABLE grow_campaign_recipients DROP COLUMN attempts;
`,
};
