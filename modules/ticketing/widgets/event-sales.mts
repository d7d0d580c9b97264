// An event's sales: ticketing_get_sales_report, as a card with a row per ticket type.
import { el, fields, money, startWidget } from '../../widget-view.mjs';

interface TypeRow { ticketTypeId: string; name: string; price: number; sold: number; comps: number; pending: number; held: number; remaining: number | null; gross: number; checkedIn: number }
interface Report {
  eventId: string; title: string; status: string; currency: string;
  totals: { ordersPaid: number; ordersPending: number; ticketsSold: number; compTickets: number; checkedIn: number; gross: number; discounts: number; refunded: number; net: number };
  byType: TypeRow[];
  promoCodes: Array<{ code: string; uses: number; maxUses: number | null }>;
  waitlist: { waiting: number; offered: number };
}

function report(data: Report): Node {
  const { totals, currency } = data;
  return el('article', { class: 'card', 'data-id': data.eventId },
    el('h1', {}, data.title),
    el('p', { class: 'badges' }, el('span', { class: 'badge', 'data-field': 'status' }, data.status.replace('_', ' '))),
    fields([
      ['Tickets sold', totals.ticketsSold],
      ['Complimentary', totals.compTickets || null],
      ['Awaiting payment', totals.ordersPending || null],
      ['Checked in', totals.checkedIn],
      ['Takings', money(totals.gross, currency)],
      ['Discounts', totals.discounts ? money(totals.discounts, currency) : null],
      ['Refunded', totals.refunded ? money(totals.refunded, currency) : null],
      ['Net', money(totals.net, currency)],
      ['Waitlist', data.waitlist.waiting + data.waitlist.offered || null],
    ]),
    el('table', {},
      el('thead', {}, el('tr', {}, ['Type', 'Price', 'Sold', 'Held', 'Left'].map((heading) => el('th', {}, heading)))),
      el('tbody', {}, data.byType.map((row) => el('tr', { 'data-id': row.ticketTypeId },
        el('td', {}, row.name), el('td', {}, money(row.price, currency)), el('td', {}, String(row.sold + row.comps)),
        el('td', {}, String(row.held)), el('td', {}, row.remaining === null ? 'no limit' : String(row.remaining)))))),
    data.promoCodes.length > 0
      ? el('p', { class: 'muted' }, `Promo codes: ${data.promoCodes.map((p) => `${p.code} ${p.uses}${p.maxUses ? `/${p.maxUses}` : ''}`).join(', ')}`)
      : null);
}

startWidget('ticketing-event-sales', report);
