import { guarded, withHeartbeat } from '../../../../modules/activity-kit';
import type { ActivityDeps } from '../../../../modules/module';
import type { OutboxOutcome } from '../../../../modules/outbox-source';
import { THANKS_SOURCE_KIND } from '../thanks';

/** The kit demo's activities: one outbox attempt for a thank-you, through the outbox the worker hands every module. */
export function createKitdemoActivities(deps: ActivityDeps) {
  return {
    async kitdemoSendThanks(orgId: string, thanksId: string): Promise<OutboxOutcome> {
      return withHeartbeat(() => guarded(() => deps.outbox.send(THANKS_SOURCE_KIND, orgId, thanksId)));
    },
  };
}

export type KitdemoActivities = ReturnType<typeof createKitdemoActivities>;
