import type { FollowUpPlanner, FollowUpStep } from '../../../core/tool-plan';
import { CHECKOUT_KIND, checkoutWorkflowId } from './checkouts';

/** A checkout link's order gets its timer, started once under its id and outliving the call. */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  'store.checkout_timer': (result, { orgId }) => {
    const order = (result as { order?: { id?: unknown; financialStatus?: unknown; expiresAt?: unknown } } | null)?.order;
    if (typeof order?.id !== 'string' || order.financialStatus !== 'pending' || typeof order.expiresAt !== 'string') return [];
    return [{
      start: 'storeCheckoutWorkflow', id: checkoutWorkflowId(order.id), args: [{ orgId, orderId: order.id, expiresAt: order.expiresAt }], searchAttributes: { kind: CHECKOUT_KIND },
    } satisfies FollowUpStep];
  },
};
