import { withTransaction } from '../../../db/pool';
import type { ActivityDeps } from '../../module';
import { refreshSafeguardingStatuses } from '../pastoral/care/safeguarding';
import { guarded } from '../../activity-kit';

/** The daily safeguarding status run's one step (workflows/safeguarding-status.ts). */
export function createSafeguardingStatusActivities(deps: Pick<ActivityDeps, 'pool'>) {
  const { pool } = deps;
  return {
    /** Recomputes every check's status from its dates as of `asOf`; how many changed. One transaction (the changes and their audit events), so a retry is harmless. */
    async refreshSafeguardingCheckStatuses(asOf: string, orgId?: string): Promise<number> {
      return guarded(() => withTransaction(pool, (db) => refreshSafeguardingStatuses(db, asOf, orgId)));
    },
  };
}

export type SafeguardingStatusActivities = ReturnType<typeof createSafeguardingStatusActivities>;
