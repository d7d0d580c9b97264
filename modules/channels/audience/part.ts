import type { ModulePart } from '../../module';
import { channelsAudience } from './migrations/2026.11.24T10.00.00.channels-audience';
import { channelsConsentFromContacts } from './migrations/2026.11.24T10.00.01.channels-consent-from-contacts';
import { audienceModels } from './models';
import { audienceTools } from './tools';

/** The audience part of the channels module (joined in ../index.ts): consent, suppression, senders, the WhatsApp window, quiet hours. */
export const audiencePart: ModulePart = {
  name: 'audience',
  tools: audienceTools,
  models: [...audienceModels],
  migrations: [channelsAudience, channelsConsentFromContacts],
  contactRefs: [{ table: 'channel_consents', column: 'contact_id', onMerge: 'move', onErase: 'delete' }],
  // A window is only ever read within 24 hours of the message that opened it; a week's margin, then the address goes.
  retention: [{
    name: 'channelInboundWindows',
    purge: async (db) => (await db.query("DELETE FROM channel_inbound_windows WHERE last_inbound_at < now() - interval '7 days'")).rowCount ?? 0,
  }],
};
