import type { Migration } from '../../../db/migrate';

/** When an archived item's stored objects (original, still, leftover upload) were removed from the store. */
export const mediahubArchivedObjectsMigration: Migration = {
  name: '2026.11.29T14.00.01.mediahub-archived-objects',
  up: `
ALTER TABLE mediahub_items ADD COLUMN objects_removed_at timestamptz;
CREATE INDEX mediahub_items_archived_pending ON mediahub_items (archived_at) WHERE status = 'archived' AND objects_removed_at IS NULL;
`,
  down: `
DROP INDEX mediahub_items_archived_pending;
ALTER TABLE mediahub_items DROP COLUMN objects_removed_at;
`,
};
