/**
 * How often an eager start was asked for and not granted. The server hands a workflow's first task
 * straight back only while the worker in this process has a free workflow-task slot; otherwise the
 * start falls back to task-queue matching, which costs the Temporal server more CPU and the call a
 * poll's wait. The bench reports it per cell, so a slow cell can be told apart from a fallback storm.
 */
let requested = 0;
let declined = 0;

/** Called after every start that asked to be eager, with what the server answered. */
export function noteEagerStart(granted: boolean): void {
  requested += 1;
  if (!granted) declined += 1;
}

/** Eager starts asked for, and how many of them went through matching instead (tests and the bench read it). */
export function eagerStartCounts(): { requested: number; declined: number } {
  return { requested, declined };
}
