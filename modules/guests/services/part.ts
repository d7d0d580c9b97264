import type { ModulePart } from '../../module';

/** The services part of the guests module (joined in ../index.ts). */
export const servicesPart: ModulePart = {
  name: 'services',
};
