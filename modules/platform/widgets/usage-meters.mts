// Usage meters: platform_usage's features as bars of used against the plan's allowance.
import { el, startWidget } from '../../widget-view.mjs';

interface Feature {
  feature: string;
  used: number;
  limit: number | null;
  remaining: number | null;
  period: 'month' | 'standing';
}

/** `email_sends` reads as "Email sends". */
function featureLabel(feature: string): string {
  const words = feature.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Near the allowance is worth a glance before a big send or import. */
function levelOf(used: number, limit: number): 'ok' | 'high' | 'full' {
  if (used >= limit) return 'full';
  return used / limit >= 0.8 ? 'high' : 'ok';
}

function meter(feature: Feature): HTMLElement {
  const label = featureLabel(feature.feature);
  const period = feature.period === 'month' ? 'this month' : 'held now';
  if (feature.limit === null) {
    return el('li', { 'data-feature': feature.feature, 'data-level': 'unlimited' }, el('span', { class: 'label' }, label), el('span', { class: 'figures' }, `${feature.used} ${period}, no limit`));
  }
  const level = levelOf(feature.used, feature.limit);
  return el('li', { 'data-feature': feature.feature, 'data-level': level },
    el('span', { class: 'label' }, label),
    el('meter', { min: '0', max: String(feature.limit), high: String(Math.floor(feature.limit * 0.8)), value: String(Math.min(feature.used, feature.limit)), 'aria-label': label }),
    el('span', { class: 'figures' }, `${feature.used} of ${feature.limit} ${period} (${feature.remaining ?? 0} left)`));
}

function meters({ plan, features }: { plan: string; features: Feature[] }): Node {
  return el('section', {},
    el('h1', {}, 'Usage and allowances'),
    el('p', { class: 'muted', 'data-field': 'plan' }, `Plan: ${plan}`),
    el('ul', { class: 'meters' }, features.map(meter)));
}

startWidget('steward-usage-meters', meters);
