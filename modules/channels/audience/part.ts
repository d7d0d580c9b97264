import type { ModulePart } from '../../module';

/** The audience part of the channels module (joined in ../index.ts). */
export const audiencePart: ModulePart = {
  name: 'audience',
};
