export { toolCallWorkflow } from './tool-call';
export { toolCallWithFollowUpWorkflow } from './tool-call-follow-up';
export { proposalWorkflow } from './proposal';
export { outreachWorkflow } from './outreach';
export { agentRunWorkflow } from './agent-run';
export { automationRunWorkflow } from './automation-run';
export { maintenanceWorkflow } from './maintenance';
export { givingRecurringWorkflow } from './giving-recurring';
