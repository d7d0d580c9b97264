import type { Connection } from '@temporalio/client';
import { syncAllSchedules } from '../activities/schedules';
import type { Queryable } from '../db/pool';
import { createTemporalClient } from '../temporal/client';
import { errorFields, log } from '../core/log';

/**
 * Brings every agent's and automation's Temporal Schedule in line with the
 * database at start, so a fresh or reset cluster picks up where the rows are.
 * A failure is reported, not fatal: the schedules are also synced whenever an
 * agent or automation changes.
 */
export async function bootstrapSchedules(connection: Connection, namespace: string, db: Queryable, taskQueue: string): Promise<void> {
  try {
    const client = createTemporalClient(connection, namespace);
    const synced = await syncAllSchedules(client, db, taskQueue);
    if (synced.agents + synced.automations > 0) log('info', 'schedules synced', { agents: synced.agents, automations: synced.automations });
  } catch (error) {
    log('error', 'schedules could not sync', errorFields(error));
  }
}
