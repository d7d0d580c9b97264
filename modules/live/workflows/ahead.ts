import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import { SA_KIND, SA_ORG } from '../../../core/search-attributes';
import type { LiveActivities } from '../activities';
import { STREAM_KIND, liveStreamWorkflow, streamWorkflowId } from './stream';

const { liveCreateStreamsAhead } = proxyActivities<LiveActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

export interface StreamsAheadInput { orgId?: string }

/**
 * Run by a Temporal Schedule: streams for the services ahead (for organisations that turned it on),
 * then each waiting stream's timer, as a workflow of its own that outlives this run (so no stream made
 * ahead stays live past its end plus grace). A timer already running is left alone, so a repeated run
 * changes nothing.
 */
export async function liveStreamsAheadWorkflow(input: StreamsAheadInput = {}): Promise<Record<string, number>> {
  const run = await liveCreateStreamsAhead({ now: new Date(workflowInfo().startTime).toISOString(), orgId: input.orgId });
  let timersStarted = 0;
  for (const timer of run.timers) {
    try {
      await startChild(liveStreamWorkflow, {
        workflowId: streamWorkflowId(timer.streamId), args: [timer], parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: [{ key: SA_ORG, value: timer.orgId }, { key: SA_KIND, value: STREAM_KIND }],
      });
      timersStarted += 1;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return { ...run.counts, timersStarted };
}
