import { randomUUID } from 'node:crypto';
import { METERED_FEATURES, type MeteredFeature } from '../../core/billing';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listPlanAllowances, planOf, setOrgPlan, usageFor, usageSummary, type FeatureUsage } from '../../kernel/billing';
import { PaymentRefusedError, openCallCheckout, paymentProviderFromEnv, stableUuid, type CheckoutCall, type CheckoutSession, type PaymentProvider } from '../../kernel/payments';
import { notFound } from '../kit';
import type { AllowanceCheck } from '../module';

/**
 * The organisation's own Steward plan: its subscription (Stripe's states), the entitlements that
 * follow from plan and state, invoices, spend caps, and the provider's events applied once and in
 * order. The plan an organisation is on lives with the kernel (`organisations.plan_code`, which
 * every allowance reads); billing moves it only on a signed webhook or an approved change.
 */

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** How long a past-due subscription keeps service messages going (and marketing sends stopped) before it turns read-only. */
export const GRACE_DAYS = 14;
/** Spend-cap alert thresholds, in percent of the cap. */
export const CAP_ALERT_PERCENTS = [50, 80, 100] as const;

const DAY = 86_400_000;
const feature = (name: string) => name.replace(/_/g, ' ');

interface SubscriptionRow {
  org_id: string;
  plan_code: string;
  status: SubscriptionStatus;
  trial_ends_at: Date | null;
  current_period_start: Date;
  current_period_end: Date;
  cancel_at_period_end: boolean;
  canceled_at: Date | null;
  past_due_since: Date | null;
  provider_customer_id: string | null;
  provider_subscription_id: string | null;
  last_event_at: Date | null;
}

export interface Subscription {
  planCode: string;
  /** The state now: a cancellation at period end whose period has passed reads as canceled. */
  status: SubscriptionStatus;
  /** False for an organisation on its plan with no paid subscription (provisioned by an operator). */
  billed: boolean;
  trialEndsAt: string | null;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  pastDueSince: string | null;
}

export interface Entitlements {
  plan: string;
  status: SubscriptionStatus;
  /** Metered features may be used at all (within allowance and spend caps). */
  meteredUse: boolean;
  /** Service messages (rota reminders, receipts) may go. */
  serviceMessages: boolean;
  /** Marketing sends (broadcasts, marketing-purpose messages) may go. */
  marketingSends: boolean;
  /** Only reads: nothing new is recorded against the plan. Data is kept either way. */
  readOnly: boolean;
  /** While past due: when service messages stop too. */
  graceEndsAt: string | null;
  reason: string;
}

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

async function subscriptionRow(db: Queryable, orgId: string, lock = false): Promise<SubscriptionRow | undefined> {
  return queryOne<SubscriptionRow>(db, `SELECT * FROM billing_subscriptions WHERE org_id = $1${lock ? ' FOR UPDATE' : ''}`, [orgId]);
}

function effectiveStatus(row: SubscriptionRow, now: Date): SubscriptionStatus {
  if (row.status !== 'canceled' && row.cancel_at_period_end && now >= new Date(row.current_period_end)) return 'canceled';
  if (row.status === 'trialing' && row.trial_ends_at && now >= new Date(row.trial_ends_at)) return 'past_due';
  return row.status;
}

export async function getSubscription(db: Queryable, orgId: string, now = new Date()): Promise<Subscription> {
  const row = await subscriptionRow(db, orgId);
  if (!row) {
    const plan = await planOf(db, orgId);
    if (!plan) throw notFound('organisation', orgId);
    return { planCode: plan, status: 'active', billed: false, trialEndsAt: null, currentPeriodStart: null, currentPeriodEnd: null, cancelAtPeriodEnd: false, canceledAt: null, pastDueSince: null };
  }
  const status = effectiveStatus(row, now);
  return {
    planCode: row.plan_code, status, billed: true, trialEndsAt: iso(row.trial_ends_at), currentPeriodStart: iso(row.current_period_start),
    currentPeriodEnd: iso(row.current_period_end), cancelAtPeriodEnd: row.cancel_at_period_end,
    canceledAt: iso(row.canceled_at ?? (status === 'canceled' ? row.current_period_end : null)), pastDueSince: iso(row.past_due_since),
  };
}

