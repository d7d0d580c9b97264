import type { FollowUpPlanner } from '../../../core/tool-plan';

/** The statements a statements result names (`statements` and `unchanged`) that are waiting for their email. */
function waitingStatementIdsOfResult(result: unknown): string[] {
  const named = result as { statements?: unknown; unchanged?: unknown } | null;
  const all = [named?.statements, named?.unchanged].flatMap((list) => (Array.isArray(list) ? list : [])) as Array<{ id?: unknown; delivery?: { status?: unknown } }>;
  return all.filter((s) => typeof s.id === 'string' && (s.delivery?.status === 'queued' || s.delivery?.status === 'failed')).map((s) => s.id as string);
}

/** The giving module's follow-ups, by kind (see FollowUpPlanner in core/tool-plan.ts). */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  /**
   * Emails the statements the result names that still wait for it (activities/statements.ts). One
   * activity emails a whole run, statement by statement, so it may take a while and heartbeats
   * throughout. Each statement records its own delivery; a failed send leaves the call's result
   * standing, and a resend is the remedy.
   */
  'giving.send_statements': (result, { orgId }) => {
    const statementIds = waitingStatementIdsOfResult(result);
    if (statementIds.length === 0) return [];
    return [{
      activity: 'sendStatements',
      args: [orgId, statementIds],
      options: {
        startToCloseTimeout: '30 minutes',
        heartbeatTimeout: '10 seconds',
        retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
      },
      ignoreFailure: true,
    }];
  },
};
