import path from 'node:path';
import { defineWidget } from '../../widget';

/** The channels module's in-chat widgets (MCP Apps): each script is a browser file beside this one. */
export const channelsWidgets = [
  defineWidget({
    id: 'channels-broadcast-funnel',
    module: 'channels',
    title: 'Broadcast delivery funnel',
    description: 'A broadcast\'s audience, recipients, messages sent and delivered, as a funnel.',
    tools: ['channels_get_broadcast'],
    script: path.join(__dirname, 'broadcast-funnel.mts'),
  }),
];