/** What plan and state allow (spec: past_due keeps service messages and stops marketing during a grace window; canceled is read-only). */
export function entitlementsOf(subscription: Subscription, now = new Date()): Entitlements {
  const base = { plan: subscription.planCode, status: subscription.status, graceEndsAt: null as string | null };
  switch (subscription.status) {
    case 'trialing':
    case 'active':
      return { ...base, meteredUse: true, serviceMessages: true, marketingSends: true, readOnly: false, reason: `The ${subscription.planCode} plan is ${subscription.status}.` };
    case 'past_due': {
      const since = subscription.pastDueSince ? new Date(subscription.pastDueSince) : now;
      const graceEnds = new Date(since.getTime() + GRACE_DAYS * DAY);
      if (now < graceEnds) {
        return {
          ...base, graceEndsAt: graceEnds.toISOString(), meteredUse: true, serviceMessages: true, marketingSends: false, readOnly: false,
          reason: `A payment failed: service messages continue until ${graceEnds.toISOString().slice(0, 10)}, marketing sends are paused until the invoice is paid.`,
        };
      }
      return { ...base, graceEndsAt: graceEnds.toISOString(), meteredUse: false, serviceMessages: false, marketingSends: false, readOnly: true, reason: `A payment failed and the ${GRACE_DAYS}-day grace period ended on ${graceEnds.toISOString().slice(0, 10)}: read-only until the invoice is paid.` };
    }
    case 'unpaid':
      return { ...base, meteredUse: false, serviceMessages: false, marketingSends: false, readOnly: true, reason: 'The subscription is unpaid: read-only until the invoice is paid. Nothing has been deleted.' };
    case 'paused':
      return { ...base, meteredUse: false, serviceMessages: false, marketingSends: false, readOnly: true, reason: 'The subscription is paused: read-only until it resumes. Nothing has been deleted.' };
    case 'canceled':
      return { ...base, meteredUse: false, serviceMessages: false, marketingSends: false, readOnly: true, reason: 'The subscription is canceled: read-only. Nothing has been deleted; subscribe again with billing_create_checkout_link.' };
  }
}

export async function entitlementsFor(db: Queryable, orgId: string, now = new Date()): Promise<Entitlements> {
  return entitlementsOf(await getSubscription(db, orgId, now), now);
}

// ---------------------------------------------------------------- plans and prices

export interface PlanView {
  code: string;
  name: string;
  priceMinor: number;
  currency: string;
  interval: 'month';
  allowances: Array<{ feature: MeteredFeature; monthlyLimit: number | null }>;
  current: boolean;
}

export async function listPlans(db: Queryable, orgId: string): Promise<PlanView[]> {
  // One after another: they share the transaction's connection, which runs one query at a time anyway.
  const plans = await listPlanAllowances(db);
  const prices = await queryRows<{ plan_code: string; amount_minor: number; currency: string; rank: number }>(db, 'SELECT * FROM billing_plan_prices');
  const current = await planOf(db, orgId);
  return plans
    .map((plan) => ({ plan, price: prices.find((row) => row.plan_code === plan.code) }))
    .filter((entry) => entry.price)
    .sort((a, b) => a.price!.rank - b.price!.rank)
    .map(({ plan, price }) => ({
      code: plan.code, name: plan.name, priceMinor: price!.amount_minor, currency: price!.currency, interval: 'month' as const,
      allowances: METERED_FEATURES.map((name) => ({ feature: name, monthlyLimit: plan.allowances[name] ?? null })),
      current: plan.code === current,
    }));
}

async function requirePlan(db: Queryable, orgId: string, planCode: string): Promise<PlanView> {
  const plans = await listPlans(db, orgId);
  const plan = plans.find((entry) => entry.code === planCode);
  if (!plan) {
    throw new StewardError('validation_failed', `Unknown plan "${planCode}"`, {
      hint: `Plans: ${plans.map((entry) => entry.code).join(', ')} (billing_list_plans).`, issues: [{ path: 'planCode', message: 'unknown plan' }],
    });
  }
  return plan;
}

export interface PlanChangePreview {
  from: string;
  to: string;
  direction: 'upgrade' | 'downgrade' | 'same';
  currentPriceMinor: number;
  newPriceMinor: number;
  currency: string;
  /** What a change now would charge for the rest of this period (prorated by time left); 0 for a downgrade or an unbilled org. */
  proratedChargeMinor: number;
  allowanceChanges: Array<{ feature: MeteredFeature; from: number | null; to: number | null; used: number; overBy: number }>;
  notes: string[];
}

