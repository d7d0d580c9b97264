import type { ModulePart } from '../../module';
import { channelMessages } from './migrations/2026.11.24T11.00.00.channel-messages';
import { channelMessagesActualCost } from './migrations/2026.11.25T01.00.00.channel-messages-actual-cost';
import { channelEmailEvents } from './migrations/2026.11.29T11.00.01.channels-email-events';
import { channelMessagesEmailKeyIndex } from './migrations/2026.11.29T17.00.00.channels-email-key-index';
import { deliveryModels } from './models/messages';
import { channelMessageDelivery } from './source';
import { deliveryTools } from './tools';

/**
 * The delivery part of the channels module (joined in ../index.ts): one message to one contact on
 * one channel, queued with its rendered snapshot and dispatched through the shared outbox
 * (`channels.message`), with its status following the provider's signed callbacks (webhooks/router.ts).
 */
export const deliveryPart: ModulePart = {
  name: 'delivery',
  tools: deliveryTools,
  models: [...deliveryModels],
  migrations: [channelMessages, channelMessagesActualCost, channelEmailEvents, channelMessagesEmailKeyIndex],
  outboxSources: [channelMessageDelivery],
  // A message's snapshot holds personal data (the address, a greeting with the name): erased with the contact.
  contactRefs: [{ table: 'channel_messages', column: 'contact_id', onMerge: 'move', onErase: 'delete' }],
  // Providers redeliver within hours or days; 90 days of remembered events covers every redelivery, and
  // a status older than that cannot move a message backwards anyway.
  retention: [{
    name: 'channelWebhookEvents',
    purge: async (db) => (await db.query("DELETE FROM channel_webhook_events WHERE received_at < now() - interval '90 days'")).rowCount ?? 0,
  }],
};
