import { withHeartbeat } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import { recordStatementSendFailure, STATEMENT_SOURCE_KIND, statementsToSend } from '../gift-aid/statement-delivery';

export interface StatementSendCounts {
  sent: number;
  notSent: number;
}

/** Emailing giving statements through the shared outbox, the step after a statements run (follow-up 'giving.send_statements'). */
export function createStatementActivities(deps: ActivityDeps) {
  const { pool, outbox } = deps;
  return {
    /**
     * Emails the named giving statements that still wait (queued or failed), one outbox attempt each.
     * A statement whose attempt failed records why and the rest still go; the remedy is a resend, so
     * nothing is thrown for one statement's failure. A retry of the whole activity (a worker died)
     * is safe: the outbox sends each statement at most once.
     */
    async sendStatements(orgId: string, statementIds: string[]): Promise<StatementSendCounts> {
      return withHeartbeat(async () => {
        const counts: StatementSendCounts = { sent: 0, notSent: 0 };
        for (const id of await statementsToSend(pool, orgId, statementIds)) {
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
          await recordStatementSendFailure(pool, orgId, id, { code: 'send_failed', message });
          return 'failed';
        }
      }
    },
  };
}
