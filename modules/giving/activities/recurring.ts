import { Context } from '@temporalio/activity';
import { withTenantTransaction } from '../../../db/pool';
import type { ActivityDeps } from '../../module';
import { organisationsWithDueGifts, recordDueOccurrences, type RecordedRun } from '../recurring/record';
import { guarded } from '../../activity-kit';

/** How many organisations one listing returns; the run pages on by id. */
export const DUE_ORGANISATIONS_PAGE = 500;

/**
 * The scheduled recurring-gift run's steps (workflows/recurring.ts). Recording is one
 * transaction per call under the organisation's row-level security; a retry after a lost
 * acknowledgement finds the occurrences recorded and records nothing (modules/giving/recurring/record.ts).
 */
export function createGivingRecurringActivities(deps: Pick<ActivityDeps, 'pool'>) {
  const { pool } = deps;
  return {
    async givingOrganisationsWithDueGifts(asOf: string, after: string | null): Promise<string[]> {
      return guarded(() => organisationsWithDueGifts(pool, asOf, after, DUE_ORGANISATIONS_PAGE));
    },

    async givingRecordDueRecurringGifts(input: { orgId: string; asOf: string }): Promise<RecordedRun> {
      return guarded(() => withTenantTransaction(pool, input.orgId, (db) => {
        const heartbeat = () => Context.current().heartbeat();
        heartbeat();
        return recordDueOccurrences(db, input.orgId, input.asOf, heartbeat);
      }));
    },
  };
}

export type GivingRecurringActivities = ReturnType<typeof createGivingRecurringActivities>;
