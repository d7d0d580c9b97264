import type { FollowUpActivityOptions, FollowUpPlanner } from '../core/tool-plan';

/** The automation a follow-up tool's result names (`automation.id` or `automationId`). */
function automationIdOfResult(result: unknown): string | undefined {
  const value = result as { automation?: { id?: unknown }; automationId?: unknown } | null;
  if (typeof value?.automation?.id === 'string') return value.automation.id;
  return typeof value?.automationId === 'string' ? value.automationId : undefined;
}

const SCHEDULE_SYNC: FollowUpActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20 },
};

/**
 * The kernel's own follow-ups: agents and automations are the kernel's, so bringing their
 * Temporal Schedules in line after a change is too (activities/approval-activities.ts).
 */
export const kernelFollowUps: Readonly<Record<string, FollowUpPlanner>> = {
  /** Bring the organisation's agent schedules in line; `ifMissing` only creates the ones that do not exist yet. */
  sync_agent_schedules: (_result, { orgId, followUp }) => [
    { activity: 'syncAgentSchedules', args: [orgId, followUp.ifMissing === true], options: SCHEDULE_SYNC },
  ],
  /** Bring the schedule of the automation the result names in line. */
  sync_automation_schedule: (result, { orgId }) => {
    const automationId = automationIdOfResult(result);
    return automationId ? [{ activity: 'syncAutomationSchedule', args: [orgId, automationId], options: SCHEDULE_SYNC }] : [];
  },
};
