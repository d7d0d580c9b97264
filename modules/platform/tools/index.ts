import type { AnyTool } from '../../tool';
import { overviewTool, usageTool } from './account';
import { executeWorkflowToolTool, inspectToolsTool, listToolsTool, searchToolsTool, sessionToolsTool } from './discovery';
import { approveProposalTool, getProposalTool, listAgentsTool, pendingProposalsTool, rejectProposalTool, setAgentAutonomyTool } from './proposals';

export const platformTools: AnyTool[] = [
  overviewTool, usageTool, listToolsTool, searchToolsTool, inspectToolsTool, sessionToolsTool, executeWorkflowToolTool,
  pendingProposalsTool, getProposalTool, approveProposalTool, rejectProposalTool, listAgentsTool, setAgentAutonomyTool,
];
