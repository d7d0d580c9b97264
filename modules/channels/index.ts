import { defineModule, withParts } from '../module';
import { createBroadcastActivities } from './activities/broadcast';
import { createChannelsDeliveryActivities } from './activities/delivery';
import { channelsWebhooks } from './webhooks/router';
import { audiencePart } from './audience/part';
import { broadcastsPart } from './broadcasts/part';
import { deliveryPart } from './delivery/part';

/**
 * Email, SMS and WhatsApp: who may be messaged on which channel for which purpose (consent,
 * suppression, quiet hours, the WhatsApp window), how one message leaves (the shared outbox, provider
 * adapters, signed callbacks) and broadcasts to an audience. Three parts, one module.
 */
export default defineModule(withParts({
  name: 'channels',
  title: 'Channels',
  description: 'Send email, SMS and WhatsApp to people who consented: sendability checks, single sends, broadcasts, consent and suppression records, senders.',
  tools: [],
  migrations: [],
  scopes: ['channels:read', 'channels:send'],
  routes: [],
  workflows: require.resolve('./workflows'),
  activities: [createChannelsDeliveryActivities, createBroadcastActivities],
  webhooks: [channelsWebhooks],
}, [audiencePart, deliveryPart, broadcastsPart]));
