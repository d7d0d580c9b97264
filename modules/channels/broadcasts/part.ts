import type { ModulePart } from '../../module';

/** The broadcasts part of the channels module (joined in ../index.ts). */
export const broadcastsPart: ModulePart = {
  name: 'broadcasts',
};
