import type { Pool } from '../db/pool';
import { purgeExpiredRecords, type PurgeCounts } from '../modules/platform/retention';

export function createMaintenanceActivities(deps: { pool: Pool }) {
  return {
    async purgeExpiredRecords(): Promise<PurgeCounts> {
      return purgeExpiredRecords(deps.pool);
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
