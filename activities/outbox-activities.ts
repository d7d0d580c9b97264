import { Context } from '@temporalio/activity';
import type { Pool } from '../db/pool';
import { currentInviteSend, TEAM_INVITE_SOURCE_KIND } from '../modules/platform/team-invite-delivery';
import { recordStatementSendFailure, STATEMENT_SOURCE_KIND, statementsToSend } from '../modules/giving/gift-aid/statement-delivery';
import { createOutbox, type OutboxDeps, type OutboxOutcome } from './outbox';
import { guarded } from './tool-activities';

/**
 * Runs a send with a heartbeat every second: a worker that dies mid-send stops
 * beating, so the attempt is retried within seconds (the retry then waits for
 * the dead attempt's outbox lease to run out before deciding anything).
 */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 1000);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

/**
 * The outbox as activities, for any module's workflow: one send attempt for a
 * source record of a registered kind, and releasing one a person reviewed.
 * Schedule the send with a heartbeat timeout and retries (as the outreach
 * workflow does): a lease held by another attempt is a retryable failure.
 */
export function createOutboxActivities(deps: { pool: Pool } & Pick<OutboxDeps, 'providerFor' | 'sources'>) {
  const outbox = createOutbox(deps);
  return {
    async sendOutboxMessage(kind: string, orgId: string, sourceId: string): Promise<OutboxOutcome> {
      return withHeartbeat(() => guarded(() => outbox.send(kind, orgId, sourceId)));
    },

    async releaseOutboxMessage(kind: string, orgId: string, sourceId: string, userId: string): Promise<boolean> {
      return guarded(() => outbox.release(kind, orgId, sourceId, userId));
    },

    /** Emails a team invite's current send; one replaced or cancelled meanwhile is not sent. */
    async sendTeamInvite(orgId: string, inviteId: string): Promise<OutboxOutcome> {
      const sendId = await guarded(() => currentInviteSend(deps.pool, orgId, inviteId));
      if (!sendId) return { status: 'not_ready' };
      return withHeartbeat(() => guarded(() => outbox.send(TEAM_INVITE_SOURCE_KIND, orgId, sendId)));
    },

    /**
     * Emails the named giving statements that still wait (queued or failed), one outbox attempt each.
     * A statement whose attempt failed records why and the rest still go; the remedy is a resend, so
     * nothing is thrown for one statement's failure. A retry of the whole activity (a worker died)
     * is safe: the outbox sends each statement at most once.
     */
    async sendStatements(orgId: string, statementIds: string[]): Promise<StatementSendCounts> {
      return withHeartbeat(async () => {
        const counts: StatementSendCounts = { sent: 0, notSent: 0 };
        for (const id of await statementsToSend(deps.pool, orgId, statementIds)) {
          const outcome = await sendOneStatement(id);
          counts[outcome === 'sent' ? 'sent' : 'notSent'] += 1;
        }
        return counts;
      });

      async function sendOneStatement(id: string): Promise<string> {
        try {
          return (await outbox.send(STATEMENT_SOURCE_KIND, orgId, id)).status;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          await recordStatementSendFailure(deps.pool, orgId, id, { code: 'send_failed', message });
          return 'failed';
        }
      }
    },
  };
}

export interface StatementSendCounts {
  sent: number;
  notSent: number;
}

export type OutboxActivities = ReturnType<typeof createOutboxActivities>;
