import {
  CancellationScope, ParentClosePolicy, getExternalWorkflowHandle, proxyActivities, startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, type ActivityOptions } from '@temporalio/common';
import { SA_KIND, SA_ORG, SA_STATUS } from '../core/search-attributes';
import { currentFollowUpKind, type FollowUp, type FollowUpPlanner, type FollowUpStep } from '../core/tool-plan';

/**
 * The follow-up planners this bundle knows, by kind: the kernel's (below) and every module's,
 * registered by the bundle's generated entry (worker/bundle.ts) from each module's
 * `workflows/index.ts` export `followUps`. Filled once when the bundle loads, before any workflow runs.
 */
const planners = new Map<string, FollowUpPlanner>();

/** Adds planners; a kind registered twice is a mistake in the registry, refused when the bundle loads. */
export function registerFollowUps(owner: string, followUps: Readonly<Record<string, FollowUpPlanner>>): void {
  for (const [kind, planner] of Object.entries(followUps)) {
    if (planners.has(kind)) throw new Error(`Follow-up ${kind} of ${owner} is registered already`);
    planners.set(kind, planner);
  }
}

/** The steps a finished call's follow-up takes; a kind no planner serves is a fault of the deployment, not of the call. */
export function followUpSteps(followUp: FollowUp, result: unknown, orgId: string): FollowUpStep[] {
  const kind = currentFollowUpKind(followUp.kind);
  const planner = planners.get(kind);
  if (!planner) throw new Error(`No follow-up planner is registered for ${kind}`);
  return planner(result, { orgId, followUp });
}

/** Carries out the steps in order, each as the workflows that declared them did before (see FollowUpStep). */
export async function runFollowUpSteps(orgId: string, steps: readonly FollowUpStep[]): Promise<void> {
  for (const step of steps) {
    if ('start' in step) await startOnce(orgId, step);
    else if ('signal' in step) await leaveClosedAlone(() => getExternalWorkflowHandle(step.id).signal(step.signal, ...(step.args ?? [])));
    else if ('cancel' in step) await leaveClosedAlone(() => getExternalWorkflowHandle(step.cancel).cancel());
    else await runActivity(step);
  }
}

async function startOnce(orgId: string, step: Extract<FollowUpStep, { start: string }>): Promise<void> {
  const attributes = [{ key: SA_ORG, value: orgId }, { key: SA_KIND, value: step.searchAttributes.kind }];
  if (step.searchAttributes.status) attributes.push({ key: SA_STATUS, value: step.searchAttributes.status });
  try {
    await startChild(step.start, { workflowId: step.id, args: step.args, parentClosePolicy: ParentClosePolicy.ABANDON, typedSearchAttributes: attributes });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * Not cancellable, so a follow-up being cancelled does not leave a removed record's workflow
 * running; a workflow that has finished (or never started) has nothing left to hear.
 */
async function leaveClosedAlone(tell: () => Promise<void>): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    try {
      await tell();
    } catch {
      // Not found or already closed.
    }
  });
}

async function runActivity(step: Extract<FollowUpStep, { activity: string }>): Promise<void> {
  // Durations are strings such as '2 minutes' (ms-formatted), which is what the SDK's Duration accepts.
  const activity = proxyActivities<Record<string, (...args: unknown[]) => Promise<unknown>>>(step.options as ActivityOptions)[step.activity];
  const running = activity(...step.args);
  if (step.ignoreFailure) await running.catch(() => undefined);
  else await running;
}
