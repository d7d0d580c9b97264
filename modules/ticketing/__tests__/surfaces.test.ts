import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { registerModule } from '../../index';
import { defineModule } from '../../module';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import type { TicketCheckin } from '../extension-points';
import { call, inDays, refusal } from './stack';

/**
 * Ticketing's extension points: the spaces module answers how many a booked room holds, so publishing
 * checks an event's capacity against it; a module of the test's own listens for first scans at the
 * door (as attendance would). Also the dashboard routes and their bridges, the overview and the metrics.
 */
const checkins: TicketCheckin[] = [];
registerModule(defineModule({
  name: 'venuetest', title: 'Venue test', description: 'Fills ticketing\'s check-in extension point for a test.', tools: [], migrations: [], scopes: [], routes: [],
  contributes: {
    ticketingCheckins: { ticketCheckedIn: async (_db, _orgId, checkin) => { checkins.push(checkin); } },
  },
}));

describe('ticketing: extension points, routes, overview and metrics', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Luke' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  it('publishes only a capacity the booked room holds, and tells the door\'s first scans to the listener', async () => {
    const buildingId = (await call(mcp, 'spaces_create_building', { name: 'Church centre' })).building.id;
    const roomId = (await call(mcp, 'spaces_create_room', { buildingId, name: 'Church hall', capacity: 100 })).room.id;
    const bookingId = (await call(mcp, 'spaces_create_booking', {
      title: 'Hall supper', roomId, localDate: inDays(12).slice(0, 10), startTime: '18:00', durationMinutes: 180,
    })).booking.id;
    const { event } = await call(mcp, 'ticketing_create_event', { title: 'Hall supper', startsAt: inDays(12), timeZone: 'Europe/London', currency: 'GBP', capacity: 150, spacesBookingId: bookingId });
    const type = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Supper', price: 0 })).ticketType;
    const over = await refusal(mcp, 'ticketing_publish_event', { eventId: event.id });
    expect(over).toMatchObject({ code: 'conflict', details: { reason: 'over_venue_capacity', capacity: 150, roomCapacity: 100 } });
    expect(over.message).toContain('Church hall holds 100');
    await call(mcp, 'ticketing_update_event', { eventId: event.id, spacesBookingId: '22222222-2222-4222-8222-222222222222' });
    expect((await refusal(mcp, 'ticketing_publish_event', { eventId: event.id })).code).toBe('not_found');
    await call(mcp, 'ticketing_update_event', { eventId: event.id, spacesBookingId: bookingId, capacity: 90 });
    const published = await call(mcp, 'ticketing_publish_event', { eventId: event.id });
    expect(published.checks[1]).toEqual({ check: 'venue_capacity', outcome: 'passed', detail: '90 places fit Church hall (holds 100)' });

    const { order } = await call(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: type.id, quantity: 1 }], buyerName: 'Sue' });
    const first = await call(mcp, 'ticketing_check_in_ticket', { barcode: order.tickets[0].barcode });
    expect(first).toMatchObject({ outcome: 'checked_in', attendanceRecorded: true });
    expect((await call(mcp, 'ticketing_check_in_ticket', { barcode: order.tickets[0].barcode })).attendanceRecorded).toBe(false);
    expect(checkins).toEqual([expect.objectContaining({ eventId: event.id, ticketId: order.tickets[0].id, ticketTypeName: 'Supper', scheduleInstanceId: null })]);

    // Overview and metrics.
    const overview = await call(mcp, 'platform_overview', {});
    expect(overview.upcomingEvents).toEqual([{ eventId: event.id, title: 'Hall supper', startsAt: event.startsAt, status: 'published', sold: 1, capacity: 90 }]);
    const sold = await call(mcp, 'platform_analytics_query', { metric: 'tickets_sold', period: 'this_month' });
    expect(sold).toMatchObject({ module: 'ticketing', data: { sold: 1, comps: 0 } });
    expect(sold.speakToUser).toMatch(/^1 ticket sold/);
    const upcoming = await call(mcp, 'platform_analytics_query', { metric: 'upcoming_event_sales', limit: 5 });
    expect(upcoming.speakToUser).toBe('Hall supper: 1 of 90 sold.');

    // Routes, at their paths and through the bridges.
    const get = async (path: string) => (await fetch(`${harness.url}/api/ticketing/${path}`, { headers: { authorization: `Bearer ${org.apiKey}` } }));
    const tickets = await (await get(`events/${event.id}/tickets?status=used`)).json() as any;
    expect(tickets).toMatchObject({ tickets: [{ id: order.tickets[0].id, status: 'used' }] });
    expect((await get(`events/${event.id}/tickets?status=void`)).status).toBe(200);
    const foreign = await harness.createOrg({ name: 'Elsewhere' });
    expect((await fetch(`${harness.url}/api/ticketing/events/${event.id}/tickets`, { headers: { authorization: `Bearer ${foreign.apiKey}` } })).status).toBe(404);
    const entry = (await call(mcp, 'ticketing_join_waitlist', { eventId: event.id, ticketTypeId: type.id, email: 'w@example.org', name: 'Wait' })).entry;
    const listed = await call(mcp, 'ticketing_invoke_api_read', { method: 'GET', path: `/api/ticketing/events/${event.id}/waitlist` });
    expect(listed.result.waitlist).toEqual([expect.objectContaining({ id: entry.id, status: 'waiting', place: 1 })]);
    const removed = await call(mcp, 'ticketing_invoke_api_write', { method: 'DELETE', path: `/api/ticketing/waitlist/${entry.id}`, actionSummary: 'Take Wait off the list' });
    expect(removed.result).toEqual({ id: entry.id, status: 'removed' });
    const curated = await refusal(mcp, 'ticketing_invoke_api_write', { method: 'POST', path: `/api/ticketing/events/${event.id}/orders`, body: { items: [{ ticketTypeId: type.id, quantity: 1 }] }, actionSummary: 'Sell one' });
    expect(curated.code).toBe('use_workflow_tool');
    expect(JSON.stringify(curated)).toContain('ticketing_create_order');
  });
});
