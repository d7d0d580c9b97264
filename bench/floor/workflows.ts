/**
 * The floor: the least a durable call can be on this stack. One workflow, one local activity,
 * one primary-key read; no scope check, no validation, no codec, no search attributes. Steward's
 * read tool does the same database work, so the ratio of the two is Steward's own overhead.
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

const { floorReadContact } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });

export async function floorReadWorkflow(orgId: string, contactId: string): Promise<{ id: string; firstName: string } | null> {
  return floorReadContact(orgId, contactId);
}
