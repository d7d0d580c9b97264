import { condition, continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BroadcastActivities } from '../activities/broadcast';

/**
 * Long waits between batches and the wait for sendAt are timers; the work is activities. One batch
 * queues and dispatches up to `batchSize` messages and heartbeats, so a worker killed mid-batch is
 * noticed within seconds and the batch runs again: the messages it had queued are found by their
 * idempotency keys and the outbox's leases keep each one to a single provider call.
 */
const { broadcastBegin, broadcastSendBatch, broadcastFinish } = proxyActivities<BroadcastActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export const broadcastWorkflowId = (broadcastId: string) => `broadcast-${broadcastId}`;

/** Sent by channels_cancel_broadcast's follow-up: stop at once instead of at the next batch. */
export const broadcastCancelSignal = defineSignal('broadcastCancel');

export interface BroadcastWorkflowInput {
  orgId: string;
  broadcastId: string;
  /** Batches run by earlier runs of this workflow (continue-as-new carries it on). */
  batchesSoFar?: number;
}

export interface BroadcastWorkflowResult {
  broadcastId: string;
  status: string;
  batches: number;
}

/** Each run keeps its history short: after this many batches it continues as a new run. */
const BATCHES_PER_RUN = 100;
const HOUR_MS = 3_600_000;

/**
 * Sends a broadcast: waits until sendAt, then sends in throttled batches (ratePerMinute) until no
 * recipient is outstanding. A batch reports when the next deferred message is due (quiet hours, a
 * lease held by a dead attempt) and the workflow sleeps until then, never dropping it. The broadcast
 * row, not the workflow, holds what is done, so a restart, a new run or a replay goes on where it was.
 */
export async function broadcastWorkflow(input: BroadcastWorkflowInput): Promise<BroadcastWorkflowResult> {
  let cancelled = false;
  setHandler(broadcastCancelSignal, () => { cancelled = true; });
  let batches = input.batchesSoFar ?? 0;
  let begun = await broadcastBegin({ orgId: input.orgId, broadcastId: input.broadcastId });

  // Started by the schedule call's follow-up once the broadcast is scheduled; anything else (cancelled meanwhile) has nothing to send.
  if (cancelled || !begun.sendable) return { broadcastId: input.broadcastId, status: cancelled ? 'cancelled' : begun.status, batches };

  // Waits for sendAt in slices, re-reading it: a long wait never overflows a timer.
  let sendAtMs = begun.sendAt ? Date.parse(begun.sendAt) : 0;
  while (!cancelled && sendAtMs > Date.now()) {
    await condition(() => cancelled, Math.min(sendAtMs - Date.now(), 24 * HOUR_MS));
    begun = await broadcastBegin({ orgId: input.orgId, broadcastId: input.broadcastId });
    if (!begun.sendable) return { broadcastId: input.broadcastId, status: begun.status, batches };
    sendAtMs = begun.sendAt ? Date.parse(begun.sendAt) : 0;
  }

  for (let inThisRun = 0; !cancelled; inThisRun += 1) {
    if (inThisRun >= BATCHES_PER_RUN) {
      await continueAsNew<typeof broadcastWorkflow>({ ...input, batchesSoFar: batches });
    }
    const step = await broadcastSendBatch({ orgId: input.orgId, broadcastId: input.broadcastId, batchSize: begun.batchSize });
    batches += 1;
    if (step.state !== 'running') break;
    if (step.handled > 0) {
      // Throttle: the batch's share of a minute at the broadcast's rate.
      await condition(() => cancelled, Math.ceil((step.handled * 60_000) / begun.ratePerMinute));
    } else if (step.nextDueAt) {
      await condition(() => cancelled, Math.max(1000, Math.min(Date.parse(step.nextDueAt) - Date.now(), 6 * HOUR_MS)));
    } else {
      await condition(() => cancelled, 1000);
    }
  }
  const finished = await broadcastFinish({ orgId: input.orgId, broadcastId: input.broadcastId });
  return { broadcastId: input.broadcastId, status: finished.status, batches };
}
