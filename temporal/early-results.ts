/**
 * Early results: when the API and the worker share a process (`npm start`), a tool call's caller
 * can have its answer the moment the call's transaction has committed, instead of waiting for the
 * workflow to report its completion to the Temporal server and for the server to pass it on
 * (about half of a read's time on the wire, measured in bench/).
 *
 * It is only offered where nothing can change the answer afterwards: a plain toolCallWorkflow
 * whose runTool step is its last step (no metering after it, no follow-up). A write's result is
 * stored under the workflow id in the same transaction, so a retry of the workflow returns that
 * same result; the workflow still runs to completion and stays the durable record of the call.
 * Nothing is kept unless a caller in this process is waiting for that workflow id.
 */

import type { WorkflowHandle } from '@temporalio/client';

/** What a waiting caller learns: the committed result, or that an attempt failed and the workflow's own result must decide. */
export type EarlyOutcome = { kind: 'result'; value: unknown } | { kind: 'failed' };

type Waiter = (outcome: EarlyOutcome) => void;

const waiters = new Map<string, Set<Waiter>>();
let delivered = 0;

export interface EarlyResultWait {
  /** Settles when the call's activity finishes an attempt in this process; never rejects. */
  readonly outcome: Promise<EarlyOutcome>;
  /** Stops waiting (always call it, in a finally). */
  cancel(): void;
}

/** Registers interest in a workflow's result before the workflow starts (an eager start may finish its activity at once). */
export function waitForEarlyResult(workflowId: string): EarlyResultWait {
  let waiter: Waiter = () => undefined;
  const outcome = new Promise<EarlyOutcome>((resolve) => {
    waiter = resolve;
  });
  const set = waiters.get(workflowId) ?? new Set<Waiter>();
  set.add(waiter);
  waiters.set(workflowId, set);
  return {
    outcome,
    cancel: () => {
      set.delete(waiter);
      if (set.size === 0 && waiters.get(workflowId) === set) waiters.delete(workflowId);
    },
  };
}

/**
 * Called by the tool activity once its transaction has committed. The result goes through JSON
 * as the workflow's result would (dates become strings, undefined fields vanish), so an early
 * answer is exactly what the workflow returns.
 */
export function offerEarlyResult(workflowId: string, result: unknown): void {
  const set = waiters.get(workflowId);
  if (!set || set.size === 0) return;
  const text = JSON.stringify(result);
  delivered += 1;
  for (const waiter of set) waiter({ kind: 'result', value: text === undefined ? undefined : JSON.parse(text) });
}

/** Called when an attempt of the activity fails: waiting callers turn to the workflow's own result (a retry may still succeed). */
export function reportEarlyFailure(workflowId: string): void {
  for (const waiter of waiters.get(workflowId) ?? []) waiter({ kind: 'failed' });
}

/** How many results this process has handed over early (tests and the bench read it). */
export function earlyResultsDelivered(): number {
  return delivered;
}

/** How many workflow ids have a waiter (for tests: nothing may be left behind). */
export function earlyResultWaiterCount(): number {
  return waiters.size;
}

/**
 * How long a call that may answer early waits for its activity before also asking Temporal for the
 * workflow's result: past it the tool is slow, or a worker in another process took the task.
 */
const EARLY_RESULT_GRACE_MS = 500;

let graceExpiries = 0;

/** How many calls waited out the grace period before asking Temporal (tests and the bench read it). */
export function earlyResultGraceExpiries(): number {
  return graceExpiries;
}

/**
 * The call's answer: the committed result handed over in this process when it comes (no request to
 * the Temporal server needed), else the workflow's own result, which also carries every failure.
 */
export async function resultOf(handle: Pick<WorkflowHandle, 'result'>, early: EarlyResultWait | undefined, graceMs = EARLY_RESULT_GRACE_MS): Promise<unknown> {
  if (!early) return handle.result();
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'grace_over'>((resolve) => {
    timer = setTimeout(() => resolve('grace_over'), graceMs);
  });
  try {
    const first = await Promise.race([early.outcome, graceOver]);
    if (first !== 'grace_over') return first.kind === 'result' ? first.value : await handle.result();
    graceExpiries += 1;
    const workflowResult = handle.result();
    return await Promise.race([early.outcome.then((outcome) => (outcome.kind === 'result' ? outcome.value : workflowResult)), workflowResult]);
  } finally {
    clearTimeout(timer);
  }
}
