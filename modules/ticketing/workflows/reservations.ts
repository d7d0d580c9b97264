import { ParentClosePolicy, proxyActivities, sleep, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { SA_KIND, SA_ORG } from '../../../core/search-attributes';
import type { TicketingActivities } from '../activities/reservations';

const { ticketingCloseCheckout, ticketingExpireReservation } = proxyActivities<TicketingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30 },
});

export const reservationWorkflowId = (reservationId: string) => `ticketing-reservation-${reservationId}`;
export const RESERVATION_KIND = 'ticket-reservation';

/** How long a reservation whose checkout was paid waits for the provider's signed webhook before looking again. */
const AWAIT_WEBHOOK_MS = 5 * 60_000;
const MAX_ROUNDS = 100;

export interface ReservationTimerInput { orgId: string; reservationId: string; expiresAt: string }

/**
 * One reservation's timer (a cart, or a waitlist offer): a durable Temporal timer until it runs
 * out, then its checkout session is closed at the provider and its places returned, exactly once
 * (the activity's conditional update). A checkout the buyer paid in time keeps its places: the
 * timer waits for the signed webhook that confirms it. An expired waitlist offer passes its places
 * on: the offers made to the next in line get timers of their own.
 */
export async function ticketingReservationWorkflow(input: ReservationTimerInput): Promise<string> {
  let due = Date.parse(input.expiresAt);
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    const checkout = await ticketingCloseCheckout(input.orgId, input.reservationId);
    if (checkout === 'paid') {
      due = Date.now() + AWAIT_WEBHOOK_MS;
      continue;
    }
    const outcome = await ticketingExpireReservation(input.orgId, input.reservationId);
    if (outcome.outcome === 'early') {
      due = Date.parse(outcome.expiresAt);
      continue;
    }
    if (outcome.outcome === 'expired') {
      for (const next of outcome.next) await startTimer({ orgId: input.orgId, reservationId: next.reservationId, expiresAt: next.expiresAt });
    }
    return outcome.outcome;
  }
  return 'gave_up';
}

async function startTimer(input: ReservationTimerInput): Promise<void> {
  try {
    await startChild(ticketingReservationWorkflow, {
      workflowId: reservationWorkflowId(input.reservationId), args: [input], parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [{ key: SA_ORG, value: input.orgId }, { key: SA_KIND, value: RESERVATION_KIND }],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
