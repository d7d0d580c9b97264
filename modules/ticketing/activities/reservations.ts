import { withTenantTransaction } from '../../../db/pool';
import { guarded } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import { recordJobChange } from '../../audit/api';
import { closeCheckoutFor, expireReservation, type ExpiryOutcome } from '../waitlist';

/** Ticketing's activities: a reservation's timer closes its checkout at the provider, then returns its places. */
export function createTicketingActivities(deps: ActivityDeps) {
  return {
    async ticketingCloseCheckout(orgId: string, reservationId: string): Promise<'closed' | 'paid' | 'none' | 'not_due'> {
      return guarded(() => withTenantTransaction(deps.pool, orgId, (db) => closeCheckoutFor(db, orgId, reservationId), { readOnly: true }));
    },
    async ticketingExpireReservation(orgId: string, reservationId: string): Promise<ExpiryOutcome> {
      return guarded(() => withTenantTransaction(deps.pool, orgId, async (db) => {
        const expiry = await expireReservation(db, orgId, reservationId);
        if (expiry.outcome === 'expired') {
          await recordJobChange(db, { orgId, channel: 'job:reservation_expiry', module: 'ticketing', noun: 'reservation', verb: 'expire', target: { type: 'reservation', id: reservationId }, fields: { status: 'expired', placesReturned: true } });
        }
        return expiry;
      }));
    },
  };
}

export type TicketingActivities = ReturnType<typeof createTicketingActivities>;
