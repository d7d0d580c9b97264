import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../db/config';
import { addToDate, griefPlanOf, stepOfSetting } from '../pastoral/life-events/grief-plan';

const TSX = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
const PROBE = path.join(__dirname, 'fixtures', 'life-events-ics-probe.ts');

/** The date arithmetic of grief plans and calendars: calendar dates, never shifted by months' lengths or the server's time zone. */
describe('life-event dates', () => {
  it('adds calendar months clamped to the month\'s end, then days', () => {
    expect(addToDate('2026-01-31', 1, 0)).toBe('2026-02-28');
    expect(addToDate('2024-01-31', 1, 0)).toBe('2024-02-29');
    expect(addToDate('2024-02-29', 12, 0)).toBe('2025-02-28');
    expect(addToDate('2026-12-28', 0, 7)).toBe('2027-01-04');
    expect(addToDate('2026-11-24', 3, 0)).toBe('2027-02-24');
  });

  it('reads whole years of days as years, so an anniversary falls on its date; other offsets stay days', () => {
    expect(stepOfSetting({ label: 'First anniversary', offsetDays: 365 })).toEqual({ label: 'First anniversary', months: 12 });
    expect(stepOfSetting({ label: 'Second anniversary', offsetDays: 730 })).toEqual({ label: 'Second anniversary', months: 24 });
    expect(stepOfSetting({ label: 'One month', offsetDays: 30 })).toEqual({ label: 'One month', days: 30 });
    expect(stepOfSetting({ label: 'Same day', offsetDays: 0 })).toEqual({ label: 'Same day', days: 0 });
    const plan = [{ label: 'First anniversary', offsetDays: 365 }, { label: 'One week', offsetDays: 7 }].map(stepOfSetting);
    // Sorted by date whatever order the settings list them in.
    expect(griefPlanOf(plan, '2028-02-29')).toEqual([{ label: 'One week', dueOn: '2028-03-07' }, { label: 'First anniversary', dueOn: '2029-02-28' }]);
  });

  it('writes all-day dates that do not move with the server\'s time zone', () => {
    // Ahead of UTC (local midnight is the day before in UTC) and behind it.
    for (const zone of ['Pacific/Auckland', 'America/Los_Angeles']) {
      const ics = execFileSync(TSX, [PROBE, '2026-03-01'], { env: { ...process.env, TZ: zone }, encoding: 'utf8' });
      expect({ zone, start: ics.split(/\r?\n/).find((line) => line.startsWith('DTSTART')) }).toEqual({ zone, start: 'DTSTART;VALUE=DATE:20260301' });
      expect(ics).toContain('RRULE:FREQ=YEARLY');
      expect(ics).not.toContain('Not for the calendar');
    }
  }, 60_000);
});
