import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { legacyDataNotice } from '../../db/embedded';
import { Shutdown, withDeadline } from '../../scripts/lib/shutdown';

function recorder() {
  const log: string[] = [];
  const exits: number[] = [];
  let overruns = 0;
  const shutdown = new Shutdown({ totalMs: 2000, log: (line) => log.push(line), exit: (code) => exits.push(code), onOverrun: () => (overruns += 1) });
  return { shutdown, log, exits, overruns: () => overruns };
}

const never = () => new Promise<void>(() => undefined);

describe('ordered shutdown', () => {
  it('runs steps newest first and moves past a step that hangs once its deadline passes', async () => {
    const { shutdown, log } = recorder();
    const order: string[] = [];
    shutdown.add('database', 200, async () => void order.push('database'));
    shutdown.add('worker', 50, () => {
      order.push('worker');
      return never();
    });
    shutdown.add('http', 200, async () => void order.push('http'));
    await shutdown.run();
    expect(order).toEqual(['http', 'worker', 'database']);
    expect(log).toContain('shutdown: worker timed out after 50 ms');
  });

  it('reports a failing step and still runs the rest', async () => {
    const { shutdown, log } = recorder();
    let databaseStopped = false;
    shutdown.add('database', 100, async () => void (databaseStopped = true));
    shutdown.add('worker', 100, async () => {
      throw new Error('Not running');
    });
    await shutdown.run();
    expect(databaseStopped).toBe(true);
    expect(log).toContain('shutdown: worker failed: Not running');
  });

  it('treats copies relayed by npm and tsx as the same request, and a later second signal as "exit now"', async () => {
    const { shutdown, exits, overruns } = recorder();
    shutdown.add('worker', 5000, never);
    shutdown.signal('SIGTERM', 1000, 10_000);
    shutdown.signal('SIGTERM', 1000, 10_200); // the relayed copy
    expect(exits).toEqual([]);
    expect(overruns()).toBe(0);
    shutdown.signal('SIGINT', 1000, 12_000); // a person pressing Ctrl-C again
    expect(exits).toEqual([130]);
    expect(overruns()).toBe(1);
  });

  it('exits with 0 once every step is done', async () => {
    const { shutdown, exits } = recorder();
    shutdown.add('http', 100, async () => undefined);
    shutdown.signal('SIGTERM');
    await shutdown.run();
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([0]);
  });

  it('stops steps sharing a together label at once, where the newest of them stands', async () => {
    const { shutdown, log } = recorder();
    const order: string[] = [];
    let databaseStopping!: () => void;
    const databaseStarted = new Promise<void>((resolve) => (databaseStopping = resolve));
    shutdown.add('database', 500, async () => {
      order.push('database');
      databaseStopping();
    }, { together: 'servers' });
    shutdown.add('pool', 100, async () => void order.push('pool'));
    // Run one after the other, the dev server's stop (the newer, so the first) would wait on the database's until its deadline.
    shutdown.add('dev server', 500, async () => {
      order.push('dev server');
      await databaseStarted;
    }, { together: 'servers' });
    shutdown.add('http', 100, async () => void order.push('http'));
    await shutdown.run();
    expect(order).toEqual(['http', 'dev server', 'database', 'pool']);
    expect(log).toEqual([]);
  });

  it('keeps a step\'s time out of the whole: a step before it that hangs gets only what is left', async () => {
    const { shutdown, log } = recorder(); // 2,000 ms in all
    let databaseGiven = 0;
    shutdown.add('database', 1800, async (deadlineMs) => void (databaseGiven = deadlineMs), { keepMs: 1500 });
    shutdown.add('worker', 5000, never);
    await shutdown.run();
    const workerLine = log.find((line) => line.startsWith('shutdown: worker timed out after'));
    expect(Number(workerLine?.match(/after (\d+) ms/)?.[1])).toBeLessThanOrEqual(500);
    // The worker's 5 s would have left the database nothing; it gets the time kept for it, less what
    // the sequence has used (bounds loose enough for a timer firing a little early or late on a busy machine).
    expect(databaseGiven).toBeGreaterThan(1000);
    expect(databaseGiven).toBeLessThanOrEqual(1510);
    expect(log.some((line) => line.includes('database'))).toBe(false);
  });

  it('refuses a time kept that the whole cannot spare', () => {
    const { shutdown } = recorder(); // 2,000 ms in all
    for (const keepMs of [Number.NaN, Number.POSITIVE_INFINITY, -1, 2000]) {
      expect(() => shutdown.add('database', 100, async () => undefined, { keepMs })).toThrow(RangeError);
    }
    expect(() => shutdown.add('database', 100, async () => undefined, { keepMs: 1999 })).not.toThrow();
  });

  it('starts begun work with the sequence, beside its steps, waits for none of it and reports its failure', async () => {
    const { shutdown, log } = recorder();
    const seen: string[] = [];
    let finishFlush!: () => void;
    // The first step sees the begun work already under way; the sequence ends while it is still running.
    shutdown.add('http', 200, async () => void seen.push(`http step, flush ${seen.includes('flush started') ? 'under way' : 'not begun'}`));
    shutdown.begin('flush', () => {
      seen.push('flush started');
      return new Promise<void>((resolve) => { finishFlush = resolve; });
    });
    shutdown.begin('broken', async () => {
      throw new Error('no connection');
    });
    await shutdown.run();
    expect(seen).toEqual(['flush started', 'http step, flush under way']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toContain('shutdown: broken failed: no connection');
    expect(log.some((line) => line.includes('flush'))).toBe(false);
    finishFlush();
  });

  it('withDeadline never throws and never waits past its deadline', async () => {
    await expect(withDeadline(Promise.reject(new Error('boom')), 100)).resolves.toBe('failed: boom');
    await expect(withDeadline(never(), 20)).resolves.toBe('timed out after 20 ms');
    await expect(withDeadline(Promise.resolve(), 20)).resolves.toBe('done');
  });
});

describe('data left by an older version', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-legacy-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('says what to do when a PGlite database is there and no PostgreSQL cluster yet', () => {
    fs.mkdirSync(path.join(root, 'pglite'));
    fs.writeFileSync(path.join(root, 'pglite', 'PG_VERSION'), '17\n');
    const notice = legacyDataNotice(root);
    expect(notice).toContain('npm run admin -- import-pglite');
    expect(notice).toContain(path.join(root, 'pglite'));
  });

  it('says nothing for a fresh folder, or once the PostgreSQL cluster exists', () => {
    expect(legacyDataNotice(root)).toBeUndefined();
    fs.mkdirSync(path.join(root, 'pglite'));
    fs.writeFileSync(path.join(root, 'pglite', 'PG_VERSION'), '17\n');
    fs.mkdirSync(path.join(root, 'postgres'));
    fs.writeFileSync(path.join(root, 'postgres', 'PG_VERSION'), '18\n');
    expect(legacyDataNotice(root)).toBeUndefined();
  });
});
