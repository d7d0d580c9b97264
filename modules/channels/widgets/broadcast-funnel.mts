// Broadcast report: channels_get_broadcast's delivery funnel (audience, recipients, sent, delivered) and its status.
import { funnel } from '../../widget-svg-charts.mjs';
import { el, fields, startWidget } from '../../widget-view.mjs';

interface Report {
  broadcast: { id: string; name: string; channel: string; status: string; totalRecipients: number };
  recipients: { byStatus: Record<string, number> };
  messages: Record<string, number>;
  funnel: Array<{ stage: string; count: number }>;
}

const STAGE_LABELS: Record<string, string> = { audience: 'Audience', recipients: 'Recipients', sent: 'Sent', delivered: 'Delivered' };

function report(data: Report): Node {
  const { broadcast } = data;
  return el('article', { class: 'card', 'data-id': broadcast.id },
    el('h1', {}, broadcast.name),
    el('p', {}, el('span', { class: 'badge', 'data-field': 'status' }, broadcast.status.replace(/_/g, ' ')), el('span', { class: 'badge' }, broadcast.channel)),
    funnel({
      name: 'delivery-funnel', title: 'Delivery funnel',
      summary: `Delivery funnel of ${broadcast.name}: ${data.funnel.map((stage) => `${STAGE_LABELS[stage.stage] ?? stage.stage} ${stage.count}`).join(', ')}`,
      stages: data.funnel.map((stage) => ({ label: STAGE_LABELS[stage.stage] ?? stage.stage, count: stage.count })),
    }),
    fields([
      ['Skipped', data.recipients.byStatus.skipped || null],
      ['Failed', (data.recipients.byStatus.failed || 0) + (data.messages.failed || 0) || null],
      ['Undelivered', data.messages.undelivered || null],
      ['Waiting', (data.recipients.byStatus.pending || 0) + (data.recipients.byStatus.queued || 0) + (data.recipients.byStatus.deferred || 0) || null],
    ]));
}

startWidget('steward-broadcast-funnel', report);
