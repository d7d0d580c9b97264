import path from 'node:path';
import { defineWidget } from '../../widget';

/** The spaces module's in-chat widgets (MCP Apps). */
export const spacesWidgets = [
  defineWidget({
    id: 'spaces-room-week',
    module: 'spaces',
    title: 'Room week',
    description: 'A room\'s days: each booking with set-up from, start, end and clear-up, layout, numbers and resources, and blockouts.',
    tools: ['spaces_get_room_schedule'],
    script: path.join(__dirname, 'room-week.mts'),
  }),
];
