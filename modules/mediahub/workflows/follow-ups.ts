import type { FollowUpPlanner, FollowUpStep } from '../../../core/tool-plan';
import { processItemWorkflowId, transcribeWorkflowId } from './processing';

/** A completed upload gets its processing workflow; a transcription request its own; each started once under its id. */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  'mediahub.process_item': (result, { orgId }) => {
    const item = (result as { item?: { id?: unknown; status?: unknown } } | null)?.item;
    if (typeof item?.id !== 'string' || item.status !== 'processing') return [];
    return [{ start: 'mediahubProcessItemWorkflow', id: processItemWorkflowId(item.id), args: [{ orgId, itemId: item.id }], searchAttributes: { kind: 'mediahub-processing' } } satisfies FollowUpStep];
  },
  'mediahub.transcribe': (result, { orgId }) => {
    const episode = (result as { episode?: { id?: unknown; transcriptStatus?: unknown; transcriptRequestedAt?: unknown } } | null)?.episode;
    if (typeof episode?.id !== 'string' || episode.transcriptStatus !== 'requested' || typeof episode.transcriptRequestedAt !== 'string') return [];
    return [{
      start: 'mediahubTranscribeEpisodeWorkflow', id: transcribeWorkflowId(episode.id, episode.transcriptRequestedAt.replace(/[^0-9]/g, '')), args: [{ orgId, episodeId: episode.id }], searchAttributes: { kind: 'mediahub-transcription' },
    } satisfies FollowUpStep];
  },
};
