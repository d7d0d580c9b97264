/** Latency summaries in milliseconds, rounded to 0.01 ms. */
export interface LatencySummary {
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

const round = (value: number) => Math.round(value * 100) / 100;

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** The middle of unsorted values (the lower middle of an even count), as percentile gives it. */
export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

export function summarise(durations: readonly number[]): LatencySummary {
  const sorted = [...durations].sort((a, b) => a - b);
  const total = sorted.reduce((sum, d) => sum + d, 0);
  return {
    samples: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    mean: round(total / Math.max(1, sorted.length)),
    min: round(sorted[0] ?? Number.NaN),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/** Runs `call` `warmup` times unmeasured, then `samples` times one after another, timing each. */
export async function measureSequential(call: () => Promise<void>, samples: number, warmup: number): Promise<LatencySummary> {
  for (let i = 0; i < warmup; i += 1) await call();
  const durations: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await call();
    durations.push(performance.now() - started);
  }
  return summarise(durations);
}

export interface ThroughputResult {
  concurrency: number;
  calls: number;
  /** Calls that threw; they count towards `calls` but not towards the latency summary. */
  errors: number;
  /** The first few distinct error messages, so a failing cell says why. */
  errorSamples: string[];
  seconds: number;
  /** Successful calls per second of wall-clock time. */
  callsPerSecond: number;
  latency: LatencySummary;
}

/**
 * `concurrency` loops, each with its own caller, share `calls` calls; the clock
 * runs from the first start to the last finish. A call that throws is counted
 * as an error and the loop goes on, so one bad answer does not hide the rest.
 */
export async function measureThroughput(
  callers: ReadonlyArray<() => Promise<void>>,
  calls: number,
): Promise<ThroughputResult> {
  let next = 0;
  let errors = 0;
  const errorSamples = new Set<string>();
  const durations: number[] = [];
  const started = performance.now();
  await Promise.all(callers.map(async (call) => {
    while (next < calls) {
      next += 1;
      const t0 = performance.now();
      try {
        await call();
        durations.push(performance.now() - t0);
      } catch (error) {
        errors += 1;
        if (errorSamples.size < 3) errorSamples.add((error instanceof Error ? error.message : String(error)).slice(0, 300));
      }
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  return {
    concurrency: callers.length,
    calls: durations.length + errors,
    errors,
    errorSamples: [...errorSamples],
    seconds: round(seconds),
    callsPerSecond: round(durations.length / seconds),
    latency: summarise(durations),
  };
}

/**
 * One caller per path, called in turn (a, b, a, b, …) `samples` times each, one call at a time: every
 * path sees the same moments of the machine's load, so a drift in load or a warming cache cannot
 * favour whichever path happens to be measured first. Each path's result is as measureThroughput's.
 * A caller may answer its own duration (one timed in another process), which is used instead.
 */
export async function measureInterleaved<K extends string>(callers: Record<K, () => Promise<void | number>>, samples: number): Promise<Record<K, ThroughputResult>> {
  const paths = Object.keys(callers) as K[];
  const runs = new Map(paths.map((path) => [path, { durations: [] as number[], errors: 0, errorSamples: new Set<string>() }]));
  for (let i = 0; i < samples; i += 1) {
    for (const path of paths) {
      const run = runs.get(path)!;
      const t0 = performance.now();
      try {
        // A caller in another process answers the duration it timed around the call alone.
        const timedThere = await callers[path]();
        run.durations.push(typeof timedThere === 'number' ? timedThere : performance.now() - t0);
      } catch (error) {
        run.errors += 1;
        if (run.errorSamples.size < 3) run.errorSamples.add((error instanceof Error ? error.message : String(error)).slice(0, 300));
      }
    }
  }
  const results = {} as Record<K, ThroughputResult>;
  for (const path of paths) {
    const { durations, errors, errorSamples } = runs.get(path)!;
    const seconds = durations.reduce((sum, d) => sum + d, 0) / 1000;
    results[path] = {
      concurrency: 1,
      calls: durations.length + errors,
      errors,
      errorSamples: [...errorSamples],
      seconds: round(seconds),
      // One call at a time: the path's own calls over the time they took.
      callsPerSecond: round(durations.length / Math.max(seconds, 1e-9)),
      latency: summarise(durations),
    };
  }
  return results;
}

/** One round of a loaded cell: its calls/s and, where measured, CPU per call. */
export interface RoundSummary {
  callsPerSecond: number;
  cpuMs?: number;
}

/** `paths` starting at the round's own place, so over the rounds each path goes first, last and between. */
export function rotated<T>(paths: readonly T[], round: number): T[] {
  const start = round % paths.length;
  return [...paths.slice(start), ...paths.slice(0, start)];
}

/**
 * The round with the median calls/s (the lower middle of an even count), with every round kept
 * beside it; its errors are every round's, so a cell with an error in any round shows it.
 */
export function medianRound<T extends ThroughputResult & { cpu?: { totalMs: number } }>(rounds: T[]): T & { rounds: RoundSummary[] } {
  const middle = [...rounds].sort((a, b) => a.callsPerSecond - b.callsPerSecond)[Math.floor((rounds.length - 1) / 2)];
  return {
    ...middle,
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    errorSamples: [...new Set(rounds.flatMap((round) => round.errorSamples))].slice(0, 5),
    rounds: rounds.map((round) => ({ callsPerSecond: round.callsPerSecond, ...(round.cpu ? { cpuMs: round.cpu.totalMs } : {}) })),
  };
}
