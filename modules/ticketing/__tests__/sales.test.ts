import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTenantTransaction } from '../../../db/pool';
import { paymentSignature } from '../../../kernel/payments';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { failNextInsertOnce, prepareAttempt } from '../../../test/helpers/retried-attempt';
import type { PaymentsSandbox } from '../../../sandbox/payments/server';
import { expireReservation } from '../waitlist';
import { attempt, call, eventually, inDays, paymentsStack, refusal } from './stack';

/**
 * Ticketing's rules against real Postgres, Temporal and the payment sandbox, through real parallel
 * MCP calls: never oversell (free and paid), an expired cart returns its places exactly once (by
 * its Temporal timer), the promo limit under concurrency, only a signed webhook pays an order and
 * a replay or forgery changes nothing, refunds never pass what was paid, the door admits once.
 */
describe('ticketing: capacity, payments, refunds and the door', () => {
  let harness: Harness;
  let sandbox: PaymentsSandbox;
  let close: () => Promise<void>;
  let org: TestOrg;
  let mcp: McpClient;
  let clients: McpClient[];

  const newEvent = async (title: string, capacity: number, price: number, extra: Record<string, unknown> = {}) => {
    const { event } = await call(mcp, 'ticketing_create_event', { title, startsAt: inDays(20), timeZone: 'Europe/London', currency: 'GBP', capacity, ...extra });
    const { ticketType } = await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Adult', price });
    await call(mcp, 'ticketing_publish_event', { eventId: event.id });
    return { eventId: event.id as string, typeId: ticketType.id as string };
  };
  const availabilityOf = async (eventId: string) => (await call(mcp, 'ticketing_get_availability', { eventId })).availability;
  const count = async (sql: string, values: unknown[]) => (await harness.pool.query(sql, values)).rows[0].n as number;

  beforeAll(async () => {
    ({ harness, sandbox, close } = await paymentsStack());
    org = await harness.createOrg({ name: 'St Cecilia' });
    mcp = await harness.mcpClient(org.apiKey);
    clients = await Promise.all(Array.from({ length: 5 }, () => harness.mcpClient(org.apiKey)));
  });

  afterAll(async () => {
    for (const client of clients ?? []) await client.close();
    await mcp?.close();
    await close?.();
  });

  it('sells exactly 10 tickets when 50 buyers order the last 10 free places at once', async () => {
    const { eventId, typeId } = await newEvent('Free open day', 10, 0);
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(clients[i % clients.length]!, 'ticketing_create_order', {
      eventId, items: [{ ticketTypeId: typeId, quantity: 1 }], buyerName: `Buyer ${i}`,
    })));
    const sold = outcomes.filter((o) => o.ok);
    const refused = outcomes.filter((o): o is { ok: false; error: any } => !o.ok);
    expect(sold).toHaveLength(10);
    expect(refused).toHaveLength(40);
    expect(new Set(refused.map((o) => o.error.code))).toEqual(new Set(['conflict']));
    expect(refused[0]!.error.details).toMatchObject({ reason: 'sold_out', remaining: 0 });
    for (const o of sold) expect((o as any).result.order).toMatchObject({ status: 'paid', total: 0 });
    expect(await count(`SELECT count(*)::int AS n FROM ticketing_tickets WHERE event_id = $1 AND status = 'active'`, [eventId])).toBe(10);
    const barcodes = (await harness.pool.query('SELECT barcode FROM ticketing_tickets WHERE event_id = $1', [eventId])).rows.map((r) => r.barcode as string);
    expect(new Set(barcodes).size).toBe(10);
    for (const code of barcodes) expect(code).toMatch(/^TKT-[A-Z2-7]{26}$/);
    const places = await availabilityOf(eventId);
    expect(places.pools[0]).toMatchObject({ kind: 'event', capacity: 10, sold: 10, pending: 0, held: 0, remaining: 0 });
  });

  it('never lets paid orders, holds and carts together pass a pool, and pays only on the signed webhook', async () => {
    const { eventId, typeId } = await newEvent('Carol concert', 10, 1_200);
    const hold = (await call(mcp, 'ticketing_create_hold', { ticketTypeId: typeId, quantity: 2, reason: 'Choir' })).hold;
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(clients[i % clients.length]!, 'ticketing_create_order', {
      eventId, items: [{ ticketTypeId: typeId, quantity: 1 }], buyerEmail: `b${i}@example.org`,
    })));
    const orders = outcomes.filter((o) => o.ok).map((o) => (o as any).result.order);
    expect(orders).toHaveLength(8);
    for (const order of orders) expect(order).toMatchObject({ status: 'pending', total: 1_200, checkoutUrl: expect.stringContaining('/checkout/cs_test_') });
    expect(await availabilityOf(eventId)).toMatchObject({ pools: [{ sold: 0, pending: 8, held: 2, remaining: 0 }] });
    expect((await refusal(mcp, 'ticketing_reserve_tickets', { eventId, items: [{ ticketTypeId: typeId, quantity: 1 }] })).details.reason).toBe('sold_out');

    // Paying at the provider is not enough: the order stays pending until the signed webhook arrives.
    const first = sandbox.sessions().find((s) => s.metadata.order_id === orders[0].id)!;
    const held = await sandbox.pay(first.id, { deliver: false });
    expect((await call(mcp, 'ticketing_get_order', { orderId: orders[0].id })).order.status).toBe('pending');
    // A forged webhook (wrong secret) and a tampered body are refused and change nothing.
    const forged = { ...held.webhook, headers: { ...held.webhook.headers, 'stripe-signature': paymentSignature('whsec_wrong', held.webhook.body, Math.floor(Date.now() / 1000)) } };
    expect((await sandbox.deliver(forged)).status).toBe(401);
    expect((await sandbox.deliver({ ...held.webhook, body: held.webhook.body.replace('"amount_total":1200', '"amount_total":1') })).status).toBe(401);
    expect((await sandbox.deliver({ ...held.webhook, headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect((await call(mcp, 'ticketing_get_order', { orderId: orders[0].id })).order.status).toBe('pending');
    // The real one pays it; its replay changes nothing.
    expect(JSON.parse((await sandbox.deliver(held.webhook)).body)).toMatchObject({ outcome: 'paid' });
    expect(JSON.parse((await sandbox.deliver(held.webhook)).body)).toMatchObject({ outcome: 'duplicate' });
    const paid = (await call(mcp, 'ticketing_get_order', { orderId: orders[0].id })).order;
    expect(paid).toMatchObject({ status: 'paid', checkoutUrl: null, tickets: [{ status: 'active', pricePaid: 1_200 }] });
    // Another event of the same session (a second delivery under a new id) finds it paid already.
    expect(JSON.parse((await sandbox.pay(first.id)).result!.body)).toMatchObject({ outcome: 'already_paid' });
    expect(await count('SELECT count(*)::int AS n FROM ticketing_tickets WHERE order_id = $1', [orders[0].id])).toBe(1);

    // The rest pay, in any order; releasing the hold frees exactly its two places.
    for (const order of orders.slice(1).reverse()) await sandbox.pay(sandbox.sessions().find((s) => s.metadata.order_id === order.id)!.id);
    expect(await availabilityOf(eventId)).toMatchObject({ pools: [{ sold: 8, pending: 0, held: 2, remaining: 0 }] });
    expect(await call(mcp, 'ticketing_release_hold', { holdId: hold.id })).toMatchObject({ alreadyReleased: false, hold: { status: 'released' } });
    expect(await call(mcp, 'ticketing_release_hold', { holdId: hold.id })).toMatchObject({ alreadyReleased: true });
    expect(await availabilityOf(eventId)).toMatchObject({ pools: [{ sold: 8, held: 0, remaining: 2 }] });
  });

  it('returns an expired cart\'s places exactly once, by its timer, and closes its checkout', async () => {
    const { eventId, typeId } = await newEvent('Quiz night', 4, 500);
    const { reservation } = await call(mcp, 'ticketing_reserve_tickets', { eventId, items: [{ ticketTypeId: typeId, quantity: 3 }], ttlSeconds: 10 });
    expect(reservation).toMatchObject({ status: 'pending', items: [{ quantity: 3, unitPrice: 500 }] });
    const { order } = await call(mcp, 'ticketing_create_order', { reservationId: reservation.id, buyerEmail: 'late@example.org' });
    expect(order).toMatchObject({ status: 'pending', total: 1_500, reservation: { id: reservation.id } });
    expect((await refusal(mcp, 'ticketing_create_order', { reservationId: reservation.id })).code).toBe('conflict');
    expect((await availabilityOf(eventId)).pools[0]).toMatchObject({ pending: 3, remaining: 1 });
    const after = await eventually(() => availabilityOf(eventId), (a) => a.pools[0].pending === 0, 40_000);
    expect(after.pools[0]).toMatchObject({ sold: 0, pending: 0, remaining: 4 });
    expect((await call(mcp, 'ticketing_get_order', { orderId: order.id })).order).toMatchObject({ status: 'cancelled', reservation: { status: 'expired' } });
    expect(sandbox.sessions().find((s) => s.id === sandbox.sessions().find((x) => x.metadata.order_id === order.id)!.id)!.status).toBe('expired');
    // A second expiry (a retried activity, a late timer) finds nothing to return.
    const again = await withTenantTransaction(harness.pool, org.orgId, (db) => expireReservation(db, org.orgId, reservation.id));
    expect(again).toEqual({ outcome: 'not_pending' });
    expect((await availabilityOf(eventId)).pools[0]).toMatchObject({ remaining: 4 });
    // The timer's change is in the trail once, with the system as its actor.
    const trail = (await call(mcp, 'audit_list_events', { targetId: reservation.id, actorKind: 'system' })).events;
    expect(trail).toEqual([expect.objectContaining({ action: 'ticketing.reservation.expire', tool: 'job:reservation_expiry', outcome: 'success' })]);
  });

  it('opens one checkout session per call, however many attempts prepare it; another call opens its own', async () => {
    const { eventId, typeId } = await newEvent('Harvest supper', 20, 800);
    const args = { eventId, items: [{ ticketTypeId: typeId, quantity: 2 }], buyerEmail: 'retry@example.org' };
    const sessions = () => sandbox.sessions().filter((s) => s.metadata.org_id === org.orgId && s.line_items[0]?.name === 'Harvest supper: Adult');
    // Two attempts of one call (the first died after its provider call): the same order id, session and expiry.
    const one = { workflowId: `test-call-${randomUUID()}`, startedAt: new Date(Math.floor(Date.now() / 1000) * 1000) };
    const first = await prepareAttempt(harness.pool, org, 'ticketing_create_order', args, one);
    const retried = await prepareAttempt(harness.pool, org, 'ticketing_create_order', args, one);
    expect(retried).toEqual(first);
    expect(first).toMatchObject({ total: 1_600, session: { id: expect.stringMatching(/^cs_test_/) } });
    expect(sessions().map((s) => [s.id, s.metadata.order_id, s.status])).toEqual([[first.session.id, first.orderId, 'open']]);
    // Another call with the same arguments is another order with a session of its own.
    const other = await prepareAttempt(harness.pool, org, 'ticketing_create_order', args, { ...one, workflowId: `test-call-${randomUUID()}` });
    expect(other.orderId).not.toBe(first.orderId);
    expect(other.session.id).not.toBe(first.session.id);
    expect(sessions()).toHaveLength(2);
  });

  it('keeps the session of an attempt that failed before its commit for the retry: one session, the order\'s, open', async () => {
    const { eventId, typeId } = await newEvent('Barn dance', 20, 900);
    const fault = await failNextInsertOnce(harness.pool, 'ticketing_orders', org.orgId);
    try {
      const { order } = await call(mcp, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity: 1 }], buyerEmail: 'dance@example.org' });
      // The first attempt's order insert failed (retried), the second's went in.
      expect(await fault.inserts()).toBe(2);
      expect(order).toMatchObject({ status: 'pending', total: 900 });
      const sessions = sandbox.sessions().filter((s) => s.metadata.org_id === org.orgId && s.line_items[0]?.name === 'Barn dance: Adult');
      expect(sessions.map((s) => [s.metadata.order_id, s.status, s.url])).toEqual([[order.id, 'open', order.checkoutUrl]]);
      expect((await availabilityOf(eventId)).pools[0]).toMatchObject({ pending: 1, remaining: 19 });
    } finally {
      await fault.remove();
    }
  });

  it('holds a promo code\'s use limit under concurrency and prices on the server', async () => {
    const { eventId, typeId } = await newEvent('Harvest supper', 100, 1_000);
    await call(mcp, 'ticketing_create_promo_code', { eventId, code: 'choir10', kind: 'percent', amount: 10, maxUses: 3 });
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(clients[i % clients.length]!, 'ticketing_create_order', {
      eventId, items: [{ ticketTypeId: typeId, quantity: 3 }], promoCode: 'CHOIR10',
    })));
    const ok = outcomes.filter((o) => o.ok).map((o) => (o as any).result.order);
    expect(ok).toHaveLength(3);
    for (const order of ok) expect(order).toMatchObject({ subtotal: 3_000, discount: 300, total: 2_700, promoCode: 'CHOIR10' });
    expect(outcomes.filter((o) => !o.ok).every((o) => (o as any).error.details?.reason === 'promo_used_up')).toBe(true);
    // Refused orders took no places.
    expect((await availabilityOf(eventId)).pools[0]).toMatchObject({ pending: 9 });
    expect((await refusal(mcp, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity: 1 }], promoCode: 'NOPE1' })).code).toBe('validation_failed');
    expect((await refusal(mcp, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity: 0 }] })).code).toBe('validation_failed');
  });

  it('refunds never exceed what was paid; a full refund voids tickets and returns places; big refunds need approval', async () => {
    const { eventId, typeId } = await newEvent('Ceilidh', 10, 2_500, { refundApprovalAbove: 4_000 });
    const { order } = await call(mcp, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity: 2 }], buyerName: 'Ann Reel' });
    await sandbox.pay(sandbox.sessions().find((s) => s.metadata.order_id === order.id)!.id);
    const paid = (await call(mcp, 'ticketing_get_order', { orderId: order.id })).order;
    expect(paid).toMatchObject({ status: 'paid', total: 5_000, refundable: 5_000 });
    // The whole order (5000) passes the threshold: a person approves.
    const gated = await refusal(mcp, 'ticketing_refund_order', { orderId: order.id });
    expect(gated.code).toBe('approval_required');
    // One ticket (2500) is under it: refunded at once, that ticket void, its place back.
    const one = await call(mcp, 'ticketing_refund_order', { orderId: order.id, ticketIds: [paid.tickets[0].id] });
    expect(one).toMatchObject({ refunded: 2_500, ticketsVoided: 1, order: { status: 'partially_refunded', refunded: 2_500, refundable: 2_500 } });
    expect((await refusal(mcp, 'ticketing_refund_order', { orderId: order.id, ticketIds: [paid.tickets[0].id] })).code).toBe('validation_failed');
    expect((await availabilityOf(eventId)).pools[0]).toMatchObject({ sold: 1, remaining: 9 });
    // The approved whole-order refund returns only what is left.
    const decided = await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    expect(decided).toMatchObject({ status: 'approved', execution: { status: 'succeeded' } });
    expect(decided.execution.result).toMatchObject({ refunded: 2_500, order: { status: 'refunded', refunded: 5_000, refundable: 0 } });
    expect(sandbox.refunds().filter((r) => r.payment_intent === sandbox.sessions().find((s) => s.metadata.order_id === order.id)!.payment_intent).reduce((sum, r) => sum + r.amount, 0)).toBe(5_000);
    expect((await refusal(mcp, 'ticketing_refund_order', { orderId: order.id })).code).toBe('conflict');
    expect((await availabilityOf(eventId)).pools[0]).toMatchObject({ sold: 0, remaining: 10 });

    // Five people refunding the same order at once: it is refunded once, for what was paid.
    const again = (await call(mcp, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity: 1 }] })).order;
    await sandbox.pay(sandbox.sessions().find((s) => s.metadata.order_id === again.id)!.id);
    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => attempt(clients[i]!, 'ticketing_refund_order', { orderId: again.id })));
    expect(racing.filter((o) => o.ok)).toHaveLength(1);
    expect(racing.filter((o) => !o.ok).map((o) => (o as any).error.code)).toEqual(['conflict', 'conflict', 'conflict', 'conflict']);
    const intent = sandbox.sessions().find((s) => s.metadata.order_id === again.id)!.payment_intent;
    expect(sandbox.refunds().filter((r) => r.payment_intent === intent).map((r) => r.amount)).toEqual([2_500]);
  });

  it('admits a barcode once, even scanned at two doors at once, and refuses a void one', async () => {
    const { eventId, typeId } = await newEvent('Nativity play', 10, 0);
    const { order } = await call(mcp, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity: 2 }], buyerName: 'Door Test' });
    const [a, b] = order.tickets;
    const scans = await Promise.all(Array.from({ length: 6 }, (_, i) => call(clients[i % clients.length]!, 'ticketing_check_in_ticket', { barcode: a.barcode, eventId })));
    expect(scans.filter((s) => s.outcome === 'checked_in')).toHaveLength(1);
    const first = scans.find((s) => s.outcome === 'checked_in')!.firstCheckedInAt;
    for (const scan of scans) expect(scan.firstCheckedInAt).toBe(first);
    // Attendance counts the ticket once (its extension point is filled): the admitting scan records it, the repeats do not.
    expect(scans.map((s) => [s.outcome, s.attendanceRecorded]).sort()).toEqual([['already_checked_in', false], ['already_checked_in', false], ['already_checked_in', false], ['already_checked_in', false], ['already_checked_in', false], ['checked_in', true]]);
    await call(mcp, 'ticketing_refund_order', { orderId: order.id, ticketIds: [b.id] });
    expect((await refusal(mcp, 'ticketing_check_in_ticket', { barcode: b.barcode })).details.reason).toBe('ticket_void');
    expect((await refusal(mcp, 'ticketing_check_in_ticket', { barcode: 'TKT-AAAAAAAAAAAAAAAAAAAAAAAAAA' })).code).toBe('not_found');
  });
  it('keeps the places of a checkout paid in time whose webhook comes after the reservation\'s end', async () => {
    const { eventId, typeId } = await newEvent('Advent breakfast', 2, 700);
    // Long enough for a loaded machine to make the order and pay before the time runs out.
    const { reservation } = await call(mcp, 'ticketing_reserve_tickets', { eventId, items: [{ ticketTypeId: typeId, quantity: 1 }], ttlSeconds: 12 });
    const { order } = await call(mcp, 'ticketing_create_order', { reservationId: reservation.id });
    // Paid at the provider before the time ran out; its webhook is held back past the reservation's end.
    const held = await sandbox.pay(sandbox.sessions().find((s) => s.metadata.order_id === order.id)!.id, { deliver: false });
    expect(Date.now()).toBeLessThan(Date.parse(reservation.expiresAt));
    // The timer runs out and asks the provider to close the session, which answers that it was paid.
    const timer = harness.temporal.workflow.getHandle(`ticketing-reservation-${reservation.id}`);
    const closed = async () => (await timer.fetchHistory()).events?.filter((e) => e.activityTaskCompletedEventAttributes).length ?? 0;
    await eventually(closed, (n) => n >= 1, 40_000);
    expect(sandbox.sessions().find((s) => s.metadata.order_id === order.id)!.status).toBe('complete');
    // So the places are kept, awaiting the signed word.
    expect((await call(mcp, 'ticketing_get_order', { orderId: order.id })).order).toMatchObject({ status: 'pending', reservation: { status: 'pending' } });
    expect((await availabilityOf(eventId)).pools[0]).toMatchObject({ pending: 1, remaining: 1 });
    expect(JSON.parse((await sandbox.deliver(held.webhook)).body).outcome).toBe('paid');
    expect((await call(mcp, 'ticketing_get_order', { orderId: order.id })).order).toMatchObject({ status: 'paid', reservation: { status: 'confirmed' }, tickets: [{ status: 'active' }] });
  });

  it('takes the places again for a payment that lands after its order expired, or refunds it in full when none are left', async () => {
    const { eventId, typeId } = await newEvent('Organ recital', 1, 1_000);
    const expireNow = async (orderId: string) => {
      const { rows } = await harness.pool.query('SELECT reservation_id FROM ticketing_orders WHERE id = $1', [orderId]);
      await harness.pool.query(`UPDATE ticketing_reservations SET expires_at = now() - interval '1 second' WHERE id = $1`, [rows[0].reservation_id]);
      // As if the provider's expiry had not reached it: the reservation runs out with the session still open.
      expect(await withTenantTransaction(harness.pool, org.orgId, (db) => expireReservation(db, org.orgId, rows[0].reservation_id))).toEqual({ outcome: 'expired', next: [] });
    };
    const first = (await call(mcp, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity: 1 }] })).order;
    await expireNow(first.id);
    expect((await call(mcp, 'ticketing_get_order', { orderId: first.id })).order.status).toBe('cancelled');
    expect(JSON.parse((await sandbox.pay(sandbox.sessions().find((s) => s.metadata.order_id === first.id)!.id)).result!.body).outcome).toBe('late_paid');
    expect((await call(mcp, 'ticketing_get_order', { orderId: first.id })).order).toMatchObject({ status: 'paid', tickets: [{ status: 'active' }] });

    // The one place is now sold: a second late payment cannot have it and is refunded in full.
    await call(mcp, 'ticketing_update_event', { eventId, capacity: 2 });
    const second = (await call(mcp, 'ticketing_create_order', { eventId, items: [{ ticketTypeId: typeId, quantity: 1 }] })).order;
    await expireNow(second.id);
    await call(mcp, 'ticketing_issue_comp_tickets', { eventId, ticketTypeId: typeId, quantity: 1, holderName: 'Organist' });
    const session = sandbox.sessions().find((s) => s.metadata.order_id === second.id)!;
    expect(JSON.parse((await sandbox.pay(session.id)).result!.body).outcome).toBe('late_refunded');
    expect((await call(mcp, 'ticketing_get_order', { orderId: second.id })).order).toMatchObject({ status: 'refunded', refunded: 1_000, tickets: [] });
    expect(sandbox.refunds().filter((r) => r.payment_intent === session.payment_intent).map((r) => r.amount)).toEqual([1_000]);
    expect((await availabilityOf(eventId)).pools[0]).toMatchObject({ sold: 2, remaining: 0 });
  });
});
