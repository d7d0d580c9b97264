import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { stableUuid } from '../../kernel/payments';
import { eventRow } from './events';
import { orderRow, orderView, requireProvider, type OrderRow, type OrderView } from './sales';

export interface RefundInput { orderId: string; ticketIds?: string[]; reason?: string }

/** What a refund would return: one ticket's worth per ticket named, or all that is left of the order. Refuses what cannot be refunded. */
export async function refundPlan(db: Queryable, orgId: string, order: OrderRow, ticketIds: readonly string[] | undefined): Promise<{ amount: number; ticketIds: string[]; full: boolean }> {
  if (order.status !== 'paid' && order.status !== 'partially_refunded') {
    throw new StewardError('conflict', `Order ${order.id} is ${order.status}: only a paid order can be refunded`, {
      hint: order.status === 'pending' ? 'A pending order has taken no money; its reservation lapses by itself.' : undefined, details: { reason: `order_${order.status}` },
    });
  }
  const left = order.total_minor - order.refunded_minor;
  const live = await queryRows<{ id: string; price_paid_minor: number; status: string }>(db,
    `SELECT id, price_paid_minor, status FROM ticketing_tickets WHERE org_id = $1 AND order_id = $2 AND status <> 'void' ORDER BY created_at, id`, [orgId, order.id]);
  if (!ticketIds || ticketIds.length === 0) return { amount: left, ticketIds: live.map((ticket) => ticket.id), full: true };
  const unique = [...new Set(ticketIds)];
  const chosen = unique.map((id) => live.find((ticket) => ticket.id === id));
  const missing = unique.find((_, index) => !chosen[index]);
  if (missing) {
    throw new StewardError('validation_failed', `Ticket ${missing} is not a live ticket of this order`, { issues: [{ path: 'ticketIds', message: 'already refunded, or of another order' }] });
  }
  const amount = Math.min(left, chosen.reduce((sum, ticket) => sum + ticket!.price_paid_minor, 0));
  return { amount, ticketIds: unique, full: unique.length === live.length };
}

/** Whether this refund needs a person's approval: its amount passes the event's threshold. Read-only. */
export async function refundNeedsApproval(db: Queryable, orgId: string, args: Record<string, unknown>): Promise<boolean> {
  const order = await queryOne<OrderRow>(db, 'SELECT * FROM ticketing_orders WHERE org_id = $1 AND id = $2', [orgId, String(args.orderId)]);
  if (!order || (order.status !== 'paid' && order.status !== 'partially_refunded')) return false;
  const event = await eventRow(db, orgId, order.event_id);
  const plan = await refundPlan(db, orgId, order, Array.isArray(args.ticketIds) ? args.ticketIds as string[] : undefined).catch(() => null);
  return plan !== null && plan.amount > event.refund_approval_above_minor;
}

/**
 * Refunds an order in full or ticket by ticket: never more than was paid and not yet refunded.
 * The money goes back through the payment provider (keyed by the call, so a retry never refunds
 * twice); the refunded tickets are voided, so their places return to sale at once.
 */
