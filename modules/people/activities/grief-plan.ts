import { withTenantTransaction } from '../../../db/pool';
import type { ActivityDeps } from '../../module';
import { surfaceDueTouchpoints, type SurfacedStep } from '../pastoral/life-events/grief-surfacing';
import { guarded } from '../../activity-kit';

/**
 * The grief-care plan's one step (workflows/grief-plan.ts): in one transaction under the
 * organisation's row-level security, mark the touchpoints due by `asOf` and say when the next one is.
 * Marking is conditional on the touchpoint still being pending, so a retry surfaces nothing twice.
 */
export function createPastoralGriefActivities(deps: Pick<ActivityDeps, 'pool'>) {
  const { pool } = deps;
  return {
    async griefSurfaceDueTouchpoints(input: { orgId: string; lifeEventId: string; asOf: string }): Promise<SurfacedStep> {
      return guarded(() => withTenantTransaction(pool, input.orgId, (db) => surfaceDueTouchpoints(db, input.orgId, input.lifeEventId, input.asOf)));
    },
  };
}

export type PastoralGriefActivities = ReturnType<typeof createPastoralGriefActivities>;
