import path from 'node:path';
import { defineWidget } from '../../widget';

/** The guests module's in-chat widgets (MCP Apps): each script is a browser file beside this one. */
export const guestsWidgets = [
  defineWidget({
    id: 'guests-arrivals-heatmap',
    module: 'guests',
    title: 'Arrivals heatmap',
    description: 'Check-in arrivals as a grid of time slots by location, darker where more arrived.',
    tools: ['guests_get_analytics_heatmap'],
    script: path.join(__dirname, 'arrivals-heatmap.mts'),
  }),
];
