import type { Migration } from '../../../../db/migrate';

/**
 * The mail provider's events name an email by its Message-ID, whose local part is the outbox key.
 * Pastoral outreach and portal invitations keep that key on their channel message, so the events
 * webhook finds them by it, across organisations (the keys end in a UUID): this index serves that
 * lookup, which the (org_id, idempotency_key) unique index cannot.
 */
export const channelMessagesEmailKeyIndex: Migration = {
  name: '2026.11.29T17.00.00.channels-email-key-index',
  up: "CREATE INDEX channel_messages_email_key ON channel_messages (idempotency_key) WHERE channel = 'email'",
  down: 'DROP INDEX channel_messages_email_key',
};
