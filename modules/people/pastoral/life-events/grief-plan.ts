import type { Queryable } from '../../../../db/pool';
import { getPastoralSettings, type GriefTouchpoint as SettingsTouchpoint } from '../care/settings';
import type { GriefPlanStep } from './constants';

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

const DAYS_IN_YEAR = 365;

/**
 * A settings touchpoint as a plan step. A whole number of years (365, 730 days) is read as years,
 * so "First anniversary" falls on the date of the death, leap years or not, as those who grieve count it.
 */
export function stepOfSetting(touchpoint: SettingsTouchpoint): GriefPlanStep {
  const years = touchpoint.offsetDays / DAYS_IN_YEAR;
  return Number.isInteger(years) && years > 0 ? { label: touchpoint.label, months: years * 12 } : { label: touchpoint.label, days: touchpoint.offsetDays };
}

/** The organisation's grief plan, from its pastoral settings (their defaults until it sets its own). */
export async function griefPlanFor(db: Queryable, orgId: string): Promise<readonly GriefPlanStep[]> {
  return (await getPastoralSettings(db, orgId)).griefPlan.map(stepOfSetting);
}
