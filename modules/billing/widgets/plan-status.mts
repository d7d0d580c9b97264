// The organisation's plan: billing_get_plan_status, as a card with usage against each allowance and cap.
import { el, fields, startWidget } from '../../widget-view.mjs';

interface Usage { feature: string; used: number; limit: number | null; remaining: number | null; period: string; capUnits: number | null; capPercent: number | null; alertLevel: number | null }
interface Status {
  subscription: { planCode: string; status: string; billed: boolean; currentPeriodEnd: string | null; cancelAtPeriodEnd: boolean };
  entitlements: { reason: string; marketingSends: boolean; readOnly: boolean };
  usage: Usage[];
}

const label = (text: string) => text.replace(/_/g, ' ');

function status(data: Status): Node {
  const { subscription, entitlements } = data;
  const metered = data.usage.filter((row) => row.limit !== null || row.capUnits !== null);
  return el('article', { class: 'card', 'data-id': subscription.planCode },
    el('h1', {}, `${subscription.planCode} plan`),
    el('p', { class: 'badges' },
      el('span', { class: 'badge', 'data-field': 'status' }, label(subscription.status)),
      subscription.cancelAtPeriodEnd ? el('span', { class: 'badge', 'data-field': 'cancel' }, 'cancels at period end') : null),
    fields([
      ['Renews', subscription.billed && subscription.currentPeriodEnd && !subscription.cancelAtPeriodEnd ? subscription.currentPeriodEnd.slice(0, 10) : null],
      ['Ends', subscription.cancelAtPeriodEnd && subscription.currentPeriodEnd ? subscription.currentPeriodEnd.slice(0, 10) : null],
      ['Marketing sends', entitlements.marketingSends ? null : 'paused'],
      ['Read-only', entitlements.readOnly ? 'yes' : null],
    ]),
    el('p', { class: 'muted', 'data-field': 'reason' }, entitlements.reason),
    el('table', {},
      el('thead', {}, el('tr', {}, ['Feature', 'Used', 'Allowance', 'Cap'].map((heading) => el('th', {}, heading)))),
      el('tbody', {}, metered.map((row) => el('tr', { 'data-id': row.feature },
        el('td', {}, label(row.feature)), el('td', {}, String(row.used)), el('td', {}, row.limit === null ? 'no limit' : String(row.limit)),
        el('td', {}, row.capUnits === null ? '' : `${row.capUnits} (${row.capPercent}%)`))))));
}

startWidget('billing-plan-status', status);
