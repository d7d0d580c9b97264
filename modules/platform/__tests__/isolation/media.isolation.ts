import sharp from 'sharp';
import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/**
 * The Media Library's probes: A's file (live and in the trash), a pending upload with its real
 * session, a folder and a tag; B names them and must get exactly what a missing id gets.
 */
export const isolation: IsolationPart = {
  tables: ['media_files', 'media_folders', 'media_tags', 'media_file_tags'],
  secrets: ['isolation-media-photo', 'Isolation media alt', 'Isolation media folder', 'Isolation media tag'],
  seed: async ({ harness, a }) => {
    const call = (tool: string, args: Record<string, unknown>) => harness.call(a.apiKey, tool, args);
    const png = await sharp({ create: { width: 12, height: 12, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
    const mediaFolder = (await call('platform_create_media_folder', { name: 'Isolation media folder' })).folder.id;
    const mediaFile = (await call('platform_upload_media_library_file', {
      base64Content: png.toString('base64'), fileName: 'isolation-media-photo.png', altText: 'Isolation media alt', folderId: mediaFolder, isPublic: false,
    })).file.id;
    await call('platform_update_media_library_file', { mediaId: mediaFile, tags: ['Isolation media tag'] });
    const mediaTag = (await call('platform_list_media_tags', {})).tags[0].id;
    const trashedMediaFile = (await call('platform_upload_media_library_file', { base64Content: png.toString('base64'), fileName: 'isolation-media-photo-2.png' })).file.id;
    await call('platform_delete_media_library_file', { mediaId: trashedMediaFile });
    const pending = await call('platform_begin_media_library_upload', { fileName: 'isolation-media-photo-3.png', fileSize: png.length });
    return { mediaFolder, mediaFile, mediaTag, trashedMediaFile, pendingMediaFile: pending.mediaId, pendingMediaSession: pending.sessionId };
  },
  entries: {
    platform_begin_media_library_upload: [{ args: (i) => ({ fileName: 'planted.png', fileSize: 100, folderId: i.mediaFolder }) }],
    platform_complete_media_library_upload: [
      { args: (i) => ({ mediaId: i.mediaFile, sessionId: 'mus_a-session-b-made-up' }) },
      { label: 'A\'s pending upload with its own session', args: (i) => ({ mediaId: i.pendingMediaFile, sessionId: i.pendingMediaSession }) },
    ],
    platform_upload_media_library_file: [{ args: (i) => ({ base64Content: 'iVBORw0KGgo=', folderId: i.mediaFolder }) }],
    platform_list_media_library_files: [{ args: (i) => ({ folderId: i.mediaFolder }) }],
    platform_search_media_library: [{ args: (i) => ({ query: 'isolation', folderId: i.mediaFolder }) }],
    platform_get_media_library_file: [{ args: (i) => ({ mediaId: i.mediaFile }) }, { label: 'pending', args: (i) => ({ mediaId: i.pendingMediaFile }) }],
    platform_get_media_library_serve_url: [{ args: (i) => ({ mediaId: i.mediaFile }) }],
    platform_update_media_library_file: [{ args: (i) => ({ mediaId: i.mediaFile, altText: 'Changed by B' }) }],
    platform_delete_media_library_file: [{ args: (i) => ({ mediaId: i.mediaFile }) }],
    platform_restore_media_library_file: [{ args: (i) => ({ mediaId: i.trashedMediaFile }) }],
    platform_reprocess_media_library_file: [{ args: (i) => ({ mediaId: i.mediaFile }) }],
    platform_bulk_media_library_action: [
      { args: (i) => ({ action: 'delete', mediaIds: [i.mediaFile] }) },
      { label: 'move', args: (i) => ({ action: 'move', mediaIds: [i.mediaFile], folderId: null }) },
    ],
    platform_list_media_folders: [{ args: (i) => ({ parentId: i.mediaFolder }) }],
    platform_get_media_folder: [{ args: (i) => ({ folderId: i.mediaFolder }) }],
    platform_create_media_folder: [{ args: (i) => ({ name: 'Planted by B', parentId: i.mediaFolder }) }],
    platform_update_media_folder: [{ args: (i) => ({ folderId: i.mediaFolder, name: 'Renamed by B' }) }],
    platform_delete_media_folder: [{ args: (i) => ({ folderId: i.mediaFolder }) }],
    platform_delete_media_tag: [{ args: (i) => ({ tagId: i.mediaTag }) }],
    platform_ai_analyze_media: [{ args: (i) => ({ mediaId: i.mediaFile }) }],
    platform_ai_generate_media: [{ args: (i) => ({ prompt: 'planted by B', folderId: i.mediaFolder }) }],
  },
};
