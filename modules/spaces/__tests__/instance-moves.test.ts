import { shiftedWindow } from '../instance-moves';

/** How a booking's occurrence follows its service instance's move, before any database is involved. */
describe('spaces: the window a moved instance gives its booking', () => {
  const at = (iso: string) => new Date(iso);
  const minutes = (from: Date, to: Date) => (to.getTime() - from.getTime()) / 60_000;
  // A 10:30–11:30 service (London, summer time), booked 10:00–12:00 with 30 minutes' set-up and 15 of clear-up.
  const occurrence = { starts_at: at('2026-07-05T09:00:00Z'), ends_at: at('2026-07-05T11:00:00Z'), busy_from: at('2026-07-05T08:30:00Z'), busy_to: at('2026-07-05T11:15:00Z') };
  const service = { startsAt: at('2026-07-05T09:30:00Z'), endsAt: at('2026-07-05T10:30:00Z') };

  it('shifts start and end as the instance\'s did, keeping the early start, late finish, set-up and clear-up', () => {
    const window = shiftedWindow(occurrence, { instanceId: 'i', from: service, to: { startsAt: at('2026-07-12T14:00:00Z'), endsAt: at('2026-07-12T15:30:00Z') } }, 'Europe/London');
    expect(window).toMatchObject({ localDate: '2026-07-12', originalLocalDate: '2026-07-12', localStartTime: '14:30' });
    expect(window.startsAt.toISOString()).toBe('2026-07-12T13:30:00.000Z');
    expect(window.endsAt.toISOString()).toBe('2026-07-12T16:00:00.000Z');
    expect(minutes(window.busyFrom, window.startsAt)).toBe(30);
    expect(minutes(window.endsAt, window.busyTo)).toBe(15);
  });

  it('names the local date and time in the booking\'s zone, across a clock change', () => {
    const window = shiftedWindow(occurrence, { instanceId: 'i', from: service, to: { startsAt: at('2026-11-01T10:30:00Z'), endsAt: at('2026-11-01T11:30:00Z') } }, 'Europe/London');
    expect(window).toMatchObject({ localDate: '2026-11-01', localStartTime: '10:00' });
  });

  it('keeps the booking at least five minutes long when the instance is cut shorter than the booking', () => {
    // A 15-minute booking at the start of the hour's service (the vestry for robing); the service becomes 30 minutes.
    const robing = { starts_at: service.startsAt, ends_at: at('2026-07-05T09:45:00Z'), busy_from: service.startsAt, busy_to: at('2026-07-05T09:45:00Z') };
    const window = shiftedWindow(robing, { instanceId: 'i', from: service, to: { startsAt: service.startsAt, endsAt: at('2026-07-05T10:00:00Z') } }, 'Europe/London');
    expect(window.startsAt.toISOString()).toBe(service.startsAt.toISOString());
    expect(minutes(window.startsAt, window.endsAt)).toBe(5);
    expect(window.busyTo.toISOString()).toBe(window.endsAt.toISOString());
  });
});
