import { Context } from '@temporalio/activity';
import { guarded } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import { markFailed, processItem, type ProcessOutcome } from '../processing';
import { transcribeEpisode, type TranscribeOutcome } from '../transcription';

/** Media Hub's activities: an item's processing (heartbeating, so a dead worker's attempt is retried within seconds) and an episode's transcription. */
export function createMediahubActivities(deps: ActivityDeps) {
  return {
    async mediahubProcessItem(orgId: string, itemId: string): Promise<ProcessOutcome> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 1000);
      try {
        return await guarded(() => processItem(deps.pool, orgId, itemId, () => ctx.heartbeat()));
      } finally {
        clearInterval(beat);
      }
    },
    async mediahubMarkItemFailed(orgId: string, itemId: string, reason: string): Promise<ProcessOutcome> {
      return guarded(() => markFailed(deps.pool, orgId, itemId, reason));
    },
    async mediahubTranscribeEpisode(orgId: string, episodeId: string): Promise<TranscribeOutcome> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 1000);
      try {
        return await guarded(() => transcribeEpisode(deps.pool, orgId, episodeId));
      } finally {
        clearInterval(beat);
      }
    },
  };
}

export type MediahubActivities = ReturnType<typeof createMediahubActivities>;
