import {
  ParentClosePolicy, continueAsNew, defineSignal, getExternalWorkflowHandle, proxyActivities, startChild,
} from '@temporalio/workflow';
import { ActivityFailure, ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { FollowUpPlanner } from '../../../core/tool-plan';
import { SA_KIND, SA_ORG } from '../../../core/search-attributes';
import type { GrowAutomationActivities } from '../activities/automations';
import { pokeableWait } from './poke';

const { growAutomationSweep, growAutomationRunsStarted, growAutomationActiveRuns, growAutomationRunFailed } = proxyActivities<GrowAutomationActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
// A step is retried a few times (each failure is counted on the run), then the run ends as failed.
const { growAutomationAdvance } = proxyActivities<GrowAutomationActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 3, maximumInterval: '5 minutes', maximumAttempts: 6 },
});

/** Sent on resume, on cancel and to the trigger's watcher: look again now rather than at the next timer. */
export const growAutomationPoke = defineSignal('growAutomationPoke');

/** The same ids as automations.ts gives (workflow code may not import it: it reaches the database). */
const runWorkflowId = (orgId: string, automationId: string, contactId: string, entry: number) =>
  `grow-automation-${orgId}-${automationId}-${contactId}${entry > 1 ? `-${entry}` : ''}`;
const watchWorkflowId = (orgId: string, automationId: string) => `grow-automation-watch-${orgId}-${automationId}`;

const HOUR_MS = 3_600_000;
const MOVES_PER_RUN = 500;
const SWEEPS_PER_RUN = 200;
const STARTS_PER_RUN = 2000;

export interface GrowAutomationRunInput { orgId: string; runId: string }

/**
 * One subject's run of an automation. Its row holds where it is (step, when the next action is due,
 * a message being handed over), so the loop only asks for the next move and sleeps on a durable
 * timer: a restart or a deploy goes on where it was. Held while the automation is paused (poked on
 * resume, else it looks each hour); ends when completed, stopped (crisis hold, consent withdrawn),
 * cancelled or failed after its retries.
 */
export async function growAutomationRunWorkflow(input: GrowAutomationRunInput): Promise<{ status: string }> {
  const sleep = pokeableWait(growAutomationPoke);
  for (let move = 0; ; move += 1) {
    if (move >= MOVES_PER_RUN) await continueAsNew<typeof growAutomationRunWorkflow>(input);
    let next;
    try {
      next = await growAutomationAdvance(input);
    } catch (error) {
      const cause = error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause.message : 'the step failed';
      await growAutomationRunFailed({ ...input, message: cause });
      return { status: 'failed' };
    }
    if (next.state === 'ended') return { status: next.status };
    if (next.state === 'waiting') await sleep(next.until - Date.now());
    else if (next.state === 'held') await sleep(HOUR_MS);
  }
}

export interface GrowAutomationWatchInput { orgId: string; automationId: string; wasPaused?: boolean }

/**
 * An automation's trigger, watched: each poll a sweep adds runs for what happened since, and each
 * new run's workflow is started (it outlives this one). While paused it waits to be poked; coming
 * back from a pause it pokes the held runs so they continue at once.
 */
export async function growAutomationWatchWorkflow(input: GrowAutomationWatchInput): Promise<{ status: string }> {
  const wait = pokeableWait(growAutomationPoke);
  let wasPaused = input.wasPaused ?? false;
  let started = 0;
  for (let sweep = 0; ; sweep += 1) {
    // A fresh history now and then: every sweep and every run started adds to it.
    if (sweep >= SWEEPS_PER_RUN || started >= STARTS_PER_RUN) await continueAsNew<typeof growAutomationWatchWorkflow>({ ...input, wasPaused });
    const found = await growAutomationSweep({ orgId: input.orgId, automationId: input.automationId });
    if (found.state === 'gone') return { status: 'gone' };
    if (found.state === 'active' && wasPaused) {
      for (const id of await growAutomationActiveRuns({ orgId: input.orgId, automationId: input.automationId })) {
        await getExternalWorkflowHandle(id).signal(growAutomationPoke).catch(() => undefined);
      }
    }
    wasPaused = found.state === 'paused';
    for (const run of found.toStart) {
      try {
        await startChild(growAutomationRunWorkflow, {
          workflowId: run.workflowId, args: [{ orgId: input.orgId, runId: run.runId }], parentClosePolicy: ParentClosePolicy.ABANDON,
          typedSearchAttributes: [{ key: SA_ORG, value: input.orgId }, { key: SA_KIND, value: 'automation_run' }],
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    }
    started += found.toStart.length;
    if (found.toStart.length > 0) await growAutomationRunsStarted({ orgId: input.orgId, runIds: found.toStart.map((r) => r.runId) });
    await wait(found.state === 'active' ? found.pollMs : HOUR_MS);
  }
}

interface AutomationResult { automation?: { id?: unknown } }
interface RunResult { run?: { automationId?: unknown; contactId?: unknown; entry?: unknown } }

/** The automations' follow-ups, by kind (see FollowUpPlanner in core/tool-plan.ts). */
export const automationFollowUps: Readonly<Record<string, FollowUpPlanner>> = {
  /** Activated or resumed: its watcher runs (started once under its id) and looks again now, poking held runs. */
  'grow.automation_watch': (result, { orgId }) => {
    const id = (result as AutomationResult | null)?.automation?.id;
    if (typeof id !== 'string') return [];
    return [
      { start: 'growAutomationWatchWorkflow', id: watchWorkflowId(orgId, id), args: [{ orgId, automationId: id, wasPaused: true }], searchAttributes: { kind: 'automation_watch' } },
      { signal: growAutomationPoke.name, id: watchWorkflowId(orgId, id) },
    ];
  },
  /** A run cancelled: its workflow looks again now and ends. */
  'grow.automation_run_poke': (result, { orgId }) => {
    const run = (result as RunResult | null)?.run;
    if (!run || typeof run.automationId !== 'string' || typeof run.contactId !== 'string' || typeof run.entry !== 'number') return [];
    return [{ signal: growAutomationPoke.name, id: runWorkflowId(orgId, run.automationId, run.contactId, run.entry) }];
  },
};
