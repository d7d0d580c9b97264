// Campaign report: grow_get_campaign_report's funnel (recipients, handed, opened, clicked), what went wrong (bounces, complaints, unsubscribes), links and A/B variants.
import { funnel } from '../../widget-svg-charts.mjs';
import { el, fields, startWidget } from '../../widget-view.mjs';

interface Variant {
  variant: number; recipients: number; handed: number; skipped: number; openedUnique: number; machineOpens: number; clickedUnique: number;
  clicksPerLink: Array<{ url: string; uniqueClicks: number }>; unsubscribed: number; delivered: number; hardBounced: number; softBounced: number; complained: number;
}
interface Report {
  campaign: { id: string; name: string; status: string; subject: string; abTest: { variable: string; winner: number | null; winnerBy: string | null } | null };
  totals: Variant;
  variants: Variant[];
  excluded: Array<{ reason: string; count: number }>;
}

const letter = (position: number) => String.fromCharCode(65 + position);

function variantRow(v: Variant, winner: number | null): HTMLElement {
  return el('tr', { 'data-variant': String(v.variant) },
    el('th', { scope: 'row' }, `${letter(v.variant)}${winner === v.variant ? ' (winner)' : ''}`),
    [v.handed, v.openedUnique, v.clickedUnique, v.hardBounced + v.softBounced, v.complained].map((n) => el('td', {}, n.toLocaleString())));
}

function report(data: Report): Node {
  const { campaign, totals } = data;
  const winner = campaign.abTest?.winner ?? null;
  return el('article', { class: 'card', 'data-id': campaign.id },
    el('h1', {}, campaign.name),
    el('p', {}, el('span', { class: 'badge', 'data-field': 'status' }, campaign.status), ' ', campaign.subject),
    funnel({
      name: 'campaign-funnel', title: 'Who it reached',
      summary: `${campaign.name}: ${totals.recipients} recipients, ${totals.handed} sent, ${totals.openedUnique} opened, ${totals.clickedUnique} clicked`,
      stages: [
        { label: 'Recipients', count: totals.recipients }, { label: 'Sent', count: totals.handed },
        { label: 'Opened', count: totals.openedUnique }, { label: 'Clicked', count: totals.clickedUnique },
      ],
    }),
    fields([
      ['Skipped', totals.skipped || null],
      ['Delivered (reported by the mail provider)', totals.delivered || null],
      ['Machine opens (not counted)', totals.machineOpens || null],
      ['Hard bounces', totals.hardBounced || null],
      ['Soft bounces', totals.softBounced || null],
      ['Complaints', totals.complained || null],
      ['Unsubscribed', totals.unsubscribed || null],
      ...data.excluded.map((e) => [`Left out: ${e.reason.replace(/_/g, ' ')}`, e.count] as const),
    ]),
    totals.clicksPerLink.length > 0 && el('ul', { class: 'links' }, totals.clicksPerLink.map((link) => el('li', {}, `${link.url}: ${link.uniqueClicks.toLocaleString()}`))),
    data.variants.length > 0 && el('table', { class: 'variants' },
      el('caption', {}, `A/B test of the ${campaign.abTest?.variable.replace(/_/g, ' ') ?? 'variants'}${campaign.abTest?.winnerBy ? `, decided by ${campaign.abTest.winnerBy.replace(/_/g, ' ')}` : ''}`),
      el('thead', {}, el('tr', {}, ['Variant', 'Sent', 'Opened', 'Clicked', 'Bounced', 'Complaints'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, data.variants.map((v) => variantRow(v, winner)))));
}

startWidget('steward-campaign-report', report);
