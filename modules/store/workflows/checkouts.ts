import { proxyActivities, sleep } from '@temporalio/workflow';
import type { StoreActivities } from '../activities/checkouts';

const { storeCloseCheckout, storeExpireCheckout } = proxyActivities<StoreActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30 },
});

export const checkoutWorkflowId = (orderId: string) => `store-checkout-${orderId}`;
export const CHECKOUT_KIND = 'store-checkout';

/** How long a checkout the buyer paid in time waits for the provider's signed webhook before looking again. */
const AWAIT_WEBHOOK_MS = 5 * 60_000;
const MAX_ROUNDS = 100;

export interface CheckoutTimerInput { orgId: string; orderId: string; expiresAt: string }

/**
 * One checkout's timer: a durable Temporal timer until the checkout runs out, then its session is
 * closed at the provider and its committed units returned to available, exactly once (the
 * activity's conditional update). A checkout paid in time keeps its units: the timer waits for the
 * signed webhook that confirms it.
 */
export async function storeCheckoutWorkflow(input: CheckoutTimerInput): Promise<string> {
  let due = Date.parse(input.expiresAt);
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    const checkout = await storeCloseCheckout(input.orgId, input.orderId);
    if (checkout === 'paid') {
      due = Date.now() + AWAIT_WEBHOOK_MS;
      continue;
    }
    const outcome = await storeExpireCheckout(input.orgId, input.orderId);
    if (outcome.outcome === 'early') {
      due = Date.parse(outcome.expiresAt);
      continue;
    }
    return outcome.outcome;
  }
  return 'gave_up';
}
