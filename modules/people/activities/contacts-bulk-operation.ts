import { withTenantTransaction } from '../../../db/pool';
import type { ActivityDeps } from '../../module';
import { guarded } from '../../activity-kit';
import { failBulkOperation, runBulkBatch } from '../dashboard/bulk';

/** The steps of a bulk operation on contacts (workflows/contacts-bulk-operation.ts). */
export function createContactsBulkOperationActivities(deps: Pick<ActivityDeps, 'pool'>) {
  const { pool } = deps;
  return {
    /** One batch, in one transaction under the organisation's row-level security, with the progress it made: a retry after a commit finds the batch done. */
    async runContactsBulkBatch(orgId: string, operationId: string): Promise<{ finished: boolean; done: number; total: number }> {
      return guarded(() => withTenantTransaction(pool, orgId, (db) => runBulkBatch(db, orgId, operationId)));
    },
    async failContactsBulkOperation(orgId: string, operationId: string, error: string): Promise<void> {
      return guarded(() => withTenantTransaction(pool, orgId, (db) => failBulkOperation(db, orgId, operationId, error)));
    },
  };
}

export type ContactsBulkOperationActivities = ReturnType<typeof createContactsBulkOperationActivities>;