export async function previewPlanChange(db: Queryable, orgId: string, planCode: string, now = new Date()): Promise<PlanChangePreview> {
  const target = await requirePlan(db, orgId, planCode);
  const subscription = await getSubscription(db, orgId, now);
  const current = await requirePlan(db, orgId, subscription.planCode);
  const direction = target.priceMinor === current.priceMinor && target.code === current.code ? 'same' : target.priceMinor >= current.priceMinor ? 'upgrade' : 'downgrade';
  let prorated = 0;
  if (direction === 'upgrade' && subscription.billed && subscription.currentPeriodStart && subscription.currentPeriodEnd && subscription.status !== 'canceled') {
    const start = Date.parse(subscription.currentPeriodStart);
    const end = Date.parse(subscription.currentPeriodEnd);
    const left = Math.max(0, Math.min(1, (end - now.getTime()) / (end - start)));
    prorated = Math.round((target.priceMinor - current.priceMinor) * left);
  } else if (direction === 'upgrade') prorated = target.priceMinor;
  const usage = await usageSummary(db, orgId);
  const allowanceChanges = target.allowances
    .map((allowance) => {
      const from = current.allowances.find((entry) => entry.feature === allowance.feature)?.monthlyLimit ?? null;
      const used = usage.find((entry) => entry.feature === allowance.feature)?.used ?? 0;
      return { feature: allowance.feature, from, to: allowance.monthlyLimit, used, overBy: allowance.monthlyLimit === null ? 0 : Math.max(0, used - allowance.monthlyLimit) };
    })
    .filter((change) => change.from !== change.to);
  const notes: string[] = [];
  if (direction === 'downgrade') notes.push('Nothing is deleted on a downgrade: a feature over its new allowance keeps its data and only stops taking new uses until usage is back under it.');
  for (const change of allowanceChanges.filter((entry) => entry.overBy > 0)) notes.push(`${feature(change.feature)}: ${change.used} used, ${change.overBy} over the ${target.name} allowance of ${change.to}.`);
  if (direction === 'upgrade') notes.push('An upgrade through billing_create_checkout_link takes effect when the payment provider confirms payment.');
  return {
    from: current.code, to: target.code, direction, currentPriceMinor: current.priceMinor, newPriceMinor: target.priceMinor, currency: target.currency,
    proratedChargeMinor: prorated, allowanceChanges, notes,
  };
}

// ---------------------------------------------------------------- checkout and portal

export function requireProvider(): PaymentProvider {
  const provider = paymentProviderFromEnv();
  if (!provider) {
    throw new StewardError('not_configured', 'No payment provider is configured (PAYMENTS_API_URL and PAYMENTS_SECRET_KEY)', {
      hint: 'npm start runs a local payment sandbox; otherwise set PAYMENTS_API_URL, PAYMENTS_SECRET_KEY and PAYMENTS_WEBHOOK_SECRET.',
    });
  }
  return provider;
}

export interface PreparedCheckout { checkoutId: string; planCode: string; session: CheckoutSession }

/**
 * Before the call's transaction: the plan is checked and a checkout session opened at the provider for
 * its price. The checkout's id comes from the call's workflow id and the session's expiry from the
 * call's start, so a retried attempt sends the same request under the same key and gets the first
 * attempt's session back: one call, one session.
 */
export async function prepareCheckout(db: Queryable, orgId: string, input: { planCode: string; returnUrl?: string }, call: CheckoutCall): Promise<PreparedCheckout> {
  const plan = await requirePlan(db, orgId, input.planCode);
  const subscription = await getSubscription(db, orgId);
  if (plan.priceMinor === 0) {
    throw new StewardError('validation_failed', `The ${plan.name} plan is free: there is nothing to pay`, {
      hint: 'A move to a free plan is billing_change_plan (approval-gated).', issues: [{ path: 'planCode', message: 'free plan' }],
    });
  }
  if (subscription.billed && subscription.status !== 'canceled' && subscription.planCode === plan.code) {
    throw new StewardError('conflict', `The organisation is already subscribed to ${plan.name}`, { hint: 'billing_get_plan_status shows the subscription; billing_create_portal_link manages payment.' });
  }
  const checkoutId = stableUuid(`${call.workflowId}:billing-checkout`);
  const base = process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000';
  const session = await openCallCheckout(requireProvider(), {
    idempotencyKey: `billing-checkout-${checkoutId}`, currency: plan.currency, discountMinor: 0,
    lineItems: [{ name: `Steward ${plan.name} plan (monthly)`, unitAmountMinor: plan.priceMinor, quantity: 1 }],
    metadata: { steward_module: 'billing', org_id: orgId, checkout_id: checkoutId, plan_code: plan.code },
    successUrl: input.returnUrl ?? `${base}/`, cancelUrl: input.returnUrl ?? `${base}/`,
    expiresAt: new Date(call.callStartedAt.getTime() + 23 * 3_600_000), requestedAt: call.callStartedAt,
  });
  return { checkoutId, planCode: plan.code, session };
}

