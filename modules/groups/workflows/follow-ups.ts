import type { FollowUpPlanner } from '../../../core/tool-plan';

/** The channel messages a groups_message_members result names (`sent[].messageId`). */
function messageIdsOfResult(result: unknown): string[] {
  const sent = (result as { sent?: unknown } | null)?.sent;
  if (!Array.isArray(sent)) return [];
  return sent.map((entry) => (entry as { messageId?: unknown }).messageId).filter((id): id is string => typeof id === 'string');
}

/** The groups module's follow-ups, by kind (see FollowUpPlanner in core/tool-plan.ts). */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  /**
   * Each queued message goes out through channels' own message workflow, started exactly as
   * channels' 'channels.send_message' follow-up starts it (same workflow type and id, so a repeat
   * finds it started): the outbox's lease, consent check at dispatch and count-once apply to each.
   */
  'groups.message_members': (result, { orgId }) => messageIdsOfResult(result).map((messageId) => ({
    start: 'channelMessageWorkflow', id: `channel-message-${orgId}-${messageId}`, args: [{ orgId, messageId }], searchAttributes: { kind: 'channel_message' },
  })),
};
