import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { LiveActivities } from '../activities';

const { liveStreamDeadline, liveAutoComplete } = proxyActivities<LiveActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 50 },
});

export const streamWorkflowId = (streamId: string) => `live-stream-${streamId}`;
export const STREAM_KIND = 'live-stream';
/** A stream's times changed, or it ended: the timer reads them again. */
export const streamChangedSignal = defineSignal('liveStreamChanged');

const MAX_ROUNDS = 500;

export interface StreamTimerInput { orgId: string; streamId: string }

/**
 * One stream's durable timer: it sleeps until the stream's end plus grace (woken early when the
 * stream changes), then completes it if nobody has, at the provider and here. So no stream stays
 * live past its end and grace, whatever happens to the processes meanwhile.
 */
export async function liveStreamWorkflow(input: StreamTimerInput): Promise<string> {
  let changed = false;
  setHandler(streamChangedSignal, () => { changed = true; });
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const due = await liveStreamDeadline(input.orgId, input.streamId);
    if (due === null) return 'finished';
    const wait = Date.parse(due) - Date.now();
    if (wait > 0) {
      await condition(() => changed, wait);
      changed = false;
      continue;
    }
    const outcome = await liveAutoComplete(input.orgId, input.streamId);
    if (outcome.outcome !== 'not_due') return outcome.outcome;
  }
  return 'gave_up';
}
