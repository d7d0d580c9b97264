import { eagerStartCounts, noteEagerStart } from '../../temporal/eager-starts';

describe('eager start counts (what the bench reports per cell)', () => {
  it('counts every eager start asked for, and apart those the server sent through matching', () => {
    const before = eagerStartCounts();
    noteEagerStart(true);
    noteEagerStart(false);
    noteEagerStart(true);
    expect(eagerStartCounts()).toEqual({ requested: before.requested + 3, declined: before.declined + 1 });
  });
});
