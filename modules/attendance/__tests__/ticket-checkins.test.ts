import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall } from '../../../test/helpers/mcp-calls';

/**
 * Tickets scanned at a ticketed service's door count toward that service's attendance, through
 * ticketing's `ticketingCheckins` extension point that attendance fills: end to end over MCP with
 * the real check-in tools of both modules. A holder also checked in at a location counts once; a
 * ticket naming nobody counts as a guest; a rescan adds nothing. An event held as no service (or as
 * one since cancelled) is a line of its own under events, kept out of the service figures.
 */
describe('attendance: tickets scanned at the door', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let otherMcp: McpClient;
  const ZONE = 'Europe/London';

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Cecilia' });
    other = await harness.createOrg({ name: 'Elsewhere Hall' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    await owner?.close();
    await otherMcp?.close();
    await harness?.close();
  });

  it('counts each ticket holder once toward the service the event is held as', async () => {
    const sunday = DateTime.now().setZone(ZONE).startOf('day').plus({ days: 10 }).toISODate()!;
    const { series } = await mcpCall(owner, 'schedule_create_series', {
      title: 'Carol service', rrule: 'FREQ=DAILY;COUNT=1', startDate: sunday, startTime: '18:00', durationMinutes: 90, timeZone: ZONE,
    });
    const [instance] = (await mcpCall(owner, 'schedule_list_upcoming_instances', { seriesId: series.id, days: 20 })).instances;
    await mcpCall(owner, 'guests_update_settings', { checkinOpensMinutesBefore: 30 * 24 * 60 });
    const hall = (await mcpCall(owner, 'guests_create_location', { name: 'Main hall' })).location.id;
    const desk = (await mcpCall(owner, 'guests_create_check_in_station', { name: 'Welcome desk', kind: 'manned' })).station.id;
    const rita = (await mcpCall(owner, 'people_create_contact', { firstName: 'Rita', lastName: 'Both' })).contact.id;
    const bob = (await mcpCall(owner, 'people_create_contact', { firstName: 'Bob', lastName: 'Ticket' })).contact.id;
    await mcpCall(owner, 'guests_check_in', { instanceId: instance.id, stationId: desk, contactId: rita, locationId: hall, personKind: 'adult' });

    const startsAt = DateTime.fromISO(`${sunday}T18:00`, { zone: ZONE }).toISO()!;
    const { event } = await mcpCall(owner, 'ticketing_create_event', { title: 'Carols by candlelight', startsAt, timeZone: ZONE, currency: 'GBP', capacity: 100, scheduleInstanceId: instance.id });
    const type = (await mcpCall(owner, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Seat', price: 0 })).ticketType;
    await mcpCall(owner, 'ticketing_publish_event', { eventId: event.id });
    const order = async (args: Record<string, unknown>, quantity: number) =>
      (await mcpCall(owner, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: type.id, quantity }], ...args })).order.tickets as Array<{ barcode: string }>;
    const barcodes = [
      ...(await order({ contactId: rita }, 1)), ...(await order({ contactId: bob }, 1)), ...(await order({ buyerName: 'Walk-in family' }, 2)),
    ].map((ticket) => ticket.barcode);

    // A concert that is no service: its scan is kept and counts toward no service (it is an event line on the day it was scanned).
    const { event: concert } = await mcpCall(owner, 'ticketing_create_event', { title: 'Organ recital', startsAt, timeZone: ZONE, currency: 'GBP', capacity: 50 });
    const recitalType = (await mcpCall(owner, 'ticketing_create_ticket_type', { eventId: concert.id, name: 'Seat', price: 0 })).ticketType;
    await mcpCall(owner, 'ticketing_publish_event', { eventId: concert.id });
    const recital = (await mcpCall(owner, 'ticketing_create_order', { eventId: concert.id, items: [{ ticketTypeId: recitalType.id, quantity: 1 }], contactId: bob })).order.tickets[0].barcode;

    // Two door stewards scan every ticket at once; each is checked in and recorded once.
    const scans = await Promise.all([...barcodes, ...barcodes, recital].map((barcode) => mcpCall(owner, 'ticketing_check_in_ticket', { barcode })));
    expect(scans.filter((scan) => scan.outcome === 'checked_in')).toHaveLength(5);
    expect(scans.filter((scan) => scan.outcome === 'checked_in').every((scan) => scan.attendanceRecorded === true)).toBe(true);
    expect(scans.filter((scan) => scan.outcome === 'already_checked_in').every((scan) => scan.attendanceRecorded === false)).toBe(true);

    const summary = await mcpCall(owner, 'attendance_get_summary', { from: sunday, to: sunday });
    expect(summary.services).toEqual([expect.objectContaining({
      instanceId: instance.id, ticketCheckins: 4, checkedIn: 4, firstTimers: 1, guests: 3, regulars: 0, total: 4, totalFrom: 'checkins',
    })]);
    expect(summary.totals).toMatchObject({ services: 1, total: 4, checkedIn: 4, ticketCheckins: 4, events: 0, eventCheckedIn: 0 });
    expect(summary.events).toEqual([]);
    expect(summary.byLocation).toEqual([
      { locationId: hall, area: 'Main hall', checkedIn: 1, headcount: null },
      { locationId: null, area: 'Tickets: Carols by candlelight', checkedIn: 4, headcount: null },
    ]);
    // Narrowed to a check-in location, the door's scans (which have none) are left out.
    const inHall = await mcpCall(owner, 'attendance_get_summary', { from: sunday, to: sunday, locationId: hall });
    expect(inHall.services[0]).toMatchObject({ ticketCheckins: 0, checkedIn: 1 });

    // A headcount, when recorded, is still the service's total.
    await mcpCall(owner, 'attendance_record_headcount', { instanceId: instance.id, count: 120 });
    expect((await mcpCall(owner, 'attendance_get_summary', { from: sunday, to: sunday })).services[0]).toMatchObject({ ticketCheckins: 4, total: 120, totalFrom: 'headcount' });

    // Another organisation's figures hold none of it.
    const elsewhere = await mcpCall(otherMcp, 'attendance_get_summary', { from: sunday, to: sunday });
    expect(elsewhere.totals).toMatchObject({ services: 0, ticketCheckins: 0 });
    const stored = await harness.db.pool.query('SELECT event_id, instance_id, contact_id FROM attendance_ticket_checkins WHERE org_id = $1 ORDER BY checked_in_at', [org.orgId]);
    expect(stored.rows).toHaveLength(5);
    expect(stored.rows.filter((row) => row.event_id === concert.id)).toEqual([{ event_id: concert.id, instance_id: null, contact_id: bob }]);
  });

  it('an event held as no service, or as a service since cancelled, is a line of its own, outside the service figures', async () => {
    const today = DateTime.now().setZone(ZONE).toISODate()!;
    const later = DateTime.now().setZone(ZONE).startOf('day').plus({ days: 12 }).toISODate()!;
    const startsAt = DateTime.fromISO(`${later}T19:00`, { zone: ZONE }).toISO()!;
    const freeEvent = async (title: string, extra: Record<string, unknown> = {}) => {
      const { event } = await mcpCall(owner, 'ticketing_create_event', { title, startsAt, timeZone: ZONE, currency: 'GBP', capacity: 40, ...extra });
      const type = (await mcpCall(owner, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Seat', price: 0 })).ticketType;
      await mcpCall(owner, 'ticketing_publish_event', { eventId: event.id });
      return { event, type };
    };
    const scanAll = async (eventId: string, typeId: string, args: Record<string, unknown>, quantity: number) => {
      const tickets = (await mcpCall(owner, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity }], ...args })).order.tickets as Array<{ barcode: string }>;
      for (const ticket of tickets) expect((await mcpCall(owner, 'ticketing_check_in_ticket', { barcode: ticket.barcode })).outcome).toBe('checked_in');
    };
    const cara = (await mcpCall(owner, 'people_create_contact', { firstName: 'Cara', lastName: 'Quiz' })).contact.id;

    // A quiz night that is no service: Cara and two walk-ins scanned today.
    const quiz = await freeEvent('Quiz night');
    await scanAll(quiz.event.id, quiz.type.id, { contactId: cara }, 1);
    await scanAll(quiz.event.id, quiz.type.id, { buyerName: 'Walk-in pair' }, 2);
    const summary = await mcpCall(owner, 'attendance_get_summary', { from: today, to: today });
    const quizLine = summary.events.filter((line: { eventId: string }) => line.eventId === quiz.event.id);
    expect(quizLine).toEqual([{ eventId: quiz.event.id, title: 'Quiz night', localDate: today, checkedIn: 3, regulars: 0, guests: 3, firstTimers: 0, ticketCheckins: 3 }]);
    expect(summary.services).toEqual([]);
    expect(summary.totals).toMatchObject({ services: 0, total: 0, ticketCheckins: 0 });
    expect(summary.totals.events).toBe(summary.events.length);
    expect(summary.totals.eventCheckedIn).toBeGreaterThanOrEqual(3);
    expect(summary.byLocation).toContainEqual({ locationId: null, area: 'Tickets: Quiz night', checkedIn: 3, headcount: null });

    // A nativity play held as a service that is then cancelled: its scans are not dropped but become its own line.
    const { series } = await mcpCall(owner, 'schedule_create_series', { title: 'Nativity', rrule: 'FREQ=DAILY;COUNT=1', startDate: later, startTime: '19:00', durationMinutes: 60, timeZone: ZONE });
    const [instance] = (await mcpCall(owner, 'schedule_list_upcoming_instances', { seriesId: series.id, days: 20 })).instances;
    const play = await freeEvent('Nativity play', { scheduleInstanceId: instance.id });
    await scanAll(play.event.id, play.type.id, { buyerName: 'Shepherds' }, 2);
    expect((await mcpCall(owner, 'attendance_get_summary', { from: later, to: later })).services).toEqual([expect.objectContaining({ instanceId: instance.id, ticketCheckins: 2 })]);
    await mcpCall(owner, 'schedule_cancel_instance', { instanceId: instance.id, reason: 'Snow' });
    const afterCancel = await mcpCall(owner, 'attendance_get_summary', { from: later, to: later });
    expect(afterCancel.services).toEqual([]);
    expect(afterCancel.events).toEqual([{ eventId: play.event.id, title: 'Nativity play', localDate: later, checkedIn: 2, regulars: 0, guests: 2, firstTimers: 0, ticketCheckins: 2 }]);
    expect(afterCancel.totals).toMatchObject({ services: 0, total: 0, events: 1, eventCheckedIn: 2 });

    // Narrowed to a series, or to a check-in location, events are outside what was asked for.
    expect((await mcpCall(owner, 'attendance_get_summary', { from: today, to: today, seriesId: series.id })).events).toEqual([]);
    // Another organisation sees none of it.
    expect((await mcpCall(otherMcp, 'attendance_get_summary', { from: today, to: today })).events).toEqual([]);
  });
});
