import type { FollowUpPlanner, FollowUpStep } from '../../../core/tool-plan';
import { RESERVATION_KIND, reservationWorkflowId } from './reservations';

interface Pending { id?: unknown; status?: unknown; expiresAt?: unknown }

/** The pending reservations a call's result names: a cart, an order's reservation, waitlist offers. */
export function pendingReservations(result: unknown): Array<{ id: string; expiresAt: string }> {
  const value = (result ?? {}) as { reservation?: Pending | null; order?: { reservation?: Pending | null } | null; offers?: Array<{ reservation?: Pending }> };
  const found = [value.reservation, value.order?.reservation, ...(value.offers ?? []).map((offer) => offer.reservation)];
  return found.filter((r): r is { id: string; status: 'pending'; expiresAt: string } => typeof r?.id === 'string' && r.status === 'pending' && typeof r.expiresAt === 'string')
    .map((r) => ({ id: r.id, expiresAt: r.expiresAt }));
}

/** Every pending reservation a call made gets its timer, started once under its id and outliving the call. */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  'ticketing.reservation_timers': (result, { orgId }) => pendingReservations(result).map((reservation): FollowUpStep => ({
    start: 'ticketingReservationWorkflow', id: reservationWorkflowId(reservation.id),
    args: [{ orgId, reservationId: reservation.id, expiresAt: reservation.expiresAt }], searchAttributes: { kind: RESERVATION_KIND },
  })),
};
