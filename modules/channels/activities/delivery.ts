import type { ActivityDeps } from '../../module';
import { recordDispatchFailure } from '../delivery/source';
import { guarded } from '../../activity-kit';

/** Channel message activities beyond the outbox's own (activities/outbox-activities.ts). */
export function createChannelsDeliveryActivities(deps: Pick<ActivityDeps, 'pool'>) {
  return {
    /** Dispatch gave up (the provider kept failing past every retry): the message is failed with the reason, not left sending. */
    async failChannelMessage(orgId: string, messageId: string, problem: { code: string; message: string }): Promise<void> {
      await guarded(() => recordDispatchFailure(deps.pool, orgId, messageId, problem));
    },
  };
}

export type ChannelsDeliveryActivities = ReturnType<typeof createChannelsDeliveryActivities>;
