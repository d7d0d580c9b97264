import type { FollowUpPlanner } from '../../../core/tool-plan';

/** The invite a team-invite result names (`invite.inviteId`). */
function inviteIdOfResult(result: unknown): string | undefined {
  const invite = (result as { invite?: { inviteId?: unknown } } | null)?.invite;
  return typeof invite?.inviteId === 'string' ? invite.inviteId : undefined;
}

/** The platform module's follow-ups, by kind (see FollowUpPlanner in core/tool-plan.ts). */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  /**
   * Emails the invite the result names through the outbox (activities/team-invite.ts). The invite
   * stands whether or not the email went (it records why not); resending is the remedy. Few
   * attempts: the caller waits for this call. Heartbeats as every send, so a worker dying mid-send
   * is noticed and the send retried under the outbox's lease.
   */
  'platform.send_team_invite': (result, { orgId }) => {
    const inviteId = inviteIdOfResult(result);
    if (!inviteId) return [];
    return [{
      activity: 'sendTeamInvite',
      args: [orgId, inviteId],
      options: {
        startToCloseTimeout: '2 minutes',
        heartbeatTimeout: '5 seconds',
        retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 3 },
      },
      ignoreFailure: true,
    }];
  },
};
