// A shop order: store_get_order, as a card with its statuses, a row per line and its refunds and downloads.
import { el, fields, money, startWidget } from '../../widget-view.mjs';

interface Line { id: string; title: string; sku: string; quantity: number; unitPrice: number; fulfilled: number; refunded: number }
interface Order {
  id: string; source: string; financialStatus: string; fulfilmentStatus: string; buyerName: string | null; currency: string;
  total: number; refunded: number; refundable: number; checkoutUrl: string | null; expiresAt: string | null; lines: Line[];
  downloads: Array<{ entitlementId: string; status: string; downloads: number; limit: number }>; paidAt: string | null;
}

function order(data: { order: Order }): Node {
  const o = data.order;
  return el('article', { class: 'card', 'data-id': o.id },
    el('h1', {}, o.buyerName ? `Order for ${o.buyerName}` : 'Shop order'),
    el('p', { class: 'badges' },
      el('span', { class: 'badge', 'data-field': 'financialStatus' }, o.financialStatus.replace('_', ' ')),
      el('span', { class: 'badge', 'data-field': 'fulfilmentStatus' }, o.fulfilmentStatus),
      el('span', { class: 'badge' }, o.source)),
    fields([
      ['Total', money(o.total, o.currency)],
      ['Refunded', o.refunded ? money(o.refunded, o.currency) : null],
      ['Refundable', o.refundable ? money(o.refundable, o.currency) : null],
      ['Paid', o.paidAt ? new Date(o.paidAt).toLocaleString() : null],
      ['Checkout open until', o.checkoutUrl && o.expiresAt ? new Date(o.expiresAt).toLocaleString() : null],
      ['Downloads', o.downloads.length ? o.downloads.map((d) => `${d.downloads}/${d.limit} ${d.status.replace('_', ' ')}`).join(', ') : null],
    ]),
    el('table', {},
      el('thead', {}, el('tr', {}, ['Item', 'SKU', 'Qty', 'Price', 'Handed over', 'Refunded'].map((heading) => el('th', {}, heading)))),
      el('tbody', {}, o.lines.map((line) => el('tr', { 'data-id': line.id },
        el('td', {}, line.title), el('td', {}, line.sku), el('td', {}, String(line.quantity)), el('td', {}, money(line.unitPrice, o.currency)),
        el('td', {}, String(line.fulfilled)), el('td', {}, String(line.refunded)))))));
}

startWidget('store-order', order);
