import type { ModulePart } from '../../module';
import { channelsBroadcasts } from './migrations/2026.11.24T13.00.00.channels-broadcasts';
import { broadcastTemplateVersion } from './migrations/2026.11.27T22.00.00.broadcast-template-version';
import { broadcastModels } from './models/broadcasts';
import { broadcastTools } from './tools';

/** The broadcasts part of the channels module (joined in ../index.ts): preview, approval, throttled sending, cancel. */
export const broadcastsPart: ModulePart = {
  name: 'broadcasts',
  tools: broadcastTools,
  models: [...broadcastModels],
  migrations: [channelsBroadcasts, broadcastTemplateVersion],
  contactRefs: [
    // Several rows may name one contact after a merge: the message idempotency key (broadcast + contact) still sends once.
    { table: 'channel_broadcast_recipients', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  ],
};
