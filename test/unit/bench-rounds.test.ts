import { medianRound, rotated, type ThroughputResult } from '../../bench/stats';

/** The stack bench's loaded cells: paths in rounds, in rotating order, each cell its median round. */
function round(callsPerSecond: number, errors = 0, cpuMs = 10): ThroughputResult & { cpu: { totalMs: number } } {
  return {
    concurrency: 32, calls: 800, errors, errorSamples: errors ? [`failed at ${callsPerSecond}`] : [], seconds: 800 / callsPerSecond, callsPerSecond,
    latency: { samples: 800, p50: 1000 / callsPerSecond, p95: 0, p99: 0, mean: 0, min: 0, max: 0 }, cpu: { totalMs: cpuMs },
  };
}

describe('bench rounds', () => {
  it('rotates the order so each path goes first once over as many rounds as paths', () => {
    const paths = ['floor', 'floor-http', 'mcp', 'bridge'];
    const orders = [0, 1, 2, 3].map((r) => rotated(paths, r));
    expect(orders.map((order) => order[0])).toEqual(paths);
    expect(orders.map((order) => order[3])).toEqual(['bridge', 'floor', 'floor-http', 'mcp']);
    for (const order of orders) expect([...order].sort()).toEqual([...paths].sort());
    expect(rotated(paths, 5)).toEqual(orders[1]);
  });

  it('keeps the median round (the lower middle of an even count) and every round beside it', () => {
    const cell = medianRound([round(90, 0, 11), round(70, 0, 14), round(110, 0, 9)]);
    expect(cell.callsPerSecond).toBe(90);
    expect(cell.cpu.totalMs).toBe(11);
    expect(cell.rounds).toEqual([{ callsPerSecond: 90, cpuMs: 11 }, { callsPerSecond: 70, cpuMs: 14 }, { callsPerSecond: 110, cpuMs: 9 }]);
    expect(medianRound([round(100), round(80)]).callsPerSecond).toBe(80);
  });

  it('shows an error from any round, not just the median one', () => {
    const cell = medianRound([round(90), round(70, 2), round(110)]);
    expect(cell.callsPerSecond).toBe(90);
    expect(cell.errors).toBe(2);
    expect(cell.errorSamples).toEqual(['failed at 70']);
  });
});
