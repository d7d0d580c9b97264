import { guarded, withHeartbeat } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import type { OutboxOutcome } from '../../outbox-source';
import { currentInviteSend, TEAM_INVITE_SOURCE_KIND } from '../team-invite-delivery';

/** Emailing a team invite through the shared outbox, the step after inviting (follow-up 'platform.send_team_invite'). */
export function createTeamInviteActivities(deps: ActivityDeps) {
  const { pool, outbox } = deps;
  return {
    /** Emails a team invite's current send; one replaced or cancelled meanwhile is not sent. */
    async sendTeamInvite(orgId: string, inviteId: string): Promise<OutboxOutcome> {
      const sendId = await guarded(() => currentInviteSend(pool, orgId, inviteId));
      if (!sendId) return { status: 'not_ready' };
      return withHeartbeat(() => guarded(() => outbox.send(TEAM_INVITE_SOURCE_KIND, orgId, sendId)));
    },
  };
}
