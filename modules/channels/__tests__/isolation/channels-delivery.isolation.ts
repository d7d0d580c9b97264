import { withTransaction } from '../../../../db/pool';
import { queueMessage } from '../../delivery/services';
import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/**
 * Channels delivery: B's key with A's message and contact. A's message is queued through the
 * service (not a send tool), so no dispatch changes its row while the probes compare snapshots.
 */
export const isolation: IsolationPart = {
  tables: ['channel_messages'],
  secrets: ['Apart rota note for Isolda'],
  async seed({ harness, a, ids }) {
    const queued = await withTransaction(harness.pool, (db) => queueMessage(db, a.orgId, {
      contactId: ids.contact, channel: 'email', purpose: 'service', subject: 'Rota', body: 'Apart rota note for Isolda',
      idempotencyKey: 'isolation-apart-message', usageTool: 'channels_send_email',
    }));
    return { channelsMessage: queued.messageId };
  },
  entries: {
    channels_get_message: [{ args: (i) => ({ messageId: i.channelsMessage }) }],
    channels_list_messages: [
      { args: () => ({}), outcome: 'no_leak' },
      { label: 'A\'s contact', args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' },
    ],
    channels_send_email: [{ args: (i) => ({ contactId: i.contact, purpose: 'service', subject: 'B', body: 'B body' }) }],
    channels_send_sms: [{ args: (i) => ({ contactId: i.contact, purpose: 'service', body: 'B body' }) }],
    channels_send_whatsapp: [{ args: (i) => ({ contactId: i.contact, purpose: 'service', body: 'B body' }) }],
    channels_get_usage: [{ args: () => ({}), outcome: 'no_leak' }],
  },
};
