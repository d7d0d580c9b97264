import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance';

const { purgeExpiredRecords } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 5 },
});

/** Daily housekeeping, started by the maintenance schedule: removes records that have outlived their purpose. */
export async function maintenanceWorkflow(): Promise<Awaited<ReturnType<MaintenanceActivities['purgeExpiredRecords']>>> {
  return purgeExpiredRecords();
}
