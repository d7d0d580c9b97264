import type { Pool } from '../db/pool';
import { createApprovalActivities } from './approval-activities';
import { createBroadcastActivities } from './channels-broadcast';
import { createGivingRecurringActivities } from './giving-recurring';
import { createMaintenanceActivities } from './maintenance';
import { createModuleJobActivities } from './module-jobs';
import { createOutboxActivities } from './outbox-activities';
import { createChannelsDeliveryActivities } from './channels-delivery';
import { createPastoralGriefActivities } from './pastoral-grief';
import { createSafeguardingStatusActivities } from './safeguarding-status';
import { createTemplatesReviewActivities } from './templates-whatsapp-review';
import { createToolActivities } from './tool-activities';

export function createActivities(deps: { pool: Pool }) {
  return {
    ...createToolActivities(deps), ...createApprovalActivities(deps), ...createOutboxActivities(deps), ...createMaintenanceActivities(deps),
    ...createGivingRecurringActivities(deps), ...createPastoralGriefActivities(deps), ...createSafeguardingStatusActivities(deps),
    ...createModuleJobActivities(deps), ...createChannelsDeliveryActivities(deps), ...createBroadcastActivities(deps), ...createTemplatesReviewActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
