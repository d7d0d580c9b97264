import type { Client } from '@temporalio/client';

/**
 * Triggers a schedule's action now, as its interval would, once the second its last run started in is
 * over. A schedule names each run's workflow by the second it starts in, so a trigger in the same second
 * as the run before (a test's runs take well under a second, and switching an agent on may start one)
 * would reuse that run's workflow id and be dropped without an error.
 */
export async function triggerScheduleAfter(temporal: Client, scheduleId: string, lastRunAt: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastRunAt + 1_100 - Date.now())));
  await temporal.schedule.getHandle(scheduleId).trigger('ALLOW_ALL');
}
