import type { ModuleDefinition } from '../../module';
import type { AnyTool } from '../../tool';
import { overviewTool, usageTool } from './account';
import { executeWorkflowToolTool, inspectToolsTool, listToolsTool, searchToolsTool, sessionToolsTool } from './discovery';
import { routeCatalogTool, searchDashboardApiTool } from './routes';
import { teamTools } from './team';
import { capabilityGapTools } from './capability-gaps';
import { analyticsQueryTool } from './analytics';
import { approveProposalTool, getProposalTool, listAgentsTool, pendingProposalsTool, rejectProposalTool, setAgentAutonomyTool } from './proposals';

/** The platform's tools; the overview and analytics are built from the registry, so it takes the modules. */
export const platformTools = (modules: readonly ModuleDefinition[]): AnyTool[] => [
  overviewTool(modules), usageTool(modules), listToolsTool, searchToolsTool, inspectToolsTool, sessionToolsTool, executeWorkflowToolTool,
  pendingProposalsTool, getProposalTool, approveProposalTool, rejectProposalTool, listAgentsTool, setAgentAutonomyTool,
  routeCatalogTool, searchDashboardApiTool, ...teamTools, ...capabilityGapTools, analyticsQueryTool(modules),
];
