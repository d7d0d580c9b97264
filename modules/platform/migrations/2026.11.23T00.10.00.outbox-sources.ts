import type { Migration } from '../../../db/migrate';

/**
 * The outbox serves any module, not only pastoral outreach: a row belongs to a
 * source record named by `source_kind` (`<module>.<record>`, an OutboxSource a
 * module declares) and `source_id`, one row per record and organisation.
 * Existing rows are outreach items ('people.outreach').
 *
 * `outreach_id` stays, no longer required and no longer written by anyone: it
 * is generated from the source for outreach rows, so that
 * - deleting an outreach item (or the contact it cascades from) still deletes
 *   its outbox row, which holds the recipient's address and the message text;
 * - reads that find an item's row by outreach_id keep working unchanged.
 * Rows of other sources leave it NULL; their module removes them with the record.
 */
export const outboxSources: Migration = {
  name: '2026.11.23T00.10.00.outbox-sources',
  up: `
ALTER TABLE outbox_messages ADD COLUMN source_kind text, ADD COLUMN source_id uuid;
UPDATE outbox_messages SET source_kind = 'people.outreach', source_id = outreach_id;
ALTER TABLE outbox_messages ALTER COLUMN source_kind SET NOT NULL, ALTER COLUMN source_id SET NOT NULL;
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_source_key UNIQUE (org_id, source_kind, source_id);
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_source_kind_check CHECK (source_kind ~ '^[a-z][a-z0-9]*\\.[a-z][a-z0-9_]*$');
ALTER TABLE outbox_messages DROP COLUMN outreach_id;
ALTER TABLE outbox_messages ADD COLUMN outreach_id uuid
  GENERATED ALWAYS AS (CASE WHEN source_kind = 'people.outreach' THEN source_id END) STORED
  REFERENCES outreach_items(id) ON DELETE CASCADE;
CREATE UNIQUE INDEX outbox_messages_outreach_id_key ON outbox_messages (outreach_id);
COMMENT ON TABLE outbox_messages IS
  'One row per source record (source_kind, source_id) whose approved message is sent. Sends claim the row with a lease; usage is counted once when the row is created. Delivery is at most once per claim; SMTP attempts that may have been accepted wait in needs_review for a person.';
COMMENT ON COLUMN outbox_messages.outreach_id IS 'Generated: the outreach item of a people.outreach row, so deleting the item deletes its row.';
`,
  // Rows of other sources cannot be expressed in the old shape: going back drops them.
  down: `
DELETE FROM outbox_messages WHERE source_kind <> 'people.outreach';
DROP INDEX outbox_messages_outreach_id_key;
ALTER TABLE outbox_messages DROP COLUMN outreach_id;
ALTER TABLE outbox_messages ADD COLUMN outreach_id uuid REFERENCES outreach_items(id) ON DELETE CASCADE;
UPDATE outbox_messages SET outreach_id = source_id;
ALTER TABLE outbox_messages ALTER COLUMN outreach_id SET NOT NULL, ADD CONSTRAINT outbox_messages_outreach_id_key UNIQUE (outreach_id);
ALTER TABLE outbox_messages DROP CONSTRAINT outbox_messages_source_kind_check, DROP CONSTRAINT outbox_messages_source_key;
ALTER TABLE outbox_messages DROP COLUMN source_kind, DROP COLUMN source_id;
COMMENT ON COLUMN outbox_messages.outreach_id IS NULL;
COMMENT ON TABLE outbox_messages IS
  'One row per outreach item. Sends claim the row with a lease; usage is counted once when the row is created. Delivery is at most once per claim; SMTP attempts that may have been accepted wait in needs_review for a person.';
`,
};
