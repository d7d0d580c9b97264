import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { TOOL_TASK_QUEUE } from '../core/workflow-ids';
import { createActivities } from '../activities';
import type { Pool } from '../db/pool';
import { DEFAULT_BUNDLE_PATH } from './bundle';
import { stewardDataConverter } from '../temporal/client';

export interface StewardWorkerOptions {
  address: string;
  namespace: string;
  pool: Pool;
  taskQueue?: string;
  bundlePath?: string;
  /** Tests swap single activities (e.g. to fail once after committing). */
  wrapActivities?: (activities: ReturnType<typeof createActivities>) => Record<string, (...args: any[]) => Promise<unknown>>;
}

export async function createStewardWorker(options: StewardWorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const base = createActivities({ pool: options.pool });
  const activities = options.wrapActivities ? options.wrapActivities(base) : base;
  const bundlePath = options.bundlePath ?? DEFAULT_BUNDLE_PATH;
  const workflowSource: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> = fs.existsSync(bundlePath)
    ? { workflowBundle: { codePath: bundlePath } }
    : { workflowsPath: require.resolve(path.join(__dirname, '..', 'workflows')) };
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? TOOL_TASK_QUEUE,
    activities,
    ...workflowSource,
    maxConcurrentLocalActivityExecutions: 32,
    dataConverter: stewardDataConverter(),
  });
  return { worker, connection };
}
