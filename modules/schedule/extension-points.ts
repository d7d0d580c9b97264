import type { Queryable } from '../../db/pool';
import { contributionsTo } from '../registry';

/**
 * Where the schedule module tells modules built on it that service instances have ended, so what
 * they hang on an instance follows at once rather than on their next periodic sweep. Schedule
 * imports none of them: they fill `scheduleInstancesEnded` from their definitions (`contributes`).
 * Spaces releases the room bookings linked to the instances.
 */

/** Instances that will not happen: cancelled (the row stays, status cancelled) or removed (the row is gone). */
export interface EndedInstances {
  instanceIds: readonly string[];
  cause: 'cancelled' | 'removed';
  now: Date;
}

export interface InstancesEndedListener {
  /** Runs in the transaction that ends the instances, so the two commit (or fail) together. */
  instancesEnded(db: Queryable, orgId: string, ended: EndedInstances): Promise<void>;
}

declare module '../module' {
  interface ModuleContributions {
    scheduleInstancesEnded?: InstancesEndedListener;
  }
}

/** Tells every listener; nothing to tell for an empty list. */
export async function instancesEnded(db: Queryable, orgId: string, ended: EndedInstances): Promise<void> {
  if (ended.instanceIds.length === 0) return;
  for (const listener of contributionsTo('scheduleInstancesEnded')) await listener.instancesEnded(db, orgId, ended);
}
