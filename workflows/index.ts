/**
 * The kernel's workflows: the tool call, proposals, agent and automation runs, module jobs and
 * maintenance. Modules' workflows join them in the bundle through its generated entry (worker/bundle.ts).
 */
export { toolCallWorkflow } from './tool-call';
export { toolCallWithFollowUpWorkflow } from './tool-call-follow-up';
export { proposalWorkflow } from './proposal';
export { agentRunWorkflow } from './agent-run';
export { automationRunWorkflow } from './automation-run';
export { maintenanceWorkflow } from './maintenance';
export { moduleJobWorkflow } from './module-job';