export interface CheckoutView { id: string; planCode: string; amountMinor: number; currency: string; status: string; url: string | null; createdAt: string }

export async function recordCheckout(db: Queryable, orgId: string, userId: string | null, prepared: PreparedCheckout): Promise<CheckoutView> {
  await db.query(`INSERT INTO billing_checkouts (id, org_id, plan_code, provider_session_id, amount_minor, currency, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (provider_session_id) DO NOTHING`,
  [prepared.checkoutId, orgId, prepared.planCode, prepared.session.id, prepared.session.amountTotal, prepared.session.currency.toUpperCase(), userId]);
  const row = await queryOne<{ id: string; plan_code: string; amount_minor: number; currency: string; status: string; created_at: Date }>(db,
    'SELECT * FROM billing_checkouts WHERE provider_session_id = $1 AND org_id = $2', [prepared.session.id, orgId]);
  return { id: row!.id, planCode: row!.plan_code, amountMinor: row!.amount_minor, currency: row!.currency, status: row!.status, url: prepared.session.url, createdAt: row!.created_at.toISOString() };
}

export async function openPortal(db: Queryable, orgId: string, returnUrl?: string): Promise<{ url: string; expiresInMinutes: number }> {
  const row = await subscriptionRow(db, orgId);
  if (!row?.provider_customer_id) {
    throw new StewardError('conflict', 'The organisation has no billing account with the payment provider yet', { hint: 'Subscribe first with billing_create_checkout_link; the portal then manages payment methods and invoices.' });
  }
  const provider = requireProvider();
  if (!provider.createPortalSession) throw new StewardError('not_configured', `The payment provider (${provider.name}) has no customer portal`, { hint: 'Use billing_list_invoices and billing_create_checkout_link instead.' });
  const base = process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000';
  const portal = await provider.createPortalSession({ customerId: row.provider_customer_id, returnUrl: returnUrl ?? `${base}/` });
  return { url: portal.url, expiresInMinutes: 5 };
}

// ---------------------------------------------------------------- provider events

/** Serialises everything that moves one organisation's subscription (events and approved changes). */
async function lockBilling(db: Queryable, orgId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`billing:${orgId}`]);
}

function addMonth(date: Date): Date {
  const next = new Date(date);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}

async function nextInvoiceNumber(db: Queryable, orgId: string): Promise<string> {
  const row = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM billing_invoices WHERE org_id = $1', [orgId]);
  return `STW-${String((row?.n ?? 0) + 1).padStart(4, '0')}`;
}

async function upsertInvoice(db: Queryable, orgId: string, input: {
  providerRef: string; planCode: string; status: 'open' | 'paid' | 'void' | 'uncollectible'; amountDueMinor: number; amountPaidMinor: number; currency: string; periodStart: Date; periodEnd: Date;
}): Promise<'recorded' | 'kept_paid'> {
  const existing = await queryOne<{ id: string; status: string }>(db, 'SELECT id, status FROM billing_invoices WHERE provider_ref = $1 AND org_id = $2', [input.providerRef, orgId]);
  if (existing) {
    // A paid invoice stays paid, whatever arrives after it.
    if (existing.status === 'paid') return 'kept_paid';
    await db.query(`UPDATE billing_invoices SET status = $3, amount_paid_minor = $4, paid_at = CASE WHEN $3 = 'paid' THEN now() ELSE paid_at END WHERE id = $1 AND org_id = $2`,
      [existing.id, orgId, input.status, input.amountPaidMinor]);
    return 'recorded';
  }
  await db.query(`INSERT INTO billing_invoices (id, org_id, number, provider_ref, plan_code, status, amount_due_minor, amount_paid_minor, currency, period_start, period_end, paid_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $6 = 'paid' THEN now() END)`,
  [randomUUID(), orgId, await nextInvoiceNumber(db, orgId), input.providerRef, input.planCode, input.status, input.amountDueMinor, input.amountPaidMinor, input.currency.toUpperCase(), input.periodStart, input.periodEnd]);
  return 'recorded';
}

