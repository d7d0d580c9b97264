import type { Migration } from '../../../../db/migrate';

/**
 * The template version a broadcast sends, fixed when it is scheduled (or its proposal approved) to
 * the version its preview showed: activating a newer version afterwards changes nothing that was
 * approved; the newer one needs a new preview (and approval). Null for free-form content.
 */
export const broadcastTemplateVersion: Migration = {
  name: '2026.11.27T22.00.00.broadcast-template-version',
  up: `ALTER TABLE channel_broadcasts ADD COLUMN template_version_id uuid;`,
  down: `ALTER TABLE channel_broadcasts DROP COLUMN template_version_id;`,
};
