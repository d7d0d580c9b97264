import type { ModulePart } from '../../../module';
import { griefTouchpointsDueRule } from './alerts';
import { pastoralLifeEvents } from './migrations/2026.11.24T03.00.00.pastoral-life-events';
import { lifeEventModels } from './models';
import { lifeEventTools } from './tools';

/** Life events and grief care: what happened in a person's life, and the touchpoint plan a bereavement opens. */
export const lifeEventsPart: ModulePart = {
  name: 'life-events',
  tools: lifeEventTools,
  models: [...lifeEventModels],
  migrations: [pastoralLifeEvents],
  alerts: [griefTouchpointsDueRule],
  // Merge moves a life event to the kept contact (its touchpoints follow it); erasure deletes it, and its touchpoints cascade.
  contactRefs: [{ table: 'pastoral_life_events', column: 'contact_id', onMerge: 'move', onErase: 'delete' }],
};
