import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { paymentSignature } from '../../../kernel/payments';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import type { PaymentsSandbox } from '../../../sandbox/payments/server';
import { call, eventually, inDays, paymentsStack, refusal } from './stack';

/**
 * The carol concert end to end over MCP: created and published, sold through the payment sandbox
 * (a buyer paying on its checkout page) with a promo code, sold out, waitlisted, a ticket refunded
 * and its place offered to the waitlist in order (an unanswered offer passing to the next in line by
 * its timer), a forged and a replayed webhook changing nothing, checked in at the door once, the
 * sales report and door list, and finally the event cancelled with a person's approval, every paid
 * order refunded in full. Another organisation sees none of it.
 */
describe('ticketing journey: the carol concert', () => {
  let harness: Harness;
  let sandbox: PaymentsSandbox;
  let close: () => Promise<void>;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  const ids: Record<string, string> = {};

  const contact = async (firstName: string) => (await call(mcp, 'people_create_contact', { firstName, lastName: 'Carol', email: `${firstName.toLowerCase()}@example.org` })).contact.id as string;
  const sessionOf = (orderId: string) => sandbox.sessions().find((session) => session.metadata.order_id === orderId)!;
  /** The buyer presses Pay on the sandbox's checkout page. */
  const payOnPage = async (checkoutUrl: string) => {
    const page = await fetch(checkoutUrl);
    expect(await page.text()).toContain('Sandbox checkout');
    const paid = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
  };
  const statusOf = async (orderId: string) => (await call(mcp, 'ticketing_get_order', { orderId })).order;

  beforeAll(async () => {
    ({ harness, sandbox, close } = await paymentsStack());
    org = await harness.createOrg({ name: 'St Nicholas' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    await otherMcp?.close();
    await mcp?.close();
    await close?.();
  });

  it('sells, waitlists, refunds, admits and cancels', async () => {
    // Set up and publish.
    const { event } = await call(mcp, 'ticketing_create_event', {
      title: 'Carol concert', startsAt: inDays(25), endsAt: inDays(25, 21), timeZone: 'Europe/London', capacity: 3, venue: 'St Nicholas church',
    });
    expect(event).toMatchObject({ status: 'draft', currency: 'GBP', capacity: 3 });
    expect((await refusal(mcp, 'ticketing_publish_event', { eventId: event.id })).code).toBe('conflict');
    const adult = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Adult', price: 1_200, maxPerOrder: 2 })).ticketType;
    expect((await refusal(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'adult', price: 100 })).code).toBe('conflict');
    await call(mcp, 'ticketing_create_promo_code', { eventId: event.id, code: 'CAROL25', kind: 'percent', amount: 25, maxUses: 5 });
    // The concert's room, booked through spaces: publishing checks the event fits it.
    const buildingId = (await call(mcp, 'spaces_create_building', { name: 'St Nicholas' })).building.id;
    const roomId = (await call(mcp, 'spaces_create_room', { buildingId, name: 'Nave', capacity: 200 })).room.id;
    const bookingId = (await call(mcp, 'spaces_create_booking', { title: 'Carol concert', roomId, localDate: inDays(25).slice(0, 10), startTime: '18:00', durationMinutes: 180 })).booking.id;
    await call(mcp, 'ticketing_update_event', { eventId: event.id, spacesBookingId: bookingId });
    const published = await call(mcp, 'ticketing_publish_event', { eventId: event.id });
    expect(published.event.status).toBe('published');
    expect(published.checks).toEqual([
      { check: 'ticket_types', outcome: 'passed', detail: '1 ticket type on sale' },
      { check: 'venue_capacity', outcome: 'passed', detail: '3 places fit Nave (holds 200)' },
    ]);
    expect((await call(mcp, 'ticketing_list_events', { status: 'published' })).events.map((e: any) => e.id)).toEqual([event.id]);

    // Ann buys two with the promo code and pays on the checkout page.
    ids.ann = await contact('Ann');
    const annOrder = (await call(mcp, 'ticketing_create_order', {
      eventId: event.id, items: [{ ticketTypeId: adult.id, quantity: 2 }], promoCode: 'carol25', contactId: ids.ann, buyerName: 'Ann Carol', buyerEmail: 'ann@example.org',
    })).order;
    expect(annOrder).toMatchObject({ status: 'pending', subtotal: 2_400, discount: 600, total: 1_800, promoCode: 'CAROL25', tickets: [] });
    expect(sessionOf(annOrder.id)).toMatchObject({ amount_total: 1_800, currency: 'gbp', status: 'open' });
    await payOnPage(annOrder.checkoutUrl);
    const annPaid = await statusOf(annOrder.id);
    expect(annPaid).toMatchObject({ status: 'paid', total: 1_800 });
    expect(annPaid.tickets.map((t: any) => t.pricePaid)).toEqual([900, 900]);

    // Bob buys the last one; its webhook is held back, forged, then delivered and replayed.
    const bobOrder = (await call(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: adult.id, quantity: 1 }], buyerName: 'Bob Carol' })).order;
    const held = await sandbox.pay(sessionOf(bobOrder.id).id, { deliver: false });
    const forgedBody = held.webhook.body.replace(bobOrder.id, annOrder.id);
    expect((await sandbox.deliver({ ...held.webhook, body: forgedBody })).status).toBe(401);
    const selfSigned = { ...held.webhook, headers: { ...held.webhook.headers, 'stripe-signature': paymentSignature('not-the-secret', held.webhook.body, Math.floor(Date.now() / 1000)) } };
    expect((await sandbox.deliver(selfSigned)).status).toBe(401);
    expect((await statusOf(bobOrder.id)).status).toBe('pending');
    expect(JSON.parse((await sandbox.deliver(held.webhook)).body).outcome).toBe('paid');
    expect(JSON.parse((await sandbox.deliver(held.webhook)).body).outcome).toBe('duplicate');
    expect((await statusOf(bobOrder.id)).tickets).toHaveLength(1);

    // Sold out: three people join the waitlist, in order.
    const sold = await refusal(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: adult.id, quantity: 1 }] });
    expect(sold).toMatchObject({ code: 'conflict', details: { reason: 'sold_out' } });
    ids.cat = await contact('Cat');
    ids.dan = await contact('Dan');
    const waiting = [];
    for (const who of ['cat', 'dan']) waiting.push((await call(mcp, 'ticketing_join_waitlist', { eventId: event.id, ticketTypeId: adult.id, contactId: ids[who] })).entry);
    waiting.push((await call(mcp, 'ticketing_join_waitlist', { eventId: event.id, ticketTypeId: adult.id, name: 'Eve Carol', email: 'eve@example.org' })).entry);
    expect(waiting.map((e) => e.place)).toEqual([1, 2, 3]);
    expect((await refusal(mcp, 'ticketing_join_waitlist', { eventId: event.id, ticketTypeId: adult.id, contactId: ids.cat })).code).toBe('conflict');
    expect((await call(mcp, 'ticketing_offer_waitlist_spots', { eventId: event.id })).offers).toEqual([]);

    // Ann returns one ticket: refunded what it paid, the ticket void, its place back.
    const refund = await call(mcp, 'ticketing_refund_order', { orderId: annOrder.id, ticketIds: [annPaid.tickets[1].id], reason: 'Cannot come' });
    expect(refund).toMatchObject({ refunded: 900, ticketsVoided: 1, order: { status: 'partially_refunded', refunded: 900, refundable: 900 } });
    expect(sandbox.refunds().map((r) => r.amount)).toEqual([900]);

    // The place goes to Cat first, for 5 seconds; unanswered, it passes to Dan by itself.
    const offered = await call(mcp, 'ticketing_offer_waitlist_spots', { eventId: event.id, offerSeconds: 5 });
    expect(offered.offers.map((o: any) => o.entry.contactId)).toEqual([ids.cat]);
    expect((await call(mcp, 'ticketing_get_availability', { eventId: event.id })).availability.pools[0]).toMatchObject({ sold: 2, pending: 1, remaining: 0 });
    expect((await refusal(mcp, 'ticketing_reserve_tickets', { eventId: event.id, items: [{ ticketTypeId: adult.id, quantity: 1 }] })).details.reason).toBe('sold_out');
    // Watched through a read (the waitlist route), so only the timer can have passed the offer on.
    const waitlist = async () => (await call(mcp, 'ticketing_invoke_api_read', { path: `/api/ticketing/events/${event.id}/waitlist` })).result.waitlist;
    const passed = await eventually(waitlist, (list) => list.some((e: any) => e.contactId === ids.dan && e.status === 'offered'), 40_000);
    expect(passed.map((e: any) => e.status)).toEqual(['expired', 'offered', 'waiting']);
    const danOffer = await harness.pool.query(`SELECT id FROM ticketing_reservations WHERE org_id = $1 AND waitlist_entry_id = $2 AND status = 'pending'`, [org.orgId, waiting[1].id]);
    expect(danOffer.rows).toHaveLength(1);

    // Dan buys from his offer (the promo code still has uses) and pays.
    const danOrder = (await call(mcp, 'ticketing_create_order', { reservationId: danOffer.rows[0].id, promoCode: 'CAROL25' })).order;
    expect(danOrder).toMatchObject({ status: 'pending', total: 900, contactId: ids.dan });
    await payOnPage(danOrder.checkoutUrl);
    expect((await statusOf(danOrder.id)).status).toBe('paid');
    const after = await call(mcp, 'ticketing_offer_waitlist_spots', { eventId: event.id });
    expect(after.waitlist.map((e: any) => e.status)).toEqual(['expired', 'purchased', 'waiting']);

    // The door: Ann's live ticket admits once; her refunded one is refused.
    const door = await call(mcp, 'ticketing_check_in_ticket', { barcode: annPaid.tickets[0].barcode, eventId: event.id });
    expect(door).toMatchObject({ outcome: 'checked_in', ticket: { eventTitle: 'Carol concert', holderName: 'Ann Carol' } });
    const again = await call(mcp, 'ticketing_check_in_ticket', { barcode: annPaid.tickets[0].barcode.toLowerCase() });
    expect(again).toMatchObject({ outcome: 'already_checked_in', firstCheckedInAt: door.firstCheckedInAt });
    expect((await refusal(mcp, 'ticketing_check_in_ticket', { barcode: annPaid.tickets[1].barcode })).details.reason).toBe('ticket_void');
    // Another organisation's door cannot read the barcode, nor the order.
    expect((await refusal(otherMcp, 'ticketing_check_in_ticket', { barcode: annPaid.tickets[0].barcode })).code).toBe('not_found');
    expect((await refusal(otherMcp, 'ticketing_get_order', { orderId: annOrder.id })).code).toBe('not_found');

    // Reports.
    const report = await call(mcp, 'ticketing_get_sales_report', { eventId: event.id });
    expect(report.totals).toEqual({ ordersPaid: 3, ordersPending: 0, ticketsSold: 3, compTickets: 0, checkedIn: 1, gross: 4_800, discounts: 900, refunded: 900, net: 3_000 });
    expect(report.promoCodes).toEqual([{ code: 'CAROL25', uses: 2, maxUses: 5, discountGiven: 900 }]);
    expect(report.waitlist).toEqual({ waiting: 1, offered: 0, purchased: 1, expired: 1 });
    const csv = await call(mcp, 'ticketing_export_attendees', { eventId: event.id });
    expect(csv).toMatchObject({ rows: 3, checkedIn: 1, filename: 'carol-concert-attendees.csv' });
    expect(csv.csv.split('\n')[0]).toBe('ticket_id,ticket_type,holder_name,buyer_name,buyer_email,status,order_id,checked_in_at');
    expect(csv.csv).toContain('Ann Carol');

    // Cancelling needs a person; approved, every paid order is refunded in full, never past what was paid.
    const gated = await refusal(mcp, 'ticketing_cancel_event', { eventId: event.id, reason: 'Roof repairs' });
    expect(gated.code).toBe('approval_required');
    expect((await call(mcp, 'ticketing_get_availability', { eventId: event.id })).event.status).toBe('published');
    const decided = await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    expect(decided.execution.result).toMatchObject({ ordersRefunded: 3, refundedTotal: 3_000, event: { status: 'cancelled' } });
    const refundedByIntent = new Map<string, number>();
    for (const r of sandbox.refunds()) refundedByIntent.set(r.payment_intent, (refundedByIntent.get(r.payment_intent) ?? 0) + r.amount);
    for (const order of [annOrder, bobOrder, danOrder]) {
      const final = await statusOf(order.id);
      expect(final).toMatchObject({ status: 'refunded', refunded: final.total });
      expect(refundedByIntent.get(sessionOf(order.id).payment_intent!)).toBe(final.total);
    }
    expect((await refusal(mcp, 'ticketing_check_in_ticket', { barcode: annPaid.tickets[0].barcode })).details.reason).toBe('event_cancelled');
  });
});