/** A paid checkout: the plan is granted here, once, and only here (never on the redirect). */
export async function applyCheckoutCompleted(db: Queryable, orgId: string, session: CheckoutSession, eventAt: Date): Promise<string> {
  await lockBilling(db, orgId);
  const checkout = await queryOne<{ id: string; plan_code: string; status: string; amount_minor: number; currency: string }>(db,
    'SELECT * FROM billing_checkouts WHERE provider_session_id = $1 AND org_id = $2 FOR UPDATE', [session.id, orgId]);
  if (!checkout) return 'unknown_checkout';
  if (checkout.status === 'complete') return 'already_applied';
  if (session.status !== 'complete' || session.paymentStatus !== 'paid') return 'not_paid';
  await db.query(`UPDATE billing_checkouts SET status = 'complete', completed_at = now() WHERE id = $1`, [checkout.id]);
  const start = new Date();
  const end = addMonth(start);
  await db.query(`INSERT INTO billing_subscriptions (org_id, plan_code, status, current_period_start, current_period_end, provider_customer_id, last_event_at)
    VALUES ($1, $2, 'active', $3, $4, $5, $6)
    ON CONFLICT (org_id) DO UPDATE SET plan_code = EXCLUDED.plan_code, status = 'active', current_period_start = EXCLUDED.current_period_start,
      current_period_end = EXCLUDED.current_period_end, cancel_at_period_end = false, canceled_at = NULL, past_due_since = NULL, trial_ends_at = NULL,
      provider_customer_id = COALESCE(EXCLUDED.provider_customer_id, billing_subscriptions.provider_customer_id),
      last_event_at = GREATEST(billing_subscriptions.last_event_at, EXCLUDED.last_event_at), updated_at = now()`,
  [orgId, checkout.plan_code, start, end, session.customerId ?? null, eventAt]);
  await setOrgPlan(db, orgId, checkout.plan_code);
  await upsertInvoice(db, orgId, {
    providerRef: session.id, planCode: checkout.plan_code, status: 'paid', amountDueMinor: session.amountTotal, amountPaidMinor: session.amountTotal,
    currency: session.currency, periodStart: start, periodEnd: end,
  });
  return 'plan_granted';
}

export async function applyCheckoutExpired(db: Queryable, orgId: string, session: CheckoutSession): Promise<string> {
  const result = await db.query(`UPDATE billing_checkouts SET status = 'expired' WHERE provider_session_id = $1 AND org_id = $2 AND status = 'open'`, [session.id, orgId]);
  return (result.rowCount ?? 0) > 0 ? 'checkout_expired' : 'noted';
}

const seconds = (value: unknown): Date | null => (typeof value === 'number' && Number.isFinite(value) ? new Date(value * 1000) : null);

/**
 * `customer.subscription.created/updated/deleted`: Stripe's subscription object (status,
 * current_period_start/end, cancel_at_period_end, trial_end, metadata.plan_code). Ordering-safe:
 * an event older than the newest one applied is ignored (Stripe does not promise order).
 */
