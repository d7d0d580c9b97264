import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { call, inDays, refusal } from './stack';

/**
 * Ticketing's rules that need no payment provider (free tickets), on the shared stack: pools (the
 * whole event beats the sum of its types; a shared pool across types), capacity never lowered below
 * what is taken, hidden types and sales windows, per-order limits, comps, clear refusals that change
 * nothing, and a paid sale refused plainly when no provider is configured.
 */
describe('ticketing rules', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let reader: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'All Saints' });
    mcp = await harness.mcpClient(org.apiKey);
    reader = await harness.mcpClient((await harness.createKey(org.orgId, ['ticketing:read'], 'staff')).apiKey);
  });

  afterAll(async () => {
    await reader?.close();
    await mcp?.close();
    await harness?.close();
  });

  const rows = async () => {
    const out: Record<string, number> = {};
    for (const table of ['ticketing_events', 'ticketing_ticket_types', 'ticketing_pools', 'ticketing_orders', 'ticketing_tickets', 'ticketing_reservations', 'ticketing_holds']) {
      out[table] = (await harness.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [org.orgId])).rows[0].n;
    }
    return out;
  };

  it('counts every type against the whole event and shared pools; the total beats the sum of the types', async () => {
    const { event } = await call(mcp, 'ticketing_create_event', {
      title: 'Christmas lunch', startsAt: inDays(30, 12), timeZone: 'Europe/London', capacity: 5, sharedPools: [{ name: 'Balcony', capacity: 2 }],
    });
    const balconyId = event.pools.find((p: any) => p.kind === 'shared').id;
    const adult = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Adult', price: 0, capacity: 4 })).ticketType;
    const child = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Child', price: 0, capacity: 4 })).ticketType;
    const balcony = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Balcony adult', price: 0, poolIds: [balconyId] })).ticketType;
    expect(balcony.poolIds).toHaveLength(2);
    await call(mcp, 'ticketing_publish_event', { eventId: event.id });
    await call(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: adult.id, quantity: 3 }] });
    // Child has 4 of its own, but the whole event has only 2 left.
    const refused = await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: child.id, quantity: 3 }] });
    expect(refused).toMatchObject({ code: 'conflict', details: { reason: 'sold_out', remaining: 2, requested: 3 } });
    await call(mcp, 'ticketing_issue_comp_tickets', { eventId: event.id, ticketTypeId: balcony.id, quantity: 2, holderName: 'Organist' });
    expect((await refusal(mcp, 'ticketing_create_hold', { ticketTypeId: child.id, quantity: 1, reason: 'x' })).details.reason).toBe('sold_out');
    const { availability } = await call(reader, 'ticketing_get_availability', { eventId: event.id });
    expect(availability.pools.map((p: any) => [p.kind, p.capacity, p.sold, p.remaining])).toEqual([
      ['event', 5, 5, 0], ['shared', 2, 2, 0], ['type', 4, 3, 1], ['type', 4, 0, 4],
    ]);
    expect(availability.types.map((t: any) => [t.name, t.sold, t.remaining])).toEqual([['Adult', 3, 0], ['Child', 0, 0], ['Balcony adult', 2, 0]]);
    // Capacity cannot go below what is taken; raising it frees places at once.
    expect((await refusal(mcp, 'ticketing_update_event', { eventId: event.id, capacity: 4 })).code).toBe('conflict');
    expect((await refusal(mcp, 'ticketing_update_ticket_type', { ticketTypeId: adult.id, capacity: 2 })).code).toBe('conflict');
    expect((await call(mcp, 'ticketing_update_event', { eventId: event.id, capacity: 6 })).event.capacity).toBe(6);
    await call(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: child.id, quantity: 1 }] });
    const report = await call(reader, 'ticketing_get_sales_report', { eventId: event.id });
    expect(report.totals).toMatchObject({ ticketsSold: 4, compTickets: 2, gross: 0 });
  });

  it('sells a hidden type only with its code, only in its window, within its per-order limits', async () => {
    const { event } = await call(mcp, 'ticketing_create_event', { title: 'Choir dinner', startsAt: inDays(10), timeZone: 'Europe/London', currency: 'GBP' });
    const hidden = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Choir', price: 0, accessCode: 'singers', maxPerOrder: 2 })).ticketType;
    const later = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Later', price: 0, salesStart: inDays(3) })).ticketType;
    expect(hidden).toMatchObject({ hidden: true, capacity: null });
    expect((await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: hidden.id, quantity: 1 }] })).details).toMatchObject({ reason: 'not_on_sale', status: 'draft' });
    await call(mcp, 'ticketing_publish_event', { eventId: event.id });
    expect((await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: hidden.id, quantity: 1 }] })).code).toBe('not_found');
    expect((await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: hidden.id, quantity: 1 }], accessCode: 'wrong' })).code).toBe('not_found');
    expect((await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: hidden.id, quantity: 3 }], accessCode: 'SINGERS' })).code).toBe('validation_failed');
    expect((await call(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: hidden.id, quantity: 2 }], accessCode: 'Singers' })).ticketsIssued).toBe(2);
    expect((await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: later.id, quantity: 1 }] })).details.reason).toBe('not_on_sale_yet');
    // Closing sales stops them; reopening starts them again.
    await call(mcp, 'ticketing_update_event', { eventId: event.id, status: 'sales_closed' });
    expect((await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: hidden.id, quantity: 1 }], accessCode: 'singers' })).details.reason).toBe('not_on_sale');
    expect((await refusal(mcp, 'ticketing_publish_event', { eventId: event.id })).code).toBe('conflict');
    await call(mcp, 'ticketing_update_event', { eventId: event.id, status: 'published' });
  });

  it('refuses bad input clearly and changes nothing', async () => {
    const before = await rows();
    const bad = async (tool: string, args: Record<string, unknown>, code: string) => expect((await refusal(mcp, tool, args)).code).toBe(code);
    await bad('ticketing_create_event', { title: '', startsAt: inDays(3), timeZone: 'Europe/London' }, 'validation_failed');
    await bad('ticketing_create_event', { title: 'X', startsAt: 'next friday', timeZone: 'Europe/London' }, 'validation_failed');
    await bad('ticketing_create_event', { title: 'X', startsAt: inDays(3), timeZone: 'Mars/Olympus' }, 'validation_failed');
    await bad('ticketing_create_event', { title: 'X', startsAt: inDays(3), endsAt: inDays(2), timeZone: 'Europe/London' }, 'validation_failed');
    await bad('ticketing_create_event', { title: 'X', startsAt: inDays(3), timeZone: 'Europe/London', capacity: -1 }, 'validation_failed');
    await bad('ticketing_create_event', { title: 'X', startsAt: inDays(3), timeZone: 'Europe/London', price: 5 }, 'validation_failed');
    await bad('ticketing_get_order', { orderId: '00000000-0000-4000-8000-000000000000' }, 'not_found');
    await bad('ticketing_create_order', { items: [] }, 'validation_failed');
    await bad('ticketing_check_in_ticket', { barcode: 'TKT-NOPE' }, 'not_found');
    await bad('ticketing_create_ticket_type', { eventId: '00000000-0000-4000-8000-000000000000', name: 'A', price: 1 }, 'not_found');
    await bad('ticketing_create_promo_code', { eventId: '00000000-0000-4000-8000-000000000000', code: 'a b', kind: 'percent', amount: 10 }, 'validation_failed');
    expect((await refusal(reader, 'ticketing_create_event', { title: 'X', startsAt: inDays(3), timeZone: 'Europe/London' })).code).toBe('insufficient_scope');
    expect(await rows()).toEqual(before);
  });

  it('refuses a paid sale plainly when no payment provider is configured, taking no places', async () => {
    const { event } = await call(mcp, 'ticketing_create_event', { title: 'Paid talk', startsAt: inDays(8), timeZone: 'Europe/London', capacity: 10 });
    const type = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Seat', price: 500 })).ticketType;
    await call(mcp, 'ticketing_publish_event', { eventId: event.id });
    const refused = await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: type.id, quantity: 1 }] });
    expect(refused).toMatchObject({ code: 'not_configured', hint: expect.stringContaining('Free tickets need no provider') });
    expect((await call(mcp, 'ticketing_get_availability', { eventId: event.id })).availability.pools[0]).toMatchObject({ pending: 0, remaining: 10 });
  });
  it('moves orders, tickets and waitlist places on a merge, and clears the person from them on erasure', async () => {
    const person = async (firstName: string) => (await call(mcp, 'people_create_contact', { firstName, lastName: 'Ticket', email: `${firstName.toLowerCase()}-${Date.now()}@example.org` })).contact.id as string;
    const kept = await person('Kept');
    const duplicate = await person('Dupe');
    const erased = await person('Gone');
    const { event } = await call(mcp, 'ticketing_create_event', { title: 'Family fun day', startsAt: inDays(15), timeZone: 'Europe/London', currency: 'GBP', capacity: 10 });
    const type = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Entry', price: 0 })).ticketType;
    await call(mcp, 'ticketing_publish_event', { eventId: event.id });
    const dupeOrder = (await call(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: type.id, quantity: 1 }], contactId: duplicate, buyerName: 'Dupe Ticket' })).order;
    const goneOrder = (await call(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: type.id, quantity: 1 }], contactId: erased, buyerName: 'Gone Ticket', buyerEmail: 'gone@example.org' })).order;
    const goneEntry = (await call(mcp, 'ticketing_join_waitlist', { eventId: event.id, ticketTypeId: type.id, contactId: erased, name: 'Gone Ticket', email: 'gone@example.org' })).entry;

    const gated = await refusal(mcp, 'people_merge_data_quality_contacts', { keepContactId: kept, mergeContactId: duplicate });
    await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    const merged = (await call(mcp, 'ticketing_get_order', { orderId: dupeOrder.id })).order;
    expect(merged.contactId).toBe(kept);
    expect(merged.tickets[0].contactId).toBe(kept);

    await call(mcp, 'people_delete_contact', { contactId: erased, permanent: true });
    const cleared = (await call(mcp, 'ticketing_get_order', { orderId: goneOrder.id })).order;
    expect(cleared).toMatchObject({ contactId: null, buyerName: null, buyerEmail: null, status: 'paid', total: 0 });
    expect(cleared.tickets[0]).toMatchObject({ contactId: null, holderName: null, status: 'active' });
    const entry = (await harness.pool.query('SELECT contact_id, name, email FROM ticketing_waitlist_entries WHERE id = $1', [goneEntry.id])).rows[0];
    expect(entry).toEqual({ contact_id: null, name: null, email: null });
  });
});
