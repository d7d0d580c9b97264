import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { ContactsBulkOperationActivities } from '../activities/contacts-bulk-operation';

const { runContactsBulkBatch, failContactsBulkOperation } = proxyActivities<ContactsBulkOperationActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

export const contactsBulkOperationWorkflowId = (orgId: string, operationId: string) => `people-bulk-${orgId}-${operationId}`;

/**
 * A previewed bulk operation on contacts, run batch by batch (dashboard/bulk.ts). Each batch commits
 * with the job's progress (done / total), which people_get_contacts_bulk_operation reads; the Temporal
 * UI shows the run and its batches. A batch that keeps failing marks the job failed with its reason.
 */
export async function contactsBulkOperationWorkflow(input: { orgId: string; operationId: string }): Promise<{ done: number; total: number }> {
  for (;;) {
    let step: { finished: boolean; done: number; total: number };
    try {
      step = await runContactsBulkBatch(input.orgId, input.operationId);
    } catch (error) {
      const message = error instanceof ApplicationFailure ? error.message : (error as Error).message;
      await failContactsBulkOperation(input.orgId, input.operationId, message ?? 'a batch failed');
      throw error;
    }
    if (step.finished) return { done: step.done, total: step.total };
  }
}
