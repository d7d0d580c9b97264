import type { Queryable } from '../../db/pool';
import { contributionsTo } from '../registry';

/**
 * Where the schedule module tells modules built on it that service instances have ended or moved, so
 * what they hang on an instance follows at once rather than on their next periodic sweep. Schedule
 * imports none of them: they fill `scheduleInstancesEnded` and `scheduleInstancesMoved` from their
 * definitions (`contributes`). Spaces releases the room bookings linked to ended instances and moves
 * those linked to moved ones. Every schedule write that may end or move instances first calls
 * `beforeInstancesChange`, so listeners that lock take their locks before the schedule's rows.
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

/** One instance whose real start or end changed; the times are UTC instants. */
export interface InstanceMove {
  instanceId: string;
  from: { startsAt: Date; endsAt: Date };
  to: { startsAt: Date; endsAt: Date };
}

/**
 * Instances that still happen at another time: one moved on its own (schedule_move_instance, scope
 * "this"), a series' time or length changed (its future instances follow), or a moved instance
 * restored to the rule's time.
 */
export interface MovedInstances {
  moves: readonly InstanceMove[];
  now: Date;
}

export interface InstancesMovedListener {
  /**
   * Runs in the transaction that moves the instances, after their rows hold the new times, so the two
   * commit (or fail) together. A listener that cannot follow a move throws a StewardError, which
   * refuses the whole change.
   */
  instancesMoved(db: Queryable, orgId: string, moved: MovedInstances): Promise<void>;
}

/**
 * A module whose listeners above take a lock of their own (spaces takes its organisation's spaces lock
 * to change the bookings linked to an instance) takes it here instead, first. Taken only when told,
 * after the schedule's series and instance rows, it would close a cycle with that module's own
 * writers, which hold it and then wait for the schedule's rows, or with a schedule write reaching it
 * through another instance.
 */
export interface InstancesChangingListener {
  /** Runs at the start of every schedule write that may end or move instances, before it locks any series or instance row. */
  beforeInstancesChange(db: Queryable, orgId: string): Promise<void>;
}

declare module '../module' {
  interface ModuleContributions {
    scheduleInstancesChanging?: InstancesChangingListener;
    scheduleInstancesEnded?: InstancesEndedListener;
    scheduleInstancesMoved?: InstancesMovedListener;
  }
}

/** Lets every listener take its locks before the caller locks any series or instance row. */
export async function beforeInstancesChange(db: Queryable, orgId: string): Promise<void> {
  for (const listener of contributionsTo('scheduleInstancesChanging')) await listener.beforeInstancesChange(db, orgId);
}

/** Tells every listener; nothing to tell for an empty list. */
export async function instancesEnded(db: Queryable, orgId: string, ended: EndedInstances): Promise<void> {
  if (ended.instanceIds.length === 0) return;
  for (const listener of contributionsTo('scheduleInstancesEnded')) await listener.instancesEnded(db, orgId, ended);
}

/** Tells every listener of the instances whose start or end really changed; nothing to tell when none did. */
export async function instancesMoved(db: Queryable, orgId: string, moved: MovedInstances): Promise<void> {
  const moves = moved.moves.filter((move) => move.from.startsAt.getTime() !== move.to.startsAt.getTime() || move.from.endsAt.getTime() !== move.to.endsAt.getTime());
  if (moves.length === 0) return;
  for (const listener of contributionsTo('scheduleInstancesMoved')) await listener.instancesMoved(db, orgId, { moves, now: moved.now });
}
