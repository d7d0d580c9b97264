// Outreach approval queue: people_list_pending_outreach's messages, each with Approve and
// Decline buttons that call people_approve_outreach / people_decline_outreach through the host.
// The server decides: a changed contentVersion, a missing role or consent comes back as its error, shown on the card.
import { decisionBar, el, startWidget, when, type WidgetRuntime } from '../../widget-view.mjs';

interface Item {
  id: string;
  contactName: string;
  channel: string;
  recipient: string | null;
  subject: string | null;
  body: string;
  contentVersion: number;
  status: string;
  /** Set when an approved message's send was refused or failed: it was not sent. */
  sendError?: { code: string; message: string } | null;
  reason: string | null;
  crisisHold?: boolean;
  createdAt: string;
}

const CHANNEL_LABELS: Record<string, string> = { email: 'Email', sms: 'SMS', whatsapp: 'WhatsApp' };

function decisions(item: Item, runtime: WidgetRuntime, onDecided: (data: Record<string, unknown>) => void): HTMLElement {
  return decisionBar(runtime, [
    {
      label: 'Approve and send', action: 'approve', primary: true, tool: 'people_approve_outreach',
      // The version shown here: if someone edited the message since, the server refuses the approval.
      args: { outreachId: item.id, contentVersion: item.contentVersion },
      success: (data) => ((data.item as Item).status === 'sent' ? `Sent to ${item.contactName}` : `Approved (${(data.item as Item).status})`),
      // Approved but not sent is a failure to show, never a green "Approved": approving again retries the send.
      failure: (data) => {
        const sendError = (data.item as Item).sendError;
        return sendError ? `Approved but not sent: ${sendError.message}` : undefined;
      },
    },
    { label: 'Decline', action: 'decline', tool: 'people_decline_outreach', args: { outreachId: item.id }, success: () => 'Declined: it will not be sent' },
  ], onDecided);
}

function itemCard(item: Item, runtime: WidgetRuntime): HTMLElement {
  const badge = el('span', { class: 'badge', 'data-field': 'status' }, item.status);
  const article = el('article', { class: 'card', 'data-id': item.id, 'data-status': item.status },
    el('h2', {}, `${CHANNEL_LABELS[item.channel] ?? item.channel} to ${item.contactName} `, badge),
    item.recipient ? el('p', { class: 'muted' }, item.recipient) : null,
    // Shown on every held item, whoever queued it: approving it is refused until the hold is cleared.
    item.crisisHold ? el('p', { 'data-field': 'crisis-hold' }, el('strong', {}, 'On a crisis hold: nothing is sent until a staff member has reached them and cleared the hold.')) : null,
    item.reason ? el('p', { class: 'muted' }, `Why: ${item.reason}`) : null,
    item.subject ? el('p', {}, el('strong', {}, item.subject)) : null,
    el('blockquote', {}, item.body),
    el('p', { class: 'muted' }, `Queued ${when(item.createdAt)}`));
  if (item.status === 'pending_review') {
    article.appendChild(decisions(item, runtime, (data) => {
      const decided = data.item as Item;
      article.dataset.status = decided.status;
      badge.textContent = decided.sendError ? `${decided.status}, not sent` : decided.status;
    }));
  }
  return article;
}

function queue({ items }: { items: Item[] }, runtime: WidgetRuntime): Node {
  return el('section', {},
    el('h1', {}, 'Outreach queue'),
    items.length === 0 ? el('p', { class: 'muted' }, 'No messages to show.') : items.map((item) => itemCard(item, runtime)));
}

startWidget('steward-outreach-queue', queue);