export async function applySubscriptionEvent(db: Queryable, orgId: string, type: string, object: Record<string, unknown>, eventAt: Date): Promise<string> {
  await lockBilling(db, orgId);
  const row = await subscriptionRow(db, orgId, true);
  if (row?.last_event_at && eventAt < new Date(row.last_event_at)) return 'stale_ignored';
  const status = type === 'customer.subscription.deleted' ? 'canceled' : object.status;
  if (!SUBSCRIPTION_STATUSES.includes(status as SubscriptionStatus)) return 'unknown_status';
  const metadata = (object.metadata ?? {}) as Record<string, string>;
  const plans = await listPlans(db, orgId);
  const planCode = plans.some((plan) => plan.code === metadata.plan_code) ? metadata.plan_code! : row?.plan_code ?? await planOf(db, orgId);
  const start = seconds(object.current_period_start) ?? (row ? new Date(row.current_period_start) : new Date());
  const end = seconds(object.current_period_end) ?? (row ? new Date(row.current_period_end) : addMonth(start));
  if (end <= start) return 'invalid_period';
  await db.query(`INSERT INTO billing_subscriptions (org_id, plan_code, status, trial_ends_at, current_period_start, current_period_end, cancel_at_period_end,
      canceled_at, past_due_since, provider_subscription_id, provider_customer_id, last_event_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $3 = 'canceled' THEN now() END, CASE WHEN $3 = 'past_due' THEN now() END, $8, $9, $10)
    ON CONFLICT (org_id) DO UPDATE SET plan_code = EXCLUDED.plan_code, status = EXCLUDED.status, trial_ends_at = EXCLUDED.trial_ends_at,
      current_period_start = EXCLUDED.current_period_start, current_period_end = EXCLUDED.current_period_end, cancel_at_period_end = EXCLUDED.cancel_at_period_end,
      canceled_at = CASE WHEN EXCLUDED.status = 'canceled' THEN COALESCE(billing_subscriptions.canceled_at, now()) ELSE NULL END,
      past_due_since = CASE WHEN EXCLUDED.status = 'past_due' THEN COALESCE(billing_subscriptions.past_due_since, now()) ELSE NULL END,
      provider_subscription_id = COALESCE(EXCLUDED.provider_subscription_id, billing_subscriptions.provider_subscription_id),
      provider_customer_id = COALESCE(EXCLUDED.provider_customer_id, billing_subscriptions.provider_customer_id),
      last_event_at = EXCLUDED.last_event_at, updated_at = now()`,
  [orgId, planCode, status, seconds(object.trial_end), start, end, object.cancel_at_period_end === true,
    typeof object.id === 'string' ? object.id.slice(0, 255) : null, typeof object.customer === 'string' ? object.customer.slice(0, 255) : null, eventAt]);
  // The plan follows the subscription; a canceled one keeps its plan (read-only) and its data.
  if (planCode && status !== 'canceled') await setOrgPlan(db, orgId, planCode);
  return `subscription_${status}`;
}

/** `invoice.paid` / `invoice.payment_failed`: the invoice recorded (paid stays paid) and a failed payment makes the subscription past due. */
export async function applyInvoiceEvent(db: Queryable, orgId: string, type: string, object: Record<string, unknown>, eventAt: Date): Promise<string> {
  await lockBilling(db, orgId);
  if (typeof object.id !== 'string' || !Number.isSafeInteger(object.amount_due) || typeof object.currency !== 'string') return 'invalid_invoice';
  const row = await subscriptionRow(db, orgId, true);
  const planCode = row?.plan_code ?? await planOf(db, orgId);
  const paid = type === 'invoice.paid';
  const start = seconds(object.period_start) ?? new Date();
  const end = seconds(object.period_end) ?? addMonth(start);
  const recorded = await upsertInvoice(db, orgId, {
    providerRef: object.id.slice(0, 255), planCode: planCode!, status: paid ? 'paid' : 'open', amountDueMinor: object.amount_due as number,
    amountPaidMinor: paid ? object.amount_due as number : 0, currency: object.currency, periodStart: start, periodEnd: end > start ? end : addMonth(start),
  });
  // A failure reported for an invoice already paid is older news: nothing changes.
  if (recorded === 'kept_paid' && !paid) return 'stale_ignored';
  if (!row || (row.last_event_at && eventAt < new Date(row.last_event_at))) return paid ? 'invoice_paid' : 'invoice_payment_failed';
  if (paid && (row.status === 'past_due' || row.status === 'unpaid')) {
    await db.query(`UPDATE billing_subscriptions SET status = 'active', past_due_since = NULL, last_event_at = $2, updated_at = now() WHERE org_id = $1`, [orgId, eventAt]);
  } else if (!paid && (row.status === 'active' || row.status === 'trialing')) {
    await db.query(`UPDATE billing_subscriptions SET status = 'past_due', past_due_since = COALESCE(past_due_since, now()), last_event_at = $2, updated_at = now() WHERE org_id = $1`, [orgId, eventAt]);
  }
  return paid ? 'invoice_paid' : 'invoice_payment_failed';
}

// ---------------------------------------------------------------- approved changes

/**
 * The provider's subscription moves to the plan's price, a new price on the subscription's own product
 * (no proration: the new price applies from the next period, as the preview says), inside the change's transaction: a refusal changes nothing here,
 * and a retry of the same change (its workflow) repeats the same request under the same key.
 */
