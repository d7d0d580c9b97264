import type { ModulePart } from '../../module';
import { platformAlertRules } from './rules';
import { proactiveAlertsTool } from './tool';

/** Proactive alerts from explainable rules over the organisation's data. */
export const alertsPart: ModulePart = {
  name: 'alerts',
  tools: (modules) => [proactiveAlertsTool(modules)],
  alerts: platformAlertRules,
};
