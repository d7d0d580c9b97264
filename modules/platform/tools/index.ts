import type { AnyTool } from '../../tool';
import { overviewTool, usageTool } from './account';
import { executeWorkflowToolTool, inspectToolsTool, listToolsTool, searchToolsTool, sessionToolsTool } from './discovery';

export const platformTools: AnyTool[] = [
  overviewTool, usageTool, listToolsTool, searchToolsTool, inspectToolsTool, sessionToolsTool, executeWorkflowToolTool,
];
