import { StewardError } from '../../../core/errors';
import { guarded } from '../../activity-kit';
import { outboxDispatch } from '../../channels/api';
import type { ActivityDeps } from '../../module';
import { activeRunWorkflowIds, advanceRun, failRun, markRunsStarted, recordRunFailure, sweepAutomation, type Advance, type SweepResult } from '../automations';

/** How often an active automation's trigger is read (GROW_AUTOMATION_POLL_SECONDS, default a minute). */
function pollMs(): number {
  const seconds = Number(process.env.GROW_AUTOMATION_POLL_SECONDS ?? 60);
  return Number.isFinite(seconds) && seconds >= 1 ? Math.round(seconds * 1000) : 60_000;
}

/** Automations as activities (workflows/automation.ts): the trigger sweep and one move of a subject's run. */
export function createGrowAutomationActivities(deps: ActivityDeps) {
  return {
    async growAutomationSweep(input: { orgId: string; automationId: string }): Promise<SweepResult & { pollMs: number }> {
      return { ...(await guarded(() => sweepAutomation(deps.pool, input.orgId, input.automationId))), pollMs: pollMs() };
    },
    async growAutomationRunsStarted(input: { orgId: string; runIds: string[] }): Promise<void> {
      return guarded(() => markRunsStarted(deps.pool, input.orgId, input.runIds));
    },
    async growAutomationActiveRuns(input: { orgId: string; automationId: string }): Promise<string[]> {
      return guarded(() => activeRunWorkflowIds(deps.pool, input.orgId, input.automationId));
    },
    async growAutomationAdvance(input: { orgId: string; runId: string }): Promise<Advance> {
      const dispatch = outboxDispatch(deps.outbox, input.orgId);
      try {
        return await guarded(() => advanceRun(deps.pool, input.orgId, input.runId, dispatch));
      } catch (error) {
        // Each failed attempt is counted on the run (the runs list shows failures and retries); Temporal retries it.
        const message = error instanceof StewardError || error instanceof Error ? error.message : 'unknown failure';
        await recordRunFailure(deps.pool, input.orgId, input.runId, message).catch(() => undefined);
        throw error;
      }
    },
    async growAutomationRunFailed(input: { orgId: string; runId: string; message: string }): Promise<void> {
      return guarded(() => failRun(deps.pool, input.orgId, input.runId, input.message));
    },
  };
}

export type GrowAutomationActivities = ReturnType<typeof createGrowAutomationActivities>;
