import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { MediahubActivities } from '../activities/processing';

const { mediahubProcessItem } = proxyActivities<MediahubActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

const { mediahubMarkItemFailed, mediahubTranscribeEpisode } = proxyActivities<MediahubActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export const processItemWorkflowId = (itemId: string) => `mediahub-process-${itemId}`;
export const transcribeWorkflowId = (episodeId: string, requestedAt: string) => `mediahub-transcribe-${episodeId}-${requestedAt}`;

/**
 * One upload's processing, durable: the heartbeating activity probes the file, makes its still or
 * waveform and moves it into place; a worker that dies mid-way stops beating and the attempt is
 * retried on another (or the restarted) worker. After the last retry the item is marked failed, so
 * none is left processing for ever.
 */
export async function mediahubProcessItemWorkflow(input: { orgId: string; itemId: string }): Promise<string> {
  try {
    return await mediahubProcessItem(input.orgId, input.itemId);
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : error;
    const message = cause instanceof ApplicationFailure ? cause.message : 'Processing failed after several attempts';
    return mediahubMarkItemFailed(input.orgId, input.itemId, message);
  }
}

/** An episode's transcription through the configured provider, retried; the transcript becomes searchable. */
export async function mediahubTranscribeEpisodeWorkflow(input: { orgId: string; episodeId: string }): Promise<string> {
  return (await mediahubTranscribeEpisode(input.orgId, input.episodeId)).status;
}
