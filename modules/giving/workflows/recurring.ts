import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { GivingRecurringActivities } from '../activities/recurring';

const { givingOrganisationsWithDueGifts } = proxyActivities<GivingRecurringActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/**
 * Recording holds row locks in one transaction and heartbeats after each gift: a worker that dies
 * mid-call is noticed within the heartbeat timeout and the call is retried elsewhere, and the
 * retry records only what the dead attempt did not commit.
 */
const { givingRecordDueRecurringGifts } = proxyActivities<GivingRecurringActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

export interface GivingRecurringRunInput {
  /** The date to record up to (YYYY-MM-DD); the schedule leaves it out, and the run's own start date (UTC) is used. */
  asOf?: string;
  /** Only this organisation (tests, operators); the schedule covers all. */
  orgId?: string;
}

export interface GivingRecurringRunResult {
  asOf: string;
  organisations: number;
  recorded: number;
  resumed: number;
  /** Organisations whose recording failed after its retries; the next run tries them again (nothing was half written). */
  failed: string[];
}

/** One call records at most this many batches' worth for an organisation before the next run carries on. */
const MAX_CALLS_PER_ORGANISATION = 50;

/**
 * The recurring-gift run, started hourly by a Temporal Schedule (activities/schedules.ts): records
 * every occurrence that has come due as a donation, exactly once, organisation by organisation.
 * A run that missed days catches up on the dates it missed; paused and cancelled gifts are skipped.
 */
export async function givingRecurringWorkflow(input: GivingRecurringRunInput = {}): Promise<GivingRecurringRunResult> {
  // Workflow time is the run's start as Temporal recorded it, so a replay uses the same date.
  const asOf = input.asOf ?? new Date(Date.now()).toISOString().slice(0, 10);
  const result: GivingRecurringRunResult = { asOf, organisations: 0, recorded: 0, resumed: 0, failed: [] };
  let after: string | null = null;
  for (;;) {
    const orgIds: string[] = input.orgId ? [input.orgId] : await givingOrganisationsWithDueGifts(asOf, after);
    for (const orgId of orgIds) {
      result.organisations += 1;
      try {
        for (let call = 0; call < MAX_CALLS_PER_ORGANISATION; call += 1) {
          const run = await givingRecordDueRecurringGifts({ orgId, asOf });
          result.recorded += run.recorded;
          result.resumed += run.resumed;
          if (!run.more) break;
        }
      } catch (error) {
        // One organisation's failure does not hold up the others; a cancelled run stops.
        if (isCancellation(error)) throw error;
        result.failed.push(orgId);
      }
    }
    if (input.orgId || orgIds.length === 0) break;
    after = orgIds[orgIds.length - 1];
  }
  return result;
}
