import path from 'node:path';
import { defineWidget } from '../../widget';

/** The platform module's in-chat widgets (MCP Apps): each script is a browser file beside this one. */
export const platformWidgets = [
  defineWidget({
    id: 'platform-usage-meters',
    module: 'platform',
    title: 'Usage meters',
    description: 'Each metered feature\'s use against the plan\'s allowance.',
    tools: ['platform_usage'],
    script: path.join(__dirname, 'usage-meters.mts'),
  }),
  defineWidget({
    id: 'platform-proposal-review',
    module: 'platform',
    title: 'Proposal review',
    description: 'One proposal with its action and outcome, to approve or reject.',
    tools: ['platform_get_proposal'],
    script: path.join(__dirname, 'proposal-review.mts'),
  }),
  defineWidget({
    id: 'platform-proposal-queue',
    module: 'platform',
    title: 'Proposal queue',
    description: 'Proposals with their actions, to approve or reject each.',
    tools: ['platform_pending_proposals'],
    script: path.join(__dirname, 'proposal-queue.mts'),
  }),
];
