import type { ModulePart } from '../../module';
import { mediaItemsMeter, mediaRetention } from './library';
import { mediaLibrary } from './migrations/2026.11.24T03.40.00.media-library';
import { mediaModels } from './models';
import { mediaTools } from './tools';

/** The Media Library: files on object storage, folders, tags, quota and AI media tools. */
export const mediaPart: ModulePart = {
  name: 'media',
  tools: mediaTools,
  models: mediaModels,
  migrations: [mediaLibrary],
  retention: mediaRetention,
  meters: [mediaItemsMeter],
};
