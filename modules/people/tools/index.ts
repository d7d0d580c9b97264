import type { AnyTool } from '../../tool';
import { createContactTool, deleteContactTool, getContactTool, listContactsTool, searchContactsTool, updateContactTool } from './contacts';
import { addNoteTool, listCareTimelineTool, listNotesTool } from './notes';

export const peopleTools: AnyTool[] = [
  createContactTool, getContactTool, searchContactsTool, listContactsTool, updateContactTool, deleteContactTool,
  addNoteTool, listNotesTool, listCareTimelineTool,
];
