import { proxyActivities } from '@temporalio/workflow';
import type { SafeguardingStatusActivities } from '../activities/safeguarding-status';

const { refreshSafeguardingCheckStatuses } = proxyActivities<SafeguardingStatusActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

export interface SafeguardingStatusRunInput {
  /** The day to compute statuses for (YYYY-MM-DD); the schedule leaves it out and the run's start date (UTC) is used. */
  asOf?: string;
  /** Only this organisation (tests, operators); the schedule covers all. */
  orgId?: string;
}

/**
 * The daily safeguarding status run, started by a Temporal Schedule (activities/schedules.ts):
 * moves each check along pending → completed → expiring → overdue as its dates say, so lists,
 * counts and alerts read a status at most a day old.
 */
export async function safeguardingStatusWorkflow(input: SafeguardingStatusRunInput = {}): Promise<{ asOf: string; changed: number }> {
  // Workflow time is the run's start as Temporal recorded it, so a replay uses the same date.
  const asOf = input.asOf ?? new Date(Date.now()).toISOString().slice(0, 10);
  return { asOf, changed: await refreshSafeguardingCheckStatuses(asOf, input.orgId) };
}
