import type { Pool } from '../db/pool';
import { MODULES } from '../modules';
import type { ActivityFunctions, ModuleDefinition } from '../modules/module';
import type { OutboxPort } from '../modules/outbox-source';
import { createApprovalActivities } from './approval-activities';
import { createMaintenanceActivities } from './maintenance';
import { createModuleJobActivities } from './module-jobs';
import { createOutbox, type OutboxDeps } from './outbox';
import { createOutboxActivities } from './outbox-activities';
import { createToolActivities } from './tool-activities';

export interface WorkerActivityDeps {
  pool: Pool;
  /** The outbox every module's activities send through; by default one over every registered module's sources, providers from the environment. */
  outbox?: OutboxPort;
  /** Modules whose activities the worker runs; by default the registry's. */
  modules?: readonly ModuleDefinition[];
}

/** The kernel's activities: tool calls, proposals, agents and automations, the outbox, module jobs, maintenance. */
function kernelActivities(pool: Pool, outbox: OutboxPort) {
  return {
    ...createToolActivities({ pool }), ...createApprovalActivities({ pool }), ...createOutboxActivities({ outbox }),
    ...createMaintenanceActivities({ pool }), ...createModuleJobActivities({ pool }),
  };
}

/**
 * Every activity a worker runs: the kernel's, then each module's own (`activities` on its
 * definition). Names share one namespace on the task queue, so a name declared twice is refused
 * at start instead of one quietly replacing the other.
 */
export function createActivities(deps: WorkerActivityDeps): ActivityFunctions {
  const outbox = deps.outbox ?? createOutbox({ pool: deps.pool } satisfies OutboxDeps);
  const all: ActivityFunctions = { ...kernelActivities(deps.pool, outbox) };
  const owners = new Map(Object.keys(all).map((name) => [name, 'the kernel']));
  for (const module of deps.modules ?? MODULES) {
    for (const factory of module.activities ?? []) {
      for (const [name, activity] of Object.entries(factory({ pool: deps.pool, outbox }))) {
        const owner = owners.get(name);
        if (owner) throw new Error(`Activity ${name} of ${module.name} is declared by ${owner} already`);
        owners.set(name, module.name);
        all[name] = activity;
      }
    }
  }
  return all;
}

export type Activities = ActivityFunctions;
