import { withTenantTransaction } from '../../../db/pool';
import { guarded } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import { recordJobChange } from '../../audit/api';
import { closeCheckoutFor, expireCheckout, type ExpiryOutcome } from '../orders';

/** Store's activities: a checkout's timer closes its session at the provider, then returns its units. */
export function createStoreActivities(deps: ActivityDeps) {
  return {
    async storeCloseCheckout(orgId: string, orderId: string): Promise<'closed' | 'paid' | 'none' | 'not_due'> {
      return guarded(() => withTenantTransaction(deps.pool, orgId, (db) => closeCheckoutFor(db, orgId, orderId), { readOnly: true }));
    },
    async storeExpireCheckout(orgId: string, orderId: string): Promise<ExpiryOutcome> {
      return guarded(() => withTenantTransaction(deps.pool, orgId, async (db) => {
        const expiry = await expireCheckout(db, orgId, orderId);
        if (expiry.outcome === 'expired') {
          await recordJobChange(db, { orgId, channel: 'job:checkout_expiry', module: 'store', noun: 'order', verb: 'expire', target: { type: 'order', id: orderId }, fields: { financialStatus: 'expired', unitsReturned: true } });
        }
        return expiry;
      }));
    },
  };
}

export type StoreActivities = ReturnType<typeof createStoreActivities>;