async function moveProviderSubscription(db: Queryable, orgId: string, workflowId: string, subscriptionId: string, planCode: string): Promise<void> {
  const plan = await requirePlan(db, orgId, planCode);
  const provider = requireProvider();
  if (!provider.updateSubscriptionPrice) {
    throw new StewardError('not_configured', `The payment provider (${provider.name}) cannot change a subscription's price`, { hint: 'Change the plan in the provider\'s dashboard, then here.' });
  }
  try {
    await provider.updateSubscriptionPrice({
      subscriptionId, currency: plan.currency, unitAmountMinor: plan.priceMinor,
      idempotencyKey: `billing-change-plan-${stableUuid(`${workflowId}:billing-change-plan:${orgId}:${plan.code}`)}`,
      metadata: { steward_module: 'billing', org_id: orgId, plan_code: plan.code },
    });
  } catch (error) {
    if (error instanceof PaymentRefusedError) {
      throw new StewardError('conflict', `The payment provider refused the plan change: ${error.message}`, { hint: 'billing_get_plan_status shows the subscription; billing_create_portal_link opens the provider\'s portal.' });
    }
    throw error;
  }
}

export async function changePlan(db: Queryable, orgId: string, planCode: string, workflowId: string): Promise<{ subscription: Subscription; preview: PlanChangePreview }> {
  await lockBilling(db, orgId);
  const preview = await previewPlanChange(db, orgId, planCode);
  const subscription = await getSubscription(db, orgId);
  if (subscription.status === 'canceled') throw new StewardError('conflict', 'The subscription is canceled', { hint: 'Subscribe again with billing_create_checkout_link.' });
  if (preview.direction === 'same') throw new StewardError('conflict', `The organisation is already on ${planCode}`, { hint: 'billing_list_plans shows the others.' });
  // A subscription the provider knows (its subscription events named it) is changed there first; one paid only through checkout has none to change.
  const providerSubscriptionId = (await subscriptionRow(db, orgId))?.provider_subscription_id ?? null;
  if (subscription.billed && providerSubscriptionId) await moveProviderSubscription(db, orgId, workflowId, providerSubscriptionId, planCode);
  if (subscription.billed) await db.query('UPDATE billing_subscriptions SET plan_code = $2, updated_at = now() WHERE org_id = $1', [orgId, planCode]);
  await setOrgPlan(db, orgId, planCode);
  return { subscription: await getSubscription(db, orgId), preview };
}

export async function cancelSubscription(db: Queryable, orgId: string, atPeriodEnd: boolean): Promise<Subscription> {
  await lockBilling(db, orgId);
  const row = await subscriptionRow(db, orgId, true);
  if (!row) throw new StewardError('conflict', 'The organisation has no paid subscription to cancel', { hint: 'billing_get_plan_status shows its plan.' });
  if (effectiveStatus(row, new Date()) === 'canceled') throw new StewardError('conflict', 'The subscription is already canceled', { hint: 'billing_get_plan_status shows it.' });
  if (atPeriodEnd) await db.query('UPDATE billing_subscriptions SET cancel_at_period_end = true, updated_at = now() WHERE org_id = $1', [orgId]);
  else await db.query(`UPDATE billing_subscriptions SET status = 'canceled', canceled_at = now(), updated_at = now() WHERE org_id = $1`, [orgId]);
  return getSubscription(db, orgId);
}

// ---------------------------------------------------------------- invoices

export type InvoiceStatus = 'open' | 'paid' | 'void' | 'uncollectible';

export interface InvoiceView {
  id: string; number: string; planCode: string; status: InvoiceStatus; amountDueMinor: number; amountPaidMinor: number; currency: string;
  periodStart: string; periodEnd: string; createdAt: string; paidAt: string | null;
}

export function invoiceView(row: Record<string, any>): InvoiceView {
  return {
    id: row.id, number: row.number, planCode: row.plan_code, status: row.status, amountDueMinor: row.amount_due_minor, amountPaidMinor: row.amount_paid_minor,
    currency: row.currency, periodStart: new Date(row.period_start).toISOString(), periodEnd: new Date(row.period_end).toISOString(),
    createdAt: new Date(row.created_at).toISOString(), paidAt: iso(row.paid_at),
  };
}

export async function getInvoice(db: Queryable, orgId: string, invoiceId: string): Promise<InvoiceView> {
  const row = await queryOne(db, 'SELECT * FROM billing_invoices WHERE id = $1 AND org_id = $2', [invoiceId, orgId]);
  if (!row) throw notFound('invoice', invoiceId);
  return invoiceView(row);
}

// ---------------------------------------------------------------- spend caps

