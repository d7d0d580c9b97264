import path from 'node:path';
import { defineWidget } from '../../widget';

/** The giving module's in-chat widgets (MCP Apps): each script is a browser file beside this one. */
export const givingWidgets = [
  defineWidget({
    id: 'giving-summary',
    module: 'giving',
    title: 'Giving summary',
    description: 'Giving by period and by fund as bar charts, with the same dates a year earlier beside them.',
    tools: ['giving_summary'],
    script: path.join(__dirname, 'giving-summary.mts'),
  }),
];
