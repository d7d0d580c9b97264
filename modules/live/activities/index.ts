import { withTenantTransaction } from '../../../db/pool';
import { guarded } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import { createStreamsAhead, type AheadRun } from '../ahead';
import { autoComplete, streamDeadline } from '../streams';

/** Live's activities: a stream's timer reads its deadline and completes it when due; the job makes streams ahead of services. */
export function createLiveActivities(deps: ActivityDeps) {
  return {
    async liveStreamDeadline(orgId: string, streamId: string): Promise<string | null> {
      return guarded(() => withTenantTransaction(deps.pool, orgId, (db) => streamDeadline(db, orgId, streamId), { readOnly: true }));
    },
    async liveAutoComplete(orgId: string, streamId: string): Promise<{ outcome: 'completed' | 'finished' | 'not_due'; dueAt: string }> {
      // Its own transactions: the provider is completed before the row is locked.
      return guarded(() => autoComplete(deps.pool, orgId, streamId));
    },
    /** Streams for the services ahead, for organisations with the setting on; each run is idempotent (one stream per instance, ever). */
    async liveCreateStreamsAhead(input: { now: string; orgId?: string }): Promise<AheadRun> {
      return guarded(() => createStreamsAhead(deps.pool, { now: new Date(input.now), orgId: input.orgId }));
    },
  };
}

export type LiveActivities = ReturnType<typeof createLiveActivities>;
