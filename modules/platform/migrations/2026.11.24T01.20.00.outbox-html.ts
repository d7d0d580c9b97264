import type { Migration } from '../../../db/migrate';

/**
 * An email may carry an HTML rendering beside its plain text (a giving statement's table of
 * gifts reads better that way). Fixed with the row like the text, so every attempt sends the same.
 */
export const outboxHtml: Migration = {
  name: '2026.11.24T01.20.00.outbox-html',
  up: 'ALTER TABLE outbox_messages ADD COLUMN html text;',
  down: 'ALTER TABLE outbox_messages DROP COLUMN html;',
};
