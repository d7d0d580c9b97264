import type { Migration } from '../../../db/migrate';

/**
 * The fingerprint of the deployment's payload key (the `encryption-key-id` every sealed payload
 * already carries in Temporal, never the key): the first API or worker records it, and a process
 * started with another key finds the mismatch here and refuses to work, rather than polling and
 * failing every workflow task it is handed. One row; not an organisation's data.
 */
export const payloadKeyCheck: Migration = {
  name: '2026.11.28T16.00.00.payload-key-check',
  up: `
CREATE TABLE payload_key_fingerprint (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  key_id text NOT NULL CHECK (key_id ~ '^[0-9a-f]{16}$'),
  recorded_at timestamptz NOT NULL DEFAULT now()
);
`,
  down: `
DROP TABLE payload_key_fingerprint;
`,
};
