/**
 * Billing's public surface for other modules (name `billing` in `uses`): the organisation's
 * subscription and what its plan and state allow now. A module deciding whether to send a
 * marketing message, or to offer a write at all, asks `entitlementsFor`.
 */
export { entitlementsFor, getSubscription, isMarketingUse, GRACE_DAYS } from './service';
export type { Entitlements, Subscription, SubscriptionStatus } from './service';
