import type { ModulePart } from '../../module';

/** The Media Library: files on object storage, folders, tags, quota and AI media tools. */
export const mediaPart: ModulePart = {
  name: 'media',
  tools: [],
  models: [],
  migrations: [],
};
