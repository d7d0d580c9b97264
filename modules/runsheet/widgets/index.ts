import path from 'node:path';
import { defineWidget } from '../../widget';

/** The runsheet module's in-chat widgets (MCP Apps): each script is a browser file beside this one. */
export const runsheetWidgets = [
  defineWidget({
    id: 'runsheet-running-order',
    module: 'runsheet',
    title: 'Running order',
    description: 'A service plan\'s running order: headers with their items, lengths and start times, songs with their keys, and who is serving.',
    tools: ['runsheet_get_plan'],
    script: path.join(__dirname, 'running-order.mts'),
  }),
  defineWidget({
    id: 'runsheet-rota',
    module: 'runsheet',
    title: 'Rota',
    description: 'Who serves in each position on the coming plans, with open places marked.',
    tools: ['runsheet_get_rota'],
    script: path.join(__dirname, 'rota.mts'),
  }),
];
