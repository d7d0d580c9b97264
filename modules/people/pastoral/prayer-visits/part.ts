import type { ModulePart } from '../../../module';

/** Prayer requests and pastoral visits. */
export const prayerVisitsPart: ModulePart = {
  name: 'prayer-visits',
  tools: [],
  models: [],
  migrations: [],
};
