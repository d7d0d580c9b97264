import { defineModule, withParts } from '../module';
import { createBroadcastActivities } from './activities/broadcast';
import { createChannelsDeliveryActivities } from './activities/delivery';
import { channelsWebhooks } from './webhooks/router';
import { checkRecipient } from './audience/services';
import { applyContactConsentFields, recordBulkWhatsappOptIn } from './audience/people-sync';
import { audiencePart } from './audience/part';
import { recordPastoralSend } from './broadcasts/pastoral';
import { countScheduledBroadcastsUsingTemplate } from './broadcasts/usage';
import { broadcastsPart } from './broadcasts/part';
import { deliveryPart } from './delivery/part';
import { listMessages } from './delivery/services';
import { channelsWidgets } from './widgets';

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
  // Every email the outbox sends counts one email_send; an SMS or WhatsApp message its units of messaging credit.
  meters: [
    { feature: 'email_sends', allowances: { starter: 2000, growth: 25000, enterprise: 500000 } },
    { feature: 'messaging_credits', allowances: { starter: 200, growth: 2000, enterprise: 50000 } },
  ],
  routes: [],
  widgets: channelsWidgets,
  workflows: require.resolve('./workflows'),
  activities: [createChannelsDeliveryActivities, createBroadcastActivities],
  webhooks: [channelsWebhooks],
  uses: ['platform', 'people', 'templates', 'audit'],
  contributes: {
    // Consent records are the truth; people's old contact fields are written through to them.
    peopleContactConsent: { contactWritten: applyContactConsentFields, bulkWhatsappOptIn: recordBulkWhatsappOptIn },
    // Pastoral outreach is checked and recorded exactly as channels' own messages are.
    peopleOutreachDelivery: { checkRecipient: (db, orgId, input) => checkRecipient(db, orgId, input), recordSend: recordPastoralSend },
    // A template is not archived while a broadcast still needs it.
    templatesInUse: { countUsing: countScheduledBroadcastsUsingTemplate },
    // A contact's profile lists the messages sent to them.
    peopleContactMessages: {
      list: async (db, orgId, contactId, options) => (await listMessages(db, orgId, { contactId, channel: options.channel as never, limit: options.limit })).items.map((message) => ({
        id: message.id, channel: message.channel, purpose: message.purpose, status: message.status, subject: message.subject,
        preview: message.body.slice(0, 160), recipientAddress: message.recipientAddress, createdAt: message.createdAt, sentAt: message.sentAt,
      })),
    },
  },
}, [audiencePart, deliveryPart, broadcastsPart]));
