import type { ModulePart } from '../../../module';

/** Care team, safeguarding, crisis holds, pastoral settings and dashboard. */
export const carePart: ModulePart = {
  name: 'care',
  tools: [],
  models: [],
  migrations: [],
};
