import { MAX_AGENT_ACTIONS_PER_RUN, type AgentAction, type AgentPlanner } from '../module';
import type { OrgSettings } from '../tool';
import { queryRows, type Queryable } from '../../db/pool';
import type { PlanRow } from './common';
import { planLabel } from './messages';
import { chooseAutofill } from './scheduling';

/** How far ahead the Runsheet agent looks for open places. */
export const AGENT_LOOKAHEAD_DAYS = 14;

interface OpenNeed { positionId: string; positionName: string; planTimeId: string | null; open: number }

/**
 * The places autofill would fill on one plan now, worked out by the same choice
 * runsheet_autofill_positions makes (chooseAutofill: per time, eligible team members only, ranked),
 * so a proposal promises no more than carrying it out would give.
 */
async function fillablePlaces(db: Queryable, orgId: string, plan: PlanRow, needs: readonly OpenNeed[]): Promise<Array<OpenNeed & { fillable: number }>> {
  const { picks } = await chooseAutofill(db, orgId, plan, needs);
  return needs.map((need) => ({ ...need, fillable: picks.filter((pick) => pick.positionId === need.positionId && pick.planTimeId === need.planTimeId).length }))
    .filter((need) => need.fillable > 0);
}

/**
 * The Runsheet agent: for each plan in the next two weeks that is neither locked nor under way, with
 * needed places nobody fills and free, eligible team members to fill them, one runsheet_autofill_positions
 * call for those positions (proposed, or carried out in auto mode). A plan whose proposal a person
 * rejected is not proposed again; requests are still sent by a person (runsheet_send_requests).
 */
async function runsheetAgentActions(db: Queryable, org: OrgSettings): Promise<AgentAction[]> {
  const plans = await queryRows<PlanRow & { service_type_name: string }>(db, `SELECT p.*, s.name AS service_type_name FROM runsheet_plans p
    JOIN runsheet_service_types s ON s.id = p.service_type_id AND s.org_id = p.org_id
    WHERE p.org_id = $1 AND p.status <> 'locked' AND p.starts_at > now() AND p.starts_at < now() + make_interval(days => $2)
    ORDER BY p.starts_at, p.id LIMIT $3`, [org.id, AGENT_LOOKAHEAD_DAYS, MAX_AGENT_ACTIONS_PER_RUN * 2]);
  const actions: AgentAction[] = [];
  for (const plan of plans) {
    // A place needed at one time is named with it ("Sound desk at 11:00").
    const needs = await queryRows<{ position_id: string; plan_time_id: string | null; position_name: string; open: number }>(db, `SELECT n.position_id, n.plan_time_id,
        pos.name || COALESCE(' at ' || to_char(t.starts_at AT TIME ZONE $3, 'HH24:MI'), '') AS position_name,
        n.quantity - (SELECT count(*)::int FROM runsheet_plan_people pp WHERE pp.org_id = n.org_id AND pp.plan_id = n.plan_id AND pp.position_id = n.position_id
          AND pp.plan_time_id IS NOT DISTINCT FROM n.plan_time_id AND pp.status <> 'declined') AS open
      FROM runsheet_needed_positions n JOIN runsheet_positions pos ON pos.id = n.position_id AND pos.org_id = n.org_id
      LEFT JOIN runsheet_plan_times t ON t.id = n.plan_time_id AND t.org_id = n.org_id
      WHERE n.org_id = $1 AND n.plan_id = $2 ORDER BY n.position_id, t.starts_at NULLS FIRST, n.plan_time_id`, [org.id, plan.id, plan.time_zone]);
    const open = needs.filter((need) => need.open > 0).map((need) => ({ positionId: need.position_id, positionName: need.position_name, planTimeId: need.plan_time_id, open: need.open }));
    if (open.length === 0) continue;
    const fillable = await fillablePlaces(db, org.id, plan, open);
    if (fillable.length === 0) continue;
    const places = fillable.reduce((sum, need) => sum + need.fillable, 0);
    const openTotal = open.reduce((sum, need) => sum + need.open, 0);
    actions.push({
      tool: 'runsheet_autofill_positions',
      args: { planId: plan.id, positionIds: [...new Set(fillable.map((need) => need.positionId))] },
      summary: `Fill ${places} of ${openTotal} open place(s) on ${planLabel(plan, plan.service_type_name)} (${fillable.map((need) => `${need.positionName} ${need.fillable}`).join(', ')}) from free team members`,
      dedupeKey: `runsheet-autofill:${plan.id}`,
    });
  }
  return actions;
}

export const runsheetAgents: readonly AgentPlanner[] = [{ key: 'runsheet', plan: runsheetAgentActions }];
