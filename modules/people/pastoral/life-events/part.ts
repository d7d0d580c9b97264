import type { ModulePart } from '../../../module';

/** Life events and grief care: what happened in a person's life, and the touchpoint plan a bereavement opens. */
export const lifeEventsPart: ModulePart = {
  name: 'life-events',
  tools: [],
  models: [],
  migrations: [],
};
