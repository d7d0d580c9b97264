import { guarded, withHeartbeat } from '../modules/activity-kit';
import type { OutboxActivities, OutboxOutcome, OutboxPort } from '../modules/outbox-source';

/**
 * The outbox as activities, for any module's workflow: one send attempt for a
 * source record of a registered kind, and releasing one a person reviewed.
 * Schedule the send with a heartbeat timeout and retries (as the outreach
 * workflow does): a lease held by another attempt is a retryable failure.
 */
export function createOutboxActivities(deps: { outbox: OutboxPort }): OutboxActivities {
  const { outbox } = deps;
  return {
    async sendOutboxMessage(kind: string, orgId: string, sourceId: string): Promise<OutboxOutcome> {
      return withHeartbeat(() => guarded(() => outbox.send(kind, orgId, sourceId)));
    },

    async releaseOutboxMessage(kind: string, orgId: string, sourceId: string, userId: string): Promise<boolean> {
      return guarded(() => outbox.release(kind, orgId, sourceId, userId));
    },
  };
}

