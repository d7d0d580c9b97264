import type { Pool } from '../db/pool';
import { createApprovalActivities } from './approval-activities';
import { createGivingRecurringActivities } from './giving-recurring';
import { createMaintenanceActivities } from './maintenance';
import { createModuleJobActivities } from './module-jobs';
import { createOutboxActivities } from './outbox-activities';
import { createPastoralGriefActivities } from './pastoral-grief';
import { createSafeguardingStatusActivities } from './safeguarding-status';
import { createToolActivities } from './tool-activities';

export function createActivities(deps: { pool: Pool }) {
  return {
    ...createToolActivities(deps), ...createApprovalActivities(deps), ...createOutboxActivities(deps), ...createMaintenanceActivities(deps),
    ...createGivingRecurringActivities(deps), ...createPastoralGriefActivities(deps), ...createSafeguardingStatusActivities(deps),
    ...createModuleJobActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
