import {
  condition, defineSignal, proxyActivities, setHandler,
} from '@temporalio/workflow';
import type { PastoralGriefActivities } from '../activities/grief-plan';

const { griefSurfaceDueTouchpoints } = proxyActivities<PastoralGriefActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 50 },
});

/** The grief plan's workflow id: one plan per bereavement. */
export function griefPlanWorkflowId(lifeEventId: string): string {
  return `grief-plan-${lifeEventId}`;
}

export interface GriefPlanInput {
  orgId: string;
  lifeEventId: string;
  /** Tests on a server without Steward's search attributes leave them off. */
  searchAttributes?: boolean;
}

export interface GriefPlanResult {
  lifeEventId: string;
  surfaced: number;
  /** completed: every touchpoint surfaced or done; ended: the bereavement (or the person) was removed meanwhile. */
  outcome: 'completed' | 'ended';
}

/** Sent when the bereavement's date moved, so the plan looks again at once instead of waking on the old date. */
export const griefPlanChangedSignal = defineSignal('griefPlanChanged');

const DAY_MS = 24 * 3600 * 1000;

/** Today by workflow time (deterministic on replay; skipped ahead by the time-skipping test server). */
function workflowToday(): string {
  return new Date(Date.now()).toISOString().slice(0, 10);
}

/** Milliseconds from now until the start (00:00 UTC) of a YYYY-MM-DD date; at least a second, so a clock at the boundary does not spin. */
function msUntil(isoDate: string): number {
  return Math.max(1000, Date.parse(`${isoDate}T00:00:00Z`) - Date.now());
}

/**
 * A bereavement's grief-care plan, one workflow per bereavement (grief-plan-<lifeEventId>): it
 * sleeps until the next touchpoint's date, then an activity marks every touchpoint due by then as
 * due and puts it on the care timeline, and so on until none are left. A durable timer, so the plan
 * survives restarts across the months it runs. Removing the bereavement cancels it; an erased
 * contact's plan finds nothing left and ends.
 */
export async function griefPlanWorkflow(input: GriefPlanInput): Promise<GriefPlanResult> {
  let changed = false;
  setHandler(griefPlanChangedSignal, () => { changed = true; });
  let surfaced = 0;
  for (;;) {
    changed = false;
    const step = await griefSurfaceDueTouchpoints({ orgId: input.orgId, lifeEventId: input.lifeEventId, asOf: workflowToday() });
    surfaced += step.surfaced;
    if (!step.exists) return { lifeEventId: input.lifeEventId, surfaced, outcome: 'ended' };
    if (!step.nextDueOn) return { lifeEventId: input.lifeEventId, surfaced, outcome: 'completed' };
    // Wake on the next date, or sooner when told the dates moved. Long waits are split so a date far
    // ahead never overflows a timer, and each wake re-reads the plan.
    await condition(() => changed, Math.min(msUntil(step.nextDueOn), 400 * DAY_MS));
  }
}
