import type { AnyTool } from '../../tool';
import { createContactTool, deleteContactTool, getContactTool, listContactsTool, searchContactsTool, updateContactTool } from './contacts';
import { addNoteTool, listCareTimelineTool, listNotesTool } from './notes';
import { approveOutreachTool, cancelOutreachTool, createOutreachTool, declineOutreachTool, editOutreachTool, getOutreachItemTool, listPendingOutreachTool, mergeContactsTool } from './outreach';
import { createPastoralAutomationTool, duplicatePastoralAutomationTool, getPastoralAutomationTool, listPastoralAutomationsTool, listWelfareDueContactsTool, removePastoralAutomationTool, runPastoralGenerationTool, setPastoralAutomationTool } from './automations';
import { bulkOptInWhatsappTool, bulkUpdateContactsTool, countUnsubscribesTool, createCustomFieldDefinitionTool, listCustomFieldDefinitionsTool, lookupUkPostcodeTool, upcomingBirthdaysTool } from './contact-bulk';
import { addCrmGroupMemberTool, createCrmGroupTool, deleteCrmGroupTool, listCrmGroupMembersTool, listCrmGroupsTool, removeCrmGroupMemberTool, updateCrmGroupTool } from './crm-groups';
import { addFamilyRelationshipTool, listFamilyTool, listHouseholdTool, removeFamilyRelationshipTool } from './family';
import { exportContactsTool, importContactsTool } from './import-export';
import { completeNoteFollowupTool, listPastoralNoteFollowupsTool, removeNoteTool, updateNoteTool } from './note-followups';
import { addContactToSegmentTool, createSegmentFromTemplateTool, getSegmentTool, listSegmentContactsTool, listSegmentFieldsTool, listSegmentTemplatesTool, listSegmentsTool, previewSegmentTool, refreshSegmentTool, updateSegmentTool } from './segments';
import { addContactTagsTool, createCrmTagTool, createTagCategoryTool, deleteCrmTagTool, listTagsTool, removeContactTagsTool, updateCrmTagTool, updateTagCategoryTool } from './tags';
import { completeFollowUpTaskTool, listFollowUpTasksTool, listWelcomeDeskVisitorsTool } from './welcome-desk';

export const peopleTools: AnyTool[] = [
  createContactTool, getContactTool, searchContactsTool, listContactsTool, updateContactTool, deleteContactTool,
  addNoteTool, listNotesTool, listCareTimelineTool,
  lookupUkPostcodeTool, bulkUpdateContactsTool, bulkOptInWhatsappTool, upcomingBirthdaysTool, countUnsubscribesTool,
  listCustomFieldDefinitionsTool, createCustomFieldDefinitionTool,
  addFamilyRelationshipTool, removeFamilyRelationshipTool, listFamilyTool, listHouseholdTool,
  updateNoteTool, removeNoteTool, completeNoteFollowupTool, listPastoralNoteFollowupsTool,
  listTagsTool, addContactTagsTool, removeContactTagsTool, deleteCrmTagTool, createCrmTagTool, updateCrmTagTool, createTagCategoryTool, updateTagCategoryTool,
  listSegmentsTool, getSegmentTool, listSegmentFieldsTool, listSegmentTemplatesTool, createSegmentFromTemplateTool, updateSegmentTool,
  previewSegmentTool, refreshSegmentTool, listSegmentContactsTool, addContactToSegmentTool,
  listCrmGroupsTool, listCrmGroupMembersTool, createCrmGroupTool, updateCrmGroupTool, addCrmGroupMemberTool, removeCrmGroupMemberTool, deleteCrmGroupTool,
  listWelcomeDeskVisitorsTool, listFollowUpTasksTool, completeFollowUpTaskTool,
  importContactsTool, exportContactsTool,
  createOutreachTool, listPendingOutreachTool, getOutreachItemTool, editOutreachTool, approveOutreachTool, declineOutreachTool, cancelOutreachTool,
  mergeContactsTool,
  createPastoralAutomationTool, setPastoralAutomationTool, removePastoralAutomationTool, duplicatePastoralAutomationTool,
  listPastoralAutomationsTool, getPastoralAutomationTool, runPastoralGenerationTool, listWelfareDueContactsTool,
];
