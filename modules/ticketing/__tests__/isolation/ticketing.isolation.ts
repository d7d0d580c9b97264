import { startingIn } from '../../../../test/helpers/service-times';
import type { IsolationPart } from '../../../../test/e2e/isolation/part';

const soon = () => new Date(Date.now() + 20 * 86_400_000).toISOString();

/** Ticketing: B's key with A's events, ticket types, holds, reservations, orders, tickets (barcodes), promo codes and waitlist. */
export const isolation: IsolationPart = {
  tables: ['contacts'],
  secrets: ['Apart concert', 'Apart door guest', 'APARTCODE', 'apart-buyer@a.example'],
  async seed({ harness, a, ids }) {
    const call = (tool: string, args: Record<string, unknown>) => harness.call(a.apiKey, tool, args);
    const instance = (await call('schedule_create_series', { title: 'Apart ticketed service', rrule: 'FREQ=WEEKLY', ...startingIn(600, 'Europe/London'), durationMinutes: 60, timeZone: 'Europe/London' })).upcoming[0];
    const { event } = await call('ticketing_create_event', { title: 'Apart concert', startsAt: soon(), timeZone: 'Europe/London', currency: 'GBP', capacity: 50, sharedPools: [{ name: 'Apart balcony', capacity: 10 }] });
    const { ticketType } = await call('ticketing_create_ticket_type', { eventId: event.id, name: 'Apart free', price: 0 });
    await call('ticketing_publish_event', { eventId: event.id });
    const hold = (await call('ticketing_create_hold', { ticketTypeId: ticketType.id, quantity: 2, reason: 'Apart choir' })).hold;
    const reservation = (await call('ticketing_reserve_tickets', { eventId: event.id, items: [{ ticketTypeId: ticketType.id, quantity: 1 }], ttlSeconds: 86_400 })).reservation;
    const { order } = await call('ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: ticketType.id, quantity: 2 }], buyerName: 'Apart door guest', buyerEmail: 'apart-buyer@a.example', contactId: ids.contact });
    const promo = (await call('ticketing_create_promo_code', { eventId: event.id, code: 'APARTCODE', kind: 'percent', amount: 10 })).promoCode;
    const entry = (await call('ticketing_join_waitlist', { eventId: event.id, ticketTypeId: ticketType.id, contactId: ids.contact })).entry;
    return {
      ticketingEvent: event.id, ticketingType: ticketType.id, ticketingHold: hold.id, ticketingReservation: reservation.id, ticketingOrder: order.id,
      ticketingTicket: order.tickets[0].id, ticketingBarcode: order.tickets[0].barcode, ticketingPromo: promo.id, ticketingEntry: entry.id,
      ticketingPool: event.pools[0].id, ticketingInstance: instance.id,
    };
  },
  entries: {
    ticketing_create_event: [
      { args: (i) => ({ title: 'B event', startsAt: soon(), timeZone: 'Europe/London', currency: 'GBP', scheduleInstanceId: i.ticketingInstance }) },
    ],
    ticketing_update_event: [{ args: (i) => ({ eventId: i.ticketingEvent, title: 'Taken over' }) }],
    ticketing_publish_event: [{ args: (i) => ({ eventId: i.ticketingEvent }) }],
    ticketing_cancel_event: [{ args: (i) => ({ eventId: i.ticketingEvent }) }],
    ticketing_create_ticket_type: [{ args: (i) => ({ eventId: i.ticketingEvent, name: 'B type', price: 0 }) }],
    ticketing_update_ticket_type: [{ args: (i) => ({ ticketTypeId: i.ticketingType, price: 1 }) }],
    ticketing_get_availability: [{ args: (i) => ({ eventId: i.ticketingEvent }) }],
    ticketing_create_hold: [{ args: (i) => ({ ticketTypeId: i.ticketingType, quantity: 1, reason: 'B' }) }],
    ticketing_release_hold: [{ args: (i) => ({ holdId: i.ticketingHold }) }],
    ticketing_reserve_tickets: [{ args: (i) => ({ eventId: i.ticketingEvent, items: [{ ticketTypeId: i.ticketingType, quantity: 1 }] }) }],
    ticketing_create_order: [
      { args: (i) => ({ reservationId: i.ticketingReservation }) },
      { label: 'items', args: (i) => ({ eventId: i.ticketingEvent, items: [{ ticketTypeId: i.ticketingType, quantity: 1 }] }) },
    ],
    ticketing_get_order: [{ args: (i) => ({ orderId: i.ticketingOrder }) }],
    ticketing_list_orders: [{ args: (i) => ({ eventId: i.ticketingEvent, contactId: i.contact }), outcome: 'no_leak' }],
    ticketing_issue_comp_tickets: [{ args: (i) => ({ eventId: i.ticketingEvent, ticketTypeId: i.ticketingType, quantity: 1 }) }],
    ticketing_refund_order: [
      { args: (i) => ({ orderId: i.ticketingOrder }) },
      { label: 'tickets', args: (i) => ({ orderId: i.ticketingOrder, ticketIds: [i.ticketingTicket] }) },
    ],
    ticketing_create_promo_code: [{ args: (i) => ({ eventId: i.ticketingEvent, code: 'BCODE', kind: 'fixed', amount: 100 }) }],
    ticketing_join_waitlist: [{ args: (i) => ({ eventId: i.ticketingEvent, ticketTypeId: i.ticketingType, email: 'b@b.example' }) }],
    ticketing_offer_waitlist_spots: [{ args: (i) => ({ eventId: i.ticketingEvent }) }],
    ticketing_check_in_ticket: [
      { args: (i) => ({ barcode: i.ticketingBarcode }) },
      { label: 'event', args: (i) => ({ barcode: i.ticketingBarcode, eventId: i.ticketingEvent }) },
    ],
    ticketing_get_sales_report: [{ args: (i) => ({ eventId: i.ticketingEvent }) }],
    ticketing_export_attendees: [{ args: (i) => ({ eventId: i.ticketingEvent }) }],
  },
};
