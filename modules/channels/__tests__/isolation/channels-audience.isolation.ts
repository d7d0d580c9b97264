import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Channels audience: B's key with A's contact, consent records, suppression and email sender. */
export const isolation: IsolationPart = {
  tables: ['channel_consents', 'channel_suppressions', 'channel_senders', 'channel_settings'],
  secrets: ['Isolda agreed on the Apart welcome card', 'apart-suppressed@a.example', 'mail.apart.example'],
  async seed({ harness, a, ids }) {
    await harness.call(a.apiKey, 'channels_record_consent', {
      contactId: ids.contact, channel: 'email', purpose: 'marketing', source: 'Apart welcome card', wording: 'Isolda agreed on the Apart welcome card',
    });
    const suppression = (await harness.call(a.apiKey, 'channels_add_suppression', { channel: 'email', address: 'apart-suppressed@a.example' })).suppression.id;
    const sender = (await harness.call(a.apiKey, 'channels_create_sender', { channel: 'email', address: 'mail.apart.example' })).sender.id;
    return { channelsSuppression: suppression, channelsSender: sender };
  },
  entries: {
    channels_check_sendability: [{ args: (i) => ({ contactId: i.contact, channel: 'email', purpose: 'marketing' }), outcome: 'no_leak' }],
    channels_record_consent: [{ args: (i) => ({ contactId: i.contact, channel: 'email', purpose: 'marketing', source: 'B form', wording: 'B wording' }) }],
    channels_withdraw_consent: [{ args: (i) => ({ contactId: i.contact, channel: 'email' }) }],
    channels_list_consents: [{ args: (i) => ({ contactId: i.contact }) }, { label: 'unfiltered', args: () => ({}), outcome: 'no_leak' }],
    channels_list_suppressions: [{ args: () => ({}), outcome: 'no_leak' }],
    channels_remove_suppression: [{
      args: (i) => ({ suppressionId: i.channelsSuppression, consent: { contactId: i.bContact, purpose: 'service', source: 'B', wording: 'B wording' } }),
    }, {
      label: 'A\'s contact', args: (i) => ({ suppressionId: i.channelsSuppression, consent: { contactId: i.contact, purpose: 'service', source: 'B', wording: 'B wording' } }),
    }],
    channels_get_whatsapp_window: [{ args: (i) => ({ contactId: i.contact }) }],
    channels_list_senders: [{ args: () => ({}), outcome: 'no_leak' }],
    channels_verify_sender_domain: [{ args: (i) => ({ senderId: i.channelsSender }) }],
  },
};