export async function refundOrder(db: Queryable, orgId: string, userId: string | null, workflowId: string, input: RefundInput): Promise<{ order: OrderView; refunded: number; ticketsVoided: number }> {
  const order = await orderRow(db, orgId, input.orderId, { forUpdate: true });
  const plan = await refundPlan(db, orgId, order, input.ticketIds);
  if (plan.amount > order.total_minor - order.refunded_minor) throw new Error('refund would pass what was paid');
  const refundId = stableUuid(`${workflowId}:ticketing-refund:${order.id}`);
  let providerRefundId: string | null = null;
  if (plan.amount > 0) {
    if (!order.payment_intent_id) throw new StewardError('conflict', `Order ${order.id} has no provider payment to refund`);
    const refund = await requireProvider().refund({ paymentIntentId: order.payment_intent_id, amountMinor: plan.amount, idempotencyKey: `ticketing-refund-${refundId}`, metadata: { steward_module: 'ticketing', org_id: orgId, order_id: order.id } });
    if (refund.status === 'failed') throw new StewardError('conflict', 'The payment provider could not make the refund', { hint: 'Try again later, or refund outside Steward and record it.' });
    providerRefundId = refund.id;
  }
  const voided = await db.query(`UPDATE ticketing_tickets SET status = 'void', voided_at = now() WHERE org_id = $1 AND order_id = $2 AND id = ANY($3::uuid[]) AND status <> 'void'`,
    [orgId, order.id, plan.ticketIds]);
  const refunded = order.refunded_minor + plan.amount;
  const stillLive = (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM ticketing_tickets WHERE org_id = $1 AND order_id = $2 AND status <> 'void'`, [orgId, order.id]))!.n;
  const status = stillLive === 0 && refunded === order.total_minor ? 'refunded' : 'partially_refunded';
  await db.query('UPDATE ticketing_orders SET refunded_minor = $3, status = $4, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, order.id, refunded, status]);
  await db.query('INSERT INTO ticketing_refunds (id, org_id, order_id, amount_minor, ticket_ids, reason, provider_refund_id, created_by_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [refundId, orgId, order.id, plan.amount, plan.ticketIds, input.reason ?? null, providerRefundId, userId]);
  return { order: await orderView(db, orgId, order.id), refunded: plan.amount, ticketsVoided: voided.rowCount ?? 0 };
}

/**
 * Cancels an event: every paid order refunded in full through the provider, every ticket voided,
 * pending reservations and waitlist offers ended, holds released, the waitlist closed.
 */
export async function cancelEvent(db: Queryable, orgId: string, userId: string | null, workflowId: string, eventId: string, reason: string | undefined) {
  const event = await eventRow(db, orgId, eventId, { forUpdate: true });
  if (event.status === 'cancelled') throw new StewardError('conflict', `${event.title} was cancelled already`);
  if (event.status === 'completed') throw new StewardError('conflict', `${event.title} has taken place`);
  const paid = await queryRows<{ id: string }>(db, `SELECT id FROM ticketing_orders WHERE org_id = $1 AND event_id = $2 AND status IN ('paid', 'partially_refunded') ORDER BY created_at, id`, [orgId, eventId]);
  let refundedTotal = 0;
  for (const order of paid) {
    const result = await refundOrder(db, orgId, userId, workflowId, { orderId: order.id, reason: reason ?? `${event.title} was cancelled` });
    refundedTotal += result.refunded;
  }
  const pending = await db.query(`UPDATE ticketing_orders SET status = 'cancelled', cancel_reason = 'event cancelled', updated_at = now() WHERE org_id = $1 AND event_id = $2 AND status = 'pending' RETURNING checkout_session_id`, [orgId, eventId]);
  for (const row of pending.rows as Array<{ checkout_session_id: string | null }>) {
    if (row.checkout_session_id) await requireProvider().expireCheckoutSession(row.checkout_session_id).catch(() => undefined);
  }
  await db.query(`UPDATE ticketing_reservations SET status = 'cancelled', ended_at = now() WHERE org_id = $1 AND event_id = $2 AND status = 'pending'`, [orgId, eventId]);
  await db.query(`UPDATE ticketing_holds SET status = 'released', released_at = now() WHERE org_id = $1 AND event_id = $2 AND status = 'active'`, [orgId, eventId]);
  await db.query(`UPDATE ticketing_tickets SET status = 'void', voided_at = now() WHERE org_id = $1 AND event_id = $2 AND status <> 'void'`, [orgId, eventId]);
  await db.query(`UPDATE ticketing_waitlist_entries SET status = 'removed', updated_at = now() WHERE org_id = $1 AND event_id = $2 AND status IN ('waiting', 'offered')`, [orgId, eventId]);
  await db.query(`UPDATE ticketing_events SET status = 'cancelled', cancelled_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, eventId]);
  return { ordersRefunded: paid.length, refundedTotal, pendingOrdersCancelled: pending.rowCount ?? 0, currency: event.currency };
}
