import type { ModulePart } from '../../module';

/** The pipeline part of the guests module (joined in ../index.ts). */
export const pipelinePart: ModulePart = {
  name: 'pipeline',
};
