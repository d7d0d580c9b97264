/** The channels module's workflows (bundled through its registry entry: `workflows` in ../index.ts). */
export { channelMessageWorkflow } from './message';
export { broadcastWorkflow } from './broadcast';
export { followUps } from './follow-ups';
