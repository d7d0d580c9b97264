import type { FollowUpPlanner } from '../../../core/tool-plan';
import { broadcastCancelSignal, broadcastWorkflowId } from './broadcast';
import { channelMessageWorkflowId } from './message';

/** The message a send tool's result names (`message.id`). */
function channelMessageIdOfResult(result: unknown): string | undefined {
  const id = (result as { message?: { id?: unknown } } | null)?.message?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The broadcast change a schedule or cancel result names (`followUp: { broadcastId, change }`). */
function broadcastChangeOfResult(result: unknown): { broadcastId: string; change: 'scheduled' | 'cancelled' } | undefined {
  const change = (result as { followUp?: { broadcastId?: unknown; change?: unknown } | null } | null)?.followUp;
  if (!change || typeof change.broadcastId !== 'string') return undefined;
  return change.change === 'scheduled' || change.change === 'cancelled' ? { broadcastId: change.broadcastId, change: change.change } : undefined;
}

/** The channels module's follow-ups, by kind (see FollowUpPlanner in core/tool-plan.ts). */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  /** The queued message the result names goes out through the outbox, waiting out quiet hours (message.ts); a repeat finds it started. */
  'channels.send_message': (result, { orgId }) => {
    const messageId = channelMessageIdOfResult(result);
    return messageId
      ? [{ start: 'channelMessageWorkflow', id: channelMessageWorkflowId(orgId, messageId), args: [{ orgId, messageId }], searchAttributes: { kind: 'channel_message' } }]
      : [];
  },

  /** A scheduled broadcast gets its sending workflow (broadcast.ts); a cancelled one tells it to stop at once. */
  'channels.broadcast': (result, { orgId }) => {
    const change = broadcastChangeOfResult(result);
    if (!change) return [];
    const id = broadcastWorkflowId(change.broadcastId);
    return change.change === 'scheduled'
      ? [{ start: 'broadcastWorkflow', id, args: [{ orgId, broadcastId: change.broadcastId }], searchAttributes: { kind: 'broadcast', status: 'running' } }]
      : [{ signal: broadcastCancelSignal.name, id }];
  },
};
