import type { Sequelize } from 'sequelize';
import { sequelize } from '../../../../../db/sequelize';
import { PastoralGriefTouchpoint } from './grief-touchpoints';
import { PastoralLifeEvent } from './life-events';

export { PastoralGriefTouchpoint, PastoralLifeEvent };

const initialised = new WeakSet<Sequelize>();

/** Defines the life-event and grief-touchpoint models on `instance`; contacts stay the people module's own models. */
export function initLifeEventModels(instance: Sequelize) {
  const models = [PastoralLifeEvent.initModel(instance), PastoralGriefTouchpoint.initModel(instance)] as const;
  if (initialised.has(instance)) return models;
  initialised.add(instance);
  PastoralLifeEvent.hasMany(PastoralGriefTouchpoint, { foreignKey: 'lifeEventId', as: 'touchpoints' });
  PastoralGriefTouchpoint.belongsTo(PastoralLifeEvent, { foreignKey: 'lifeEventId', as: 'lifeEvent' });
  return models;
}

/** Both models, defined on the process's instance when this file is first imported. */
export const lifeEventModels = initLifeEventModels(sequelize);
