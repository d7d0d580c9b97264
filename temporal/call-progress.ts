/**
 * How far a long tool call has come (rows imported, rows exported, people scanned), relayed to the
 * caller that waits on it: an MCP client that sent a progress token hears it as
 * notifications/progress while its tools/call is open.
 *
 * The tool's activity reports through `ToolContext.progress`; a caller waiting in this process (the
 * API and the worker share one under `npm start` and in most tests) hears each report at once. An
 * API running apart from the worker that runs the call hears it through Postgres
 * (call-progress-relay.ts), which hands it to this process's listeners here.
 */

export interface CallProgress {
  /** Units done so far (rows, people, messages). */
  done: number;
  /** Units in all, when known. */
  total?: number;
  /** A short line a person can read ("Imported 200 of 400 rows"); never personal data. */
  message?: string;
}

type Listener = (progress: CallProgress) => void;

const listeners = new Map<string, Set<Listener>>();

/** Hears the progress of one workflow's call until the returned function is called. */
export function watchCallProgress(workflowId: string, listener: Listener): () => void {
  const set = listeners.get(workflowId) ?? new Set<Listener>();
  set.add(listener);
  listeners.set(workflowId, set);
  return () => {
    set.delete(listener);
    if (set.size === 0 && listeners.get(workflowId) === set) listeners.delete(workflowId);
  };
}

/** Whether anyone in this process is listening to that call (a report then costs a map look-up). */
export function isCallWatched(workflowId: string): boolean {
  return (listeners.get(workflowId)?.size ?? 0) > 0;
}

/** Hands a report to whoever in this process listens to the call; a listener's error never reaches the tool. */
export function offerCallProgress(workflowId: string, progress: CallProgress): void {
  const set = listeners.get(workflowId);
  if (!set) return;
  for (const listener of set) {
    try {
      listener(progress);
    } catch {
      // The listener's own concern: the tool goes on.
    }
  }
}

/**
 * A reporter for a tool: at most one report per `everyMs` (and always the last, done === total),
 * each only when it has moved on, so a loop over 10,000 rows can call it on every row.
 */
export function progressReporter(send: (progress: CallProgress) => void, everyMs = 250): (done: number, total?: number, message?: string) => void {
  let lastAt = 0;
  let lastDone = -1;
  return (done, total, message) => {
    if (!Number.isFinite(done) || done <= lastDone) return;
    const now = Date.now();
    if (now - lastAt < everyMs && done !== total) return;
    lastAt = now;
    lastDone = done;
    send({ done, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) });
  };
}

/**
 * Passes on only reports further on than the last one passed (the protocols ask for progress that
 * only ever increases; a relayed report can arrive after a later one).
 */
export function forwardOnly(pass: (progress: CallProgress) => void): (progress: CallProgress) => void {
  let last = -1;
  return (progress) => {
    if (!(progress.done > last)) return;
    last = progress.done;
    pass(progress);
  };
}
