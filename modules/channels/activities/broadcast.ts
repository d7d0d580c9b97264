import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps } from '../../module';
import type { OutboxPort } from '../../outbox-source';
import { beginBroadcast, finishBroadcast, sendBroadcastBatch, type BatchStep, type BroadcastBegin, type DispatchResult } from '../broadcasts/sending';
import { guarded } from '../../activity-kit';
import { CHANNEL_MESSAGE_SOURCE_KIND } from '../delivery/source';

/** When an attempt holding a message's lease gives no hint how long it has left. */
const BUSY_RETRY_MS = 15_000;

/**
 * One outbox attempt for a broadcast's message, as a result rather than a throw: a batch goes on
 * past one message that cannot go now (another attempt's live lease, a provider outage), and the
 * recipient records why and when to try again.
 */
export function outboxDispatch(outbox: OutboxPort, orgId: string) {
  return async (messageId: string): Promise<DispatchResult> => {
    try {
      const outcome = await outbox.send(CHANNEL_MESSAGE_SOURCE_KIND, orgId, messageId);
      switch (outcome.status) {
        case 'sent': return { kind: 'sent' };
        case 'refused': return { kind: 'refused', code: outcome.error.code };
        case 'deferred': return { kind: 'deferred', until: new Date(outcome.until), reason: 'quiet_hours' };
        case 'needs_review': return { kind: 'failed', code: 'needs_review' };
        case 'not_ready': return { kind: 'refused', code: 'not_ready' };
      }
    } catch (error) {
      if (error instanceof ApplicationFailure) {
        if (error.type === 'send_in_progress') {
          const delay = typeof error.nextRetryDelay === 'number' ? error.nextRetryDelay : BUSY_RETRY_MS;
          return { kind: 'deferred', until: new Date(Date.now() + delay), reason: 'send_in_progress' };
        }
        if (error.nonRetryable) return { kind: 'failed', code: error.type ?? 'delivery_refused' };
      }
      return { kind: 'retry', code: 'send_failed' };
    }
  };
}

/** A broadcast's sending as activities (workflows/broadcast.ts); the batch heartbeats after every message. */
export function createBroadcastActivities(deps: ActivityDeps) {
  const { outbox } = deps;
  return {
    async broadcastBegin(input: { orgId: string; broadcastId: string }): Promise<BroadcastBegin> {
      return guarded(() => beginBroadcast(deps.pool, input.orgId, input.broadcastId));
    },

    async broadcastSendBatch(input: { orgId: string; broadcastId: string; batchSize: number }): Promise<BatchStep> {
      const ctx = Context.current();
      // Also beats on a timer: one slow provider call must not look like a dead worker.
      const beat = setInterval(() => ctx.heartbeat(), 1000);
      try {
        return await guarded(() => sendBroadcastBatch(deps.pool, input.orgId, input.broadcastId, {
          batchSize: input.batchSize, dispatch: outboxDispatch(outbox, input.orgId), beat: () => ctx.heartbeat(),
        }));
      } finally {
        clearInterval(beat);
      }
    },

    async broadcastFinish(input: { orgId: string; broadcastId: string }): Promise<{ status: string }> {
      return guarded(() => finishBroadcast(deps.pool, input.orgId, input.broadcastId));
    },
  };
}

export type BroadcastActivities = ReturnType<typeof createBroadcastActivities>;
