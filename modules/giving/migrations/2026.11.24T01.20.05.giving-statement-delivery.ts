import type { Migration } from '../../../db/migrate';

/**
 * Emailed statements: each one records where its email stands. queued (waiting for the outbox),
 * sent, failed (delivery_error says why), or no_email (the giver had no address when the run was
 * made: reported, not an error). Null for a statement made for download.
 */
export const givingStatementDelivery: Migration = {
  name: '2026.11.24T01.20.05.giving-statement-delivery',
  up: `
ALTER TABLE giving_statements
  ADD COLUMN delivery_status text CHECK (delivery_status IN ('queued', 'sent', 'failed', 'no_email')),
  ADD COLUMN delivery_error jsonb,
  ADD COLUMN sent_at timestamptz;
CREATE INDEX giving_statements_period_idx ON giving_statements (org_id, contact_id, created_at DESC) WHERE delivery_status IS NOT NULL;
`,
  down: `
DROP INDEX giving_statements_period_idx;
ALTER TABLE giving_statements DROP COLUMN delivery_status, DROP COLUMN delivery_error, DROP COLUMN sent_at;
`,
};
