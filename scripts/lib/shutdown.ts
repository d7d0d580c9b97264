/**
 * Ordered shutdown where nothing can hang: every step has its own deadline, the whole
 * sequence has one too, and a second signal exits at once. Steps run in the reverse of
 * the order they were added (the HTTP server first, the database last). Steps added with
 * the same `together` label stop at once, and a step may keep time for itself out of the
 * whole sequence's, so that a slow drain before it cannot use up the time it needs. Work begun
 * with `begin` starts with the sequence and runs beside its steps (nothing waits for it).
 */
export interface ShutdownStep {
  name: string;
  deadlineMs: number;
  /** Given the time it has (its own deadline, or less when the sequence is running out). */
  run: (deadlineMs: number) => Promise<void>;
  options: StepOptions;
}

export interface StepOptions {
  /**
   * Steps sharing this label stop together, concurrently, where the last of them added would
   * stop: for stops that do not depend on each other (two servers the process started).
   */
  together?: string;
  /** Of the whole sequence's time, this much is kept for this step: the steps before it share what is left. */
  keepMs?: number;
}

export interface ShutdownOptions {
  /** The whole sequence; past it the process exits with whatever is left running killed by `onOverrun`. */
  totalMs: number;
  log?: (line: string) => void;
  /** Last resort when the total deadline passes or a second signal arrives (kill children outright). */
  onOverrun?: () => void;
  exit?: (code: number) => void;
}

export class Shutdown {
  private readonly steps: ShutdownStep[] = [];
  private readonly begun: Array<{ name: string; work: () => Promise<void> }> = [];
  private started: Promise<void> | undefined;
  private readonly log: (line: string) => void;
  private readonly exit: (code: number) => void;

  constructor(private readonly options: ShutdownOptions) {
    this.log = options.log ?? ((line) => console.log(line));
    this.exit = options.exit ?? ((code) => process.exit(code));
  }

  add(name: string, deadlineMs: number, run: (deadlineMs: number) => Promise<void>, options: StepOptions = {}): void {
    const kept = options.keepMs ?? 0;
    // A time kept that is not a number of milliseconds the whole can spare would silently give every step before it none.
    if (!Number.isFinite(kept) || kept < 0 || kept >= this.options.totalMs) throw new RangeError(`${name}: keepMs must be at least 0 and less than the whole ${this.options.totalMs} ms`);
    this.steps.push({ name, deadlineMs, run, options });
  }

  /**
   * Work that starts as soon as the sequence does and runs beside its steps, which do not wait for
   * it: preparation that makes a later step quicker (writing the database's dirty pages out while
   * the HTTP server and the worker drain). A failure is reported, never awaited, never fatal.
   */
  begin(name: string, work: () => Promise<void>): void {
    this.begun.push({ name, work });
  }

  private firstSignalAt = 0;

  /**
   * Installs SIGINT/SIGTERM handlers: the first starts the sequence, a second exits at once.
   * A signal sent to the whole process group also reaches npm and tsx, which relay it to us
   * a moment later; copies arriving within `relayWindowMs` of the first are that same request.
   */
  handleSignals(relayWindowMs = 1000): void {
    const handler = (signal: NodeJS.Signals) => this.signal(signal, relayWindowMs);
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  }

  /** What a received signal does (see handleSignals). */
  signal(signal: NodeJS.Signals, relayWindowMs = 1000, now = Date.now()): void {
    if (this.started && now - this.firstSignalAt < relayWindowMs) return;
    if (this.started) {
      this.log(`${signal} again: exiting now`);
      this.options.onOverrun?.();
      this.exit(130);
      return;
    }
    this.firstSignalAt = now;
    this.log(`\n${signal}: shutting down (send it again to exit at once)`);
    void this.run().then(() => this.exit(0));
  }

  /** Runs every step once, newest first; a step that fails or overruns is reported and skipped past. */
  run(): Promise<void> {
    this.started ??= this.runSteps();
    return this.started;
  }

  private async runSteps(): Promise<void> {
    const startedAt = Date.now();
    const overrun = setTimeout(() => {
      this.log(`shutdown: still running after ${this.options.totalMs} ms; stopping what is left`);
      this.options.onOverrun?.();
      this.exit(1);
    }, this.options.totalMs);
    overrun.unref();
    for (const { name, work } of this.begun) {
      // Started now, before the first step (a throw becomes a failure like any other).
      void withDeadline(new Promise<void>((resolve) => resolve(work())), this.options.totalMs).then((outcome) => {
        if (outcome !== 'done') this.log(`shutdown: ${name} ${outcome}`);
      });
    }
    const stages = stagesOf(this.steps);
    for (const [index, stage] of stages.entries()) {
      const kept = stages.slice(index + 1).reduce((sum, later) => sum + keptBy(later), 0);
      const left = Math.max(0, this.options.totalMs - (Date.now() - startedAt) - kept);
      await Promise.all(stage.map(async (step) => {
        const deadlineMs = Math.min(step.deadlineMs, left);
        const outcome = await withDeadline(step.run(deadlineMs), deadlineMs);
        if (outcome !== 'done') this.log(`shutdown: ${step.name} ${outcome}`);
      }));
    }
    clearTimeout(overrun);
  }
}

/** The steps in the order they run (newest first), those sharing a `together` label in one stage where the newest of them stands. */
function stagesOf(steps: readonly ShutdownStep[]): ShutdownStep[][] {
  const stages: ShutdownStep[][] = [];
  const byLabel = new Map<string, ShutdownStep[]>();
  for (const step of [...steps].reverse()) {
    const label = step.options.together;
    const joined = label === undefined ? undefined : byLabel.get(label);
    if (joined) {
      joined.push(step);
      continue;
    }
    const stage = [step];
    stages.push(stage);
    if (label !== undefined) byLabel.set(label, stage);
  }
  return stages;
}

/** What a stage keeps for itself: its members run at once, so the most any of them keeps. */
const keptBy = (stage: readonly ShutdownStep[]) => Math.max(0, ...stage.map((step) => step.options.keepMs ?? 0));

/** 'done', 'timed out after N ms' or 'failed: …'; never throws and never waits past the deadline. */
export async function withDeadline(work: Promise<void>, deadlineMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`timed out after ${deadlineMs} ms`), deadlineMs);
    timer.unref(); // a deadline alone must not keep the process alive
  });
  try {
    return await Promise.race([work.then(() => 'done', (error: unknown) => `failed: ${error instanceof Error ? error.message : String(error)}`), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
