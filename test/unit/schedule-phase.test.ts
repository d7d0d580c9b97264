import { phaseOf } from '../../activities/schedules';

describe('phaseOf: where in its interval an organisation\'s schedule fires', () => {
  const day = 24 * 3_600_000;
  const ids = Array.from({ length: 2_000 }, (_v, i) => `agent-${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000-pastoral_care`);

  it('is whole seconds inside the interval, and the same for the same schedule every time', () => {
    for (const id of ids) {
      const offset = phaseOf(id, day);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(day);
      expect(offset % 1000).toBe(0);
      expect(phaseOf(id, day)).toBe(offset);
    }
  });

  it('spreads schedules over the whole interval rather than at its start', () => {
    const quarters = [0, 0, 0, 0];
    for (const id of ids) quarters[Math.floor(phaseOf(id, day) / (day / 4))] += 1;
    // 500 expected in each; a uniform spread stays well inside 400-600 (about five standard deviations).
    for (const count of quarters) {
      expect(count).toBeGreaterThan(400);
      expect(count).toBeLessThan(600);
    }
    expect(new Set(ids.map((id) => phaseOf(id, day))).size).toBeGreaterThan(1_950);
  });

  it('leaves an interval of a second or less at the epoch\'s times', () => {
    expect(phaseOf(ids[0], 1000)).toBe(0);
    expect(phaseOf(ids[0], 500)).toBe(0);
  });
});
