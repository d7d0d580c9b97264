import type { ModulePart } from '../../../module';
import { careAlertRules } from './alerts';
import { pastoralCare } from './migrations/2026.11.24T03.10.00.pastoral-care';
import { counselingResources } from './migrations/2026.11.24T03.10.01.counseling-resources';
import { careModels } from './models';
import {
  addCounselingResourceTool, analyzeCounselingReferralTool, clearCrisisHoldTool, listCounselingResourcesTool, listCrisisHoldsTool, removeCounselingResourceTool,
} from './tools/crisis';
import { getPastoralDashboardTool, listPastoralNotesTool } from './tools/dashboard';
import {
  createSafeguardingCheckTool, createSafeguardingPolicyTool, getSafeguardingSummaryTool, listSafeguardingChecksTool, listSafeguardingPoliciesTool,
  removeSafeguardingCheckTool, removeSafeguardingPolicyTool, setSafeguardingCheckTool, setSafeguardingPolicyTool,
} from './tools/safeguarding';
import { getPastoralSettingsTool, initializePastoralSettingsTool, setPastoralSettingsTool } from './tools/settings';
import {
  assignCareTeamMemberTool, createCareTeamRoleTool, getCareTeamOverviewTool, getContactCareStatusTool, listCarePredictionsTool,
  listCareTeamAssignmentsTool, listCareTeamRolesTool, removeCareTeamAssignmentTool, removeCareTeamRoleTool, seedCareTeamRolesTool,
  setCareTeamRoleTool, setContactCarePriorityTool,
} from './tools/team';

/** Care team, safeguarding, crisis holds, pastoral settings and dashboard. */
export const carePart: ModulePart = {
  name: 'care',
  tools: [
    getPastoralSettingsTool, initializePastoralSettingsTool, setPastoralSettingsTool,
    listCareTeamRolesTool, createCareTeamRoleTool, setCareTeamRoleTool, removeCareTeamRoleTool, seedCareTeamRolesTool,
    listCareTeamAssignmentsTool, assignCareTeamMemberTool, removeCareTeamAssignmentTool, getCareTeamOverviewTool,
    setContactCarePriorityTool, getContactCareStatusTool, listCarePredictionsTool,
    createSafeguardingCheckTool, setSafeguardingCheckTool, removeSafeguardingCheckTool, listSafeguardingChecksTool, getSafeguardingSummaryTool,
    createSafeguardingPolicyTool, setSafeguardingPolicyTool, removeSafeguardingPolicyTool, listSafeguardingPoliciesTool,
    analyzeCounselingReferralTool, listCrisisHoldsTool, clearCrisisHoldTool, listCounselingResourcesTool, addCounselingResourceTool, removeCounselingResourceTool,
    getPastoralDashboardTool, listPastoralNotesTool,
  ],
  models: [...careModels],
  migrations: [pastoralCare, counselingResources],
  // Merge moves every row to the kept contact (two crisis holds both stay in force); erasure deletes them.
  contactRefs: [
    { table: 'care_team_assignments', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'contact_care_priorities', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'safeguarding_checks', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'crisis_holds', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  ],
  alerts: careAlertRules,
};