export interface CapUsage extends FeatureUsage {
  capUnits: number | null;
  capRemaining: number | null;
  /** Percent of the cap used (rounded down); null without a cap. */
  capPercent: number | null;
  /** The highest alert threshold (50, 80, 100) crossed this period; null for none. */
  alertLevel: number | null;
}

async function capsOf(db: Queryable, orgId: string): Promise<Map<string, number>> {
  const rows = await queryRows<{ feature: string; cap_units: number }>(db, 'SELECT feature, cap_units FROM billing_spend_caps WHERE org_id = $1', [orgId]);
  return new Map(rows.map((row) => [row.feature, row.cap_units]));
}

function withCap(usage: FeatureUsage, cap: number | undefined): CapUsage {
  if (cap === undefined) return { ...usage, capUnits: null, capRemaining: null, capPercent: null, alertLevel: null };
  const percent = cap === 0 ? (usage.used > 0 ? 100 : 100) : Math.floor((usage.used * 100) / cap);
  const level = [...CAP_ALERT_PERCENTS].reverse().find((threshold) => percent >= threshold) ?? null;
  return { ...usage, capUnits: cap, capRemaining: Math.max(0, cap - usage.used), capPercent: percent, alertLevel: level };
}

export async function usageWithCaps(db: Queryable, orgId: string, only?: MeteredFeature): Promise<CapUsage[]> {
  const caps = await capsOf(db, orgId);
  const usage = only ? [await usageFor(db, orgId, only)] : await usageSummary(db, orgId);
  return usage.map((entry) => withCap(entry, caps.get(entry.feature)));
}

export async function setSpendCap(db: Queryable, orgId: string, name: MeteredFeature, capUnits: number | null): Promise<CapUsage> {
  if (capUnits === null) await db.query('DELETE FROM billing_spend_caps WHERE org_id = $1 AND feature = $2', [orgId, name]);
  else {
    await db.query(`INSERT INTO billing_spend_caps (org_id, feature, cap_units) VALUES ($1, $2, $3)
      ON CONFLICT (org_id, feature) DO UPDATE SET cap_units = EXCLUDED.cap_units, updated_at = now()`, [orgId, name, capUnits]);
  }
  return (await usageWithCaps(db, orgId, name))[0]!;
}

/** A message use the past-due grace window stops: a marketing-purpose message, or a broadcast whose purpose is not known. */
export function isMarketingUse(check: Pick<AllowanceCheck, 'tool' | 'purpose'>): boolean {
  if (check.purpose !== undefined) return check.purpose === 'marketing';
  return /broadcast/.test(check.tool ?? '');
}

const MESSAGE_FEATURES: readonly MeteredFeature[] = ['email_sends', 'messaging_credits'];

/**
 * The kernel's allowance check asks this for every metered use (allowanceGuards): the
 * subscription's entitlements first, then the feature's spend cap, refusing with a clear reason
 * rather than going past it. Runs under the kernel's per-feature lock, so concurrent uses cannot
 * both take the last unit under the cap.
 */
export async function billingAllowanceGuard(db: Queryable, check: AllowanceCheck): Promise<void> {
  const entitlements = await entitlementsFor(db, check.orgId);
  const isMessage = MESSAGE_FEATURES.includes(check.feature);
  if (entitlements.readOnly || (isMessage && !entitlements.marketingSends && isMarketingUse(check))) {
    throw new StewardError('subscription_inactive', `Not allowed while the subscription is ${entitlements.status}: ${entitlements.reason}`, {
      hint: 'billing_get_plan_status shows the subscription; billing_create_portal_link pays an outstanding invoice.',
      details: { feature: check.feature, status: entitlements.status, graceEndsAt: entitlements.graceEndsAt },
    });
  }
  const cap = await queryOne<{ cap_units: number }>(db, 'SELECT cap_units FROM billing_spend_caps WHERE org_id = $1 AND feature = $2', [check.orgId, check.feature]);
  if (cap && check.used + check.units > cap.cap_units) {
    throw new StewardError('spend_cap_reached', `The spend cap on ${feature(check.feature)} is reached: ${check.used} of the ${cap.cap_units} this organisation allows itself this month are used, and this needs ${check.units} more. Nothing was sent or recorded.`, {
      hint: 'billing_get_usage shows usage against each cap; an owner can raise or remove the cap with billing_set_spend_cap.',
      details: { feature: check.feature, used: check.used, cap: cap.cap_units, requested: check.units },
    });
  }
}
