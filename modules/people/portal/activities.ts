import { guarded, withHeartbeat } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import type { OutboxOutcome } from '../../outbox-source';
import { currentPortalSend, PORTAL_INVITE_SOURCE_KIND } from './invites';

/** Sending a portal invite's current link through the shared outbox (follow-up 'people.send_portal_invites'). */
export function createPortalInviteActivities(deps: ActivityDeps) {
  const { pool, outbox } = deps;
  return {
    /** Sends the invite's current link; one revoked meanwhile is not sent. */
    async sendPortalInvite(orgId: string, inviteId: string): Promise<OutboxOutcome> {
      const sendId = await guarded(() => currentPortalSend(pool, orgId, inviteId));
      if (!sendId) return { status: 'not_ready' };
      return withHeartbeat(() => guarded(() => outbox.send(PORTAL_INVITE_SOURCE_KIND, orgId, sendId)));
    },
  };
}
