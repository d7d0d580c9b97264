import { StewardError } from '../../core/errors';
import { queryRows, type Queryable } from '../../db/pool';
import { linkedMediaFile, linkedMediaFiles, publicOrigin } from '../platform/api';

/**
 * Artwork of a channel, series or episode. It comes from the platform's Media Library (a public
 * image file: `artwork_media_id`), shown by the file's own public address; before that it was a
 * Media Hub image item (`artwork_item_id`), still honoured and served through Media Hub's artwork
 * redirect. A row holds at most one of the two (a CHECK constraint). The Media Library is the
 * platform module's, so its files are read only through platform's api.ts, at the time they are
 * shown: a file made private, trashed or deleted since stops showing at once.
 */
export interface ArtworkColumns { artwork_media_id: string | null; artwork_item_id: string | null }

/** An episode row as read with its series' artwork beside its own. */
export interface EpisodeArtworkColumns extends ArtworkColumns { series_artwork_media_id: string | null; series_artwork_item_id: string | null }

/** An episode's artwork levels, in the order they are tried: its own, then its series'. */
export const episodeArtworkChain = (row: EpisodeArtworkColumns): ArtworkColumns[] => [
  { artwork_media_id: row.artwork_media_id, artwork_item_id: row.artwork_item_id },
  { artwork_media_id: row.series_artwork_media_id, artwork_item_id: row.series_artwork_item_id },
];

/** The address of a Media Hub image item used as artwork (the older way), served by `/mediahub/artwork/`. */
export const artworkUrlOf = (orgId: string, itemId: string, extension: string) => `${publicOrigin()}/mediahub/artwork/${orgId}/${itemId}.${extension}`;

/**
 * Checks a Media Library file can be artwork: this organisation's (another's answers as a missing
 * one), ready and not in the trash, an image, and public, since podcast apps and the public library
 * load it by its unsigned address.
 */
export async function requireLibraryImage(db: Queryable, orgId: string, mediaId: string, field: string): Promise<void> {
  const file = await linkedMediaFile(db, orgId, mediaId);
  if (!file) {
    throw new StewardError('not_found', `Media Library file ${mediaId} was not found`, {
      issues: [{ path: field, message: 'no such file in the Media Library' }],
      hint: 'platform_list_media_library_files lists the library\'s images; add one with platform_begin_media_library_upload.',
    });
  }
  if (!file.mimeType.startsWith('image/')) {
    throw new StewardError('validation_failed', `${field} must be an image; "${file.name}" is ${file.mimeType}`, {
      issues: [{ path: field, message: `a ${file.mimeType} file, not an image` }], hint: 'Choose a PNG or JPEG image from the Media Library (podcast apps want a square one, 1400 to 3000 pixels).',
    });
  }
  if (!file.isPublic || !file.url) {
    throw new StewardError('validation_failed', `"${file.name}" is private, so the podcast feed and the public library cannot show it`, {
      issues: [{ path: field, message: 'a private file' }], hint: 'Make it public with platform_update_media_library_file (isPublic: true), or choose a public image.',
    });
  }
}

/** Looks up every artwork the given rows name at once; `urlOf` then answers the first of a row's levels (episode, then series) that can be shown now. */
export async function artworkResolver(db: Queryable, orgId: string, levels: readonly ArtworkColumns[]): Promise<{ urlOf: (...chain: ArtworkColumns[]) => string | null }> {
  const mediaIds = [...new Set(levels.map((level) => level.artwork_media_id).filter((id): id is string => Boolean(id)))];
  const itemIds = [...new Set(levels.map((level) => level.artwork_item_id).filter((id): id is string => Boolean(id)))];
  const files = await linkedMediaFiles(db, orgId, mediaIds);
  const items = itemIds.length === 0 ? [] : await queryRows<{ id: string; extension: string }>(db, `SELECT id, extension FROM mediahub_items
    WHERE org_id = $1 AND id = ANY($2::uuid[]) AND kind = 'image' AND status = 'ready'`, [orgId, itemIds]);
  const extensions = new Map(items.map((item) => [item.id, item.extension]));
  const one = (level: ArtworkColumns): string | null => {
    if (level.artwork_media_id) {
      const file = files.get(level.artwork_media_id);
      return file && file.isPublic && file.mimeType.startsWith('image/') ? file.url : null;
    }
    const extension = level.artwork_item_id ? extensions.get(level.artwork_item_id) : undefined;
    return extension ? artworkUrlOf(orgId, level.artwork_item_id!, extension) : null;
  };
  return { urlOf: (...chain) => chain.reduce<string | null>((found, level) => found ?? one(level), null) };
}

/** The shown artwork of one row (and what it falls back to). */
export async function artworkUrl(db: Queryable, orgId: string, ...chain: ArtworkColumns[]): Promise<string | null> {
  return (await artworkResolver(db, orgId, chain)).urlOf(...chain);
}
