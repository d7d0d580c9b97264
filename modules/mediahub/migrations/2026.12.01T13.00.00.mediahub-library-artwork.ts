import type { Migration } from '../../../db/migrate';

/**
 * Artwork from the platform's Media Library: a channel, series or episode names a Media Library
 * file (`artwork_media_id`). No foreign key: the file is the platform module's, looked up through
 * its api.ts when shown. Rows keep the Media Hub image item they had (`artwork_item_id`), still
 * served; a row holds one of the two at most, so "its artwork" has one meaning.
 */
export const mediahubLibraryArtworkMigration: Migration = {
  name: '2026.12.01T13.00.00.mediahub-library-artwork',
  up: `
ALTER TABLE mediahub_channels ADD COLUMN artwork_media_id uuid,
  ADD CONSTRAINT mediahub_channels_one_artwork CHECK (artwork_item_id IS NULL OR artwork_media_id IS NULL);
ALTER TABLE mediahub_series ADD COLUMN artwork_media_id uuid,
  ADD CONSTRAINT mediahub_series_one_artwork CHECK (artwork_item_id IS NULL OR artwork_media_id IS NULL);
ALTER TABLE mediahub_episodes ADD COLUMN artwork_media_id uuid,
  ADD CONSTRAINT mediahub_episodes_one_artwork CHECK (artwork_item_id IS NULL OR artwork_media_id IS NULL);
`,
  down: `
ALTER TABLE mediahub_episodes DROP CONSTRAINT mediahub_episodes_one_artwork, DROP COLUMN artwork_media_id;
ALTER TABLE mediahub_series DROP CONSTRAINT mediahub_series_one_artwork, DROP COLUMN artwork_media_id;
ALTER TABLE mediahub_channels DROP CONSTRAINT mediahub_channels_one_artwork, DROP COLUMN artwork_media_id;
`,
};
