import { withTenantTransaction } from '../../../db/pool';
import { guarded, withHeartbeat } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import type { OutboxOutcome } from '../../outbox-source';
import { MESSAGE_SOURCE_KIND } from '../messages';
import { nextOffer, offerUnreachable, settleOffer, type NextStep } from '../substitutions';

/** The runsheet module's activities: the steps of a substitute search, and one outbox attempt for a message it sends. */
export function createRunsheetActivities(deps: ActivityDeps) {
  const inOrg = <T>(orgId: string, work: Parameters<typeof withTenantTransaction<T>>[2]) => guarded(() => withTenantTransaction(deps.pool, orgId, work));
  return {
    async runsheetNextOffer(orgId: string, substitutionId: string): Promise<NextStep> {
      return inOrg(orgId, (db) => nextOffer(db, orgId, substitutionId));
    },
    async runsheetSettleOffer(orgId: string, offerId: string): Promise<{ status: string; remainingMs: number }> {
      return inOrg(orgId, (db) => settleOffer(db, orgId, offerId));
    },
    async runsheetOfferUnreachable(orgId: string, offerId: string, reason: string): Promise<void> {
      return inOrg(orgId, (db) => offerUnreachable(db, orgId, offerId, reason));
    },
    async runsheetSendMessage(orgId: string, messageId: string): Promise<OutboxOutcome> {
      return withHeartbeat(() => guarded(() => deps.outbox.send(MESSAGE_SOURCE_KIND, orgId, messageId)));
    },
  };
}

export type RunsheetActivities = ReturnType<typeof createRunsheetActivities>;
