import { Context } from '@temporalio/activity';
import type { Queryable } from '../../db/pool';
import { insertAuditEvent, outsideChangeEventOf, type OutsideChange } from './record';

export type { OutsideChange } from './record';

/**
 * Records a change that no tool call made (a provider's webhook, one of Steward's own jobs) in the
 * trail, in the caller's transaction: it commits with the change or not at all. Tool calls need
 * nothing of this; the kernel records them (activities/tool-activities.ts).
 */
export async function recordOutsideChange(db: Queryable, change: OutsideChange): Promise<void> {
  await insertAuditEvent(db, outsideChangeEventOf(change));
}

/**
 * The same, for a change one of Steward's own timers or jobs made inside an activity: the system is the
 * actor, and the activity's workflow id is the source (so the event leads to the run in Temporal's UI).
 */
export async function recordJobChange(db: Queryable, change: Omit<OutsideChange, 'actorKind' | 'source'>): Promise<void> {
  await recordOutsideChange(db, { ...change, actorKind: 'system', source: Context.current().info.workflowExecution?.workflowId ?? 'activity' });
}
