import type { ModulePart } from '../../module';

/** Brand voice and the public display name. */
export const brandPart: ModulePart = {
  name: 'brand',
  tools: [],
  models: [],
  migrations: [],
};
