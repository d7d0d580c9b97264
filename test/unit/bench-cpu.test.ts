import { cpuPerCall, cpuSnapshot, type CpuSnapshot } from '../../bench/cpu';

/** A snapshot as cpuSnapshot makes one, from [group, id, ms] rows. */
function snapshotOf(rows: Array<[string, number, number]>): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  for (const [group, id, ms] of rows) snapshot.set(group, (snapshot.get(group) ?? new Map()).set(String(id), ms));
  return snapshot;
}

describe('CPU per call between two snapshots', () => {
  it('sums each process\'s own difference, so one that ends during the cell does not cancel its group', async () => {
    // Backend 11 (an idle pooled connection) exits during the cell; backend 12 works 300 ms.
    const before = snapshotOf([['Postgres', 11, 5000], ['Postgres', 12, 100]]);
    const after = snapshotOf([['Postgres', 12, 400]]);
    expect(cpuPerCall(before, after, 100).byGroup).toEqual({ Postgres: 3 });
  });

  it('counts all of a process that started during the cell, and leaves out the groups asked', async () => {
    const before = snapshotOf([['Postgres', 12, 100], ['callers', 7, 50]]);
    const after = snapshotOf([['Postgres', 12, 300], ['Postgres', 13, 200], ['callers', 7, 250]]);
    const cpu = cpuPerCall(before, after, 100, ['callers']);
    expect(cpu.byGroup).toEqual({ Postgres: 4, callers: 2 });
    expect(cpu.totalMs).toBe(4);
  });

  it('reads this process\'s main thread from /proc', async () => {
    const before = await cpuSnapshot([]);
    const until = Date.now() + 50;
    while (Date.now() < until) {
      // busy: the main thread's CPU must grow
    }
    const cpu = cpuPerCall(before, await cpuSnapshot([]), 1);
    expect(cpu.byGroup['node: main thread']).toBeGreaterThanOrEqual(20);
  });
});
