/** Grow's workflows, bundled through its definition's `workflows`. */
export { growCampaignWorkflow } from './campaign';
export { followUps } from './follow-ups';
export { growAutomationRunWorkflow, growAutomationWatchWorkflow } from './automation';
