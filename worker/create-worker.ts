import fs from 'node:fs';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { TOOL_TASK_QUEUE } from '../core/workflow-ids';
import { createActivities, type Activities } from '../activities';
import type { Pool } from '../db/pool';
import { DEFAULT_BUNDLE_PATH, preloadedModules, writeWorkflowEntry } from './bundle';
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

/**
 * How the worker runs workflows and activities; the bench's floor worker uses the same, so the
 * two differ only in what their workflows do.
 */
export function workerTuning(): Pick<WorkerOptions, 'maxConcurrentLocalActivityExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'workflowThreadPoolSize' | 'debugMode'> {
  const threads = workflowThreads();
  return {
    maxConcurrentLocalActivityExecutions: 32,
    // An eager start is handed straight back only while a workflow task slot is free; past the default
    // 40, starts went through task-queue matching instead, which cost the dev server more CPU per call
    // and left some calls waiting over a second. Measured at concurrency 32 (bench/): 256 slots gave
    // about +15% calls/s, a fifth less server CPU per call and p95 about 600 ms instead of 1.3-1.5 s.
    // The SDK lowers it to maxCachedWorkflows if that is smaller.
    maxConcurrentWorkflowTaskExecutions: 256,
    // 0: the sandbox runs on the main thread (the SDK's debug mode), which saves handing every
    // activation to a thread and back; see docs/configuration.md for when that wins.
    ...(threads === 0 ? { debugMode: true } : { workflowThreadPoolSize: threads }),
  };
}

/**
 * STEWARD_WORKFLOW_THREADS: the workflow sandbox's threads, 0 for the main thread (docs/configuration.md).
 * One by default. Two paid off only while the SDK's watchdog made every sandbox entry start a thread;
 * with the patch (patches/) a second thread added hand-off work and no capacity on two cores: measured
 * at concurrency 32 in two rounds (bench/README.md), one thread gave the read 70-82 calls/s against
 * 57-63 with two and 61-72 on the main thread, and less CPU per call.
 */
export function workflowThreads(): number {
  const raw = process.env.STEWARD_WORKFLOW_THREADS;
  if (raw === undefined || raw === '') return 1;
  const threads = Number(raw);
  if (!Number.isInteger(threads) || threads < 0 || threads > 16) {
    throw new Error(`STEWARD_WORKFLOW_THREADS must be a whole number from 0 (the main thread) to 16, not ${JSON.stringify(raw)}`);
  }
  return threads;
}

function entrySource(entry: string): Pick<WorkerOptions, 'workflowsPath' | 'bundlerOptions'> {
  return { workflowsPath: entry, bundlerOptions: { preloadModules: preloadedModules(entry) } };
}

export async function createStewardWorker(options: StewardWorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const base = createActivities({ pool: options.pool });
  const activities = options.wrapActivities ? options.wrapActivities(base) : base;
  const bundlePath = options.bundlePath ?? DEFAULT_BUNDLE_PATH;
  const workflowSource: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'> = fs.existsSync(bundlePath)
    ? { workflowBundle: { codePath: bundlePath } }
    // No prebuilt bundle: the worker bundles the entry generated from the registry itself (slower to start), preloaded as a prebuilt one is.
    : entrySource(writeWorkflowEntry(bundlePath));
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? TOOL_TASK_QUEUE,
    activities,
    ...workflowSource,
    ...workerTuning(),
    dataConverter: stewardDataConverter(),
  });
  return { worker, connection };
}
