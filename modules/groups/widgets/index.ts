import path from 'node:path';
import { defineWidget } from '../../widget';

/** The groups module's in-chat widget (MCP Apps): its script is a browser file beside this one. */
export const groupsWidgets = [
  defineWidget({
    id: 'groups-group-card',
    module: 'groups',
    title: 'Small group',
    description: 'One small group as a card: when and where it meets, enrolment, members and leaders, requests waiting, and recent and coming meetings.',
    tools: ['groups_get'],
    script: path.join(__dirname, 'group-card.mts'),
  }),
];
