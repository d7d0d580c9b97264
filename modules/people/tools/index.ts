import type { AnyTool } from '../../tool';
import { createContactTool, deleteContactTool, getContactTool, listContactsTool, searchContactsTool, updateContactTool } from './contacts';
import { addNoteTool, listCareTimelineTool, listNotesTool } from './notes';
import { approveOutreachTool, cancelOutreachTool, createOutreachTool, declineOutreachTool, editOutreachTool, getOutreachItemTool, listPendingOutreachTool, mergeContactsTool } from './outreach';
import { createPastoralAutomationTool, duplicatePastoralAutomationTool, getPastoralAutomationTool, listPastoralAutomationsTool, listWelfareDueContactsTool, removePastoralAutomationTool, runPastoralGenerationTool, setPastoralAutomationTool } from './automations';

export const peopleTools: AnyTool[] = [
  createContactTool, getContactTool, searchContactsTool, listContactsTool, updateContactTool, deleteContactTool,
  addNoteTool, listNotesTool, listCareTimelineTool,
  createOutreachTool, listPendingOutreachTool, getOutreachItemTool, editOutreachTool, approveOutreachTool, declineOutreachTool, cancelOutreachTool,
  mergeContactsTool,
  createPastoralAutomationTool, setPastoralAutomationTool, removePastoralAutomationTool, duplicatePastoralAutomationTool,
  listPastoralAutomationsTool, getPastoralAutomationTool, runPastoralGenerationTool, listWelfareDueContactsTool,
];
