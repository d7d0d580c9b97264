import fs from 'node:fs';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { TOOL_TASK_QUEUE } from '../core/workflow-ids';
import { createActivities, type Activities } from '../activities';
import type { Pool } from '../db/pool';
import { DEFAULT_BUNDLE_PATH, writeWorkflowEntry } from './bundle';
import { stewardDataConverter } from '../temporal/client';

export interface StewardWorkerOptions {
  address: string;
  namespace: string;
  pool: Pool;
  taskQueue?: string;
  bundlePath?: string;
  /** Tests swap single activities (e.g. to fail once after committing). */
  wrapActivities?: (activities: Activities) => Record<string, (...args: any[]) => Promise<unknown>>;
}

export async function createStewardWorker(options: StewardWorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const base = createActivities({ pool: options.pool });
  const activities = options.wrapActivities ? options.wrapActivities(base) : base;
  const bundlePath = options.bundlePath ?? DEFAULT_BUNDLE_PATH;
  const workflowSource: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> = fs.existsSync(bundlePath)
    ? { workflowBundle: { codePath: bundlePath } }
    // No prebuilt bundle: the worker bundles the entry generated from the registry itself (slower to start).
    : { workflowsPath: writeWorkflowEntry(bundlePath) };
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? TOOL_TASK_QUEUE,
    activities,
    ...workflowSource,
    maxConcurrentLocalActivityExecutions: 32,
    // An eager start is handed straight back only while a workflow task slot is free; past the default
    // 40, starts went through task-queue matching instead, which cost the dev server more CPU per call
    // and left some calls waiting over a second. Measured at concurrency 32 (bench/): 256 slots gave
    // about +15% calls/s, a fifth less server CPU per call and p95 about 600 ms instead of 1.3-1.5 s.
    // The SDK lowers it to maxCachedWorkflows if that is smaller.
    maxConcurrentWorkflowTaskExecutions: 256,
    // Every call into the workflow sandbox runs under a timeout watchdog (about 0.2 ms each, several per
    // activation), so one workflow thread became the ceiling on calls per second; a second thread lets a
    // two-core machine use both cores (bench: about +40% calls/s at concurrency 32, embedded Postgres).
    workflowThreadPoolSize: 2,
    dataConverter: stewardDataConverter(),
  });
  return { worker, connection };
}
