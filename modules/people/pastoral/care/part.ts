import type { ModulePart } from '../../../module';
import { pastoralCare } from './migrations/2026.11.24T03.10.00.pastoral-care';
import { careModels } from './models';
import { getPastoralSettingsTool, initializePastoralSettingsTool, setPastoralSettingsTool } from './tools/settings';

/** Care team, safeguarding, crisis holds, pastoral settings and dashboard. */
export const carePart: ModulePart = {
  name: 'care',
  tools: [getPastoralSettingsTool, initializePastoralSettingsTool, setPastoralSettingsTool],
  models: [...careModels],
  migrations: [pastoralCare],
};
