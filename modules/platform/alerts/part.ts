import type { ModulePart } from '../../module';

/** Proactive alerts from explainable rules over the organisation's data. */
export const alertsPart: ModulePart = {
  name: 'alerts',
  tools: [],
  models: [],
  migrations: [],
};
