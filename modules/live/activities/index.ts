import { withTenantTransaction } from '../../../db/pool';
import { guarded } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import { autoComplete, streamDeadline } from '../streams';

/** Live's activities: a stream's timer reads its deadline and completes it when due. */
export function createLiveActivities(deps: ActivityDeps) {
  return {
    async liveStreamDeadline(orgId: string, streamId: string): Promise<string | null> {
      return guarded(() => withTenantTransaction(deps.pool, orgId, (db) => streamDeadline(db, orgId, streamId), { readOnly: true }));
    },
    async liveAutoComplete(orgId: string, streamId: string): Promise<{ outcome: 'completed' | 'finished' | 'not_due'; dueAt: string }> {
      return guarded(() => withTenantTransaction(deps.pool, orgId, (db) => autoComplete(db, orgId, streamId)));
    },
  };
}

export type LiveActivities = ReturnType<typeof createLiveActivities>;
