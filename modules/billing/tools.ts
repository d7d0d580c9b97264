import { z } from 'zod';
import { METERED_FEATURES } from '../../core/billing';
import { cursorInput, cursorOutput, listPage, toolsFor } from '../kit';
import {
  cancelSubscription, changePlan, entitlementsFor, getInvoice, getSubscription, invoiceView, listPlans, openPortal, prepareCheckout, previewPlanChange,
  recordCheckout, setSpendCap, SUBSCRIPTION_STATUSES, usageWithCaps, type PreparedCheckout,
} from './service';

const tools = toolsFor('billing', { read: 'billing:read', write: 'billing:write' });

const planCode = z.string().trim().min(1).max(40).describe('A plan code from billing_list_plans (starter, growth, enterprise)');
const feature = z.enum(METERED_FEATURES).describe('A metered feature (messaging_credits are SMS/WhatsApp credits)');
const returnUrl = z.url().max(2000).optional().describe('Where the provider sends the person afterwards');

export const subscriptionSchema = z.object({
  planCode: z.string(), status: z.enum(SUBSCRIPTION_STATUSES), billed: z.boolean().describe('False when the organisation is on its plan without a paid subscription'),
  trialEndsAt: z.string().nullable(), currentPeriodStart: z.string().nullable(), currentPeriodEnd: z.string().nullable(),
  cancelAtPeriodEnd: z.boolean(), canceledAt: z.string().nullable(), pastDueSince: z.string().nullable(),
}).strict();

export const entitlementsSchema = z.object({
  plan: z.string(), status: z.enum(SUBSCRIPTION_STATUSES), meteredUse: z.boolean(), serviceMessages: z.boolean(), marketingSends: z.boolean(),
  readOnly: z.boolean(), graceEndsAt: z.string().nullable(), reason: z.string(),
}).strict();

export const usageSchema = z.object({
  feature: z.enum(METERED_FEATURES), used: z.number().int(), limit: z.number().int().nullable(), remaining: z.number().int().nullable(),
  period: z.enum(['month', 'standing']), capUnits: z.number().int().nullable(), capRemaining: z.number().int().nullable(),
  capPercent: z.number().int().nullable(), alertLevel: z.number().int().nullable().describe('The highest spend-cap alert crossed: 50, 80 or 100 (percent)'),
}).strict();

const planSchema = z.object({
  code: z.string(), name: z.string(), priceMinor: z.number().int(), currency: z.string(), interval: z.literal('month'),
  allowances: z.array(z.object({ feature: z.enum(METERED_FEATURES), monthlyLimit: z.number().int().nullable() }).strict()), current: z.boolean(),
}).strict();

const previewSchema = z.object({
  from: z.string(), to: z.string(), direction: z.enum(['upgrade', 'downgrade', 'same']), currentPriceMinor: z.number().int(), newPriceMinor: z.number().int(),
  currency: z.string(), proratedChargeMinor: z.number().int(),
  allowanceChanges: z.array(z.object({ feature: z.enum(METERED_FEATURES), from: z.number().int().nullable(), to: z.number().int().nullable(), used: z.number().int(), overBy: z.number().int() }).strict()),
  notes: z.array(z.string()),
}).strict();

const invoiceSchema = z.object({
  id: z.uuid(), number: z.string(), planCode: z.string(), status: z.enum(['open', 'paid', 'void', 'uncollectible']), amountDueMinor: z.number().int(),
  amountPaidMinor: z.number().int(), currency: z.string(), periodStart: z.string(), periodEnd: z.string(), createdAt: z.string(), paidAt: z.string().nullable(),
}).strict();

export const getPlanStatusTool = tools.read('get_plan_status', {
  title: 'Get plan status',
  description: 'The organisation\'s Steward plan: subscription state (trialing, active, past_due, canceled, unpaid, paused), the current period, a cancellation at period end, what the plan and state allow now (entitlements: metered use, service messages, marketing sends, read-only) and usage against each allowance and spend cap.',
  keywords: ['plan', 'subscription', 'billing status', 'account status', 'are we paid up'],
  examples: ['what plan are we on', 'is our Steward subscription paid up', 'when does our plan renew', 'why can we not send the newsletter', 'are we on the free plan', 'which Steward plan are we on and is it paid', 'is our subscription up to date', 'is our Steward account read-only because of a failed payment', 'our subscription status', "the treasurer's asking if our Steward payment failed, are we still active?", 'when does our current billing period end'],
  input: z.object({}),
  output: z.object({ subscription: subscriptionSchema, entitlements: entitlementsSchema, usage: z.array(usageSchema) }).strict(),
  run: async (ctx) => {
    const subscription = await getSubscription(ctx.db, ctx.org.id);
    return { subscription, entitlements: await entitlementsFor(ctx.db, ctx.org.id), usage: await usageWithCaps(ctx.db, ctx.org.id) };
  },
});

export const listPlansTool = tools.read('list_plans', {
  title: 'List plans',
  description: 'Every Steward plan with its monthly price (minor units) and allowance per metered feature (null: unmetered); marks the current one.',
  keywords: ['pricing', 'plans', 'how much does steward cost', 'allowances'],
  examples: ['what plans are there', 'how much is the growth plan', 'how many SMS credits does each plan include', 'compare Steward plans', 'what do the Steward plans include', 'compare the plans and prices', 'which Steward plan gives us the most email sends', 'what\'s the monthly price of each plan', 'Steward pricing', "we're growing fast, which plan would give us enough texts and emails?", 'what does each tier include'],
  input: z.object({}),
  output: z.object({ plans: z.array(planSchema) }).strict(),
  run: async (ctx) => ({ plans: await listPlans(ctx.db, ctx.org.id) }),
});

export const previewPlanChangeTool = tools.read('preview_plan_change', {
  title: 'Preview a plan change',
  description: 'What moving to another plan would do, changing nothing: price difference, the prorated charge for the rest of the period, each allowance that changes with current usage and any overage. Nothing is ever deleted on a downgrade.',
  keywords: ['upgrade cost', 'downgrade', 'change plan preview', 'proration'],
  examples: ['how much would it cost to upgrade to growth', 'what happens if we downgrade to starter', 'would we lose anything moving to the cheaper plan', 'before we switch, what would the bigger plan cost us this month', 'if we drop a plan, are we over any allowances', 'show the difference between our plan and enterprise', 'what extra would we pay mid-month for growth', 'cost to upgrade', 'before the PCC decides, what would switching to growth cost for the rest of the month?', 'are we going to lose allowances if we downgrade'],
  input: z.object({ planCode }),
  output: z.object({ preview: previewSchema }).strict(),
  run: async (ctx, input) => ({ preview: await previewPlanChange(ctx.db, ctx.org.id, input.planCode) }),
});

export const createCheckoutLinkTool = tools.write('create_checkout_link', {
  power: 'billing',
  title: 'Create a plan checkout link',
  description: 'Opens a payment provider checkout for a paid plan and returns its link for an owner to pay. The plan changes only when the provider\'s signed webhook confirms payment, never when someone returns from the page.',
  keywords: ['upgrade', 'subscribe', 'pay for steward', 'checkout link', 'buy plan'],
  examples: ['upgrade us to the growth plan', 'give me a link to pay for Steward', 'subscribe to enterprise', 'we need more SMS credits, move us up a plan', 'we want to move up to the bigger plan, how do we pay', 'send me the link to pay for Steward', 'the PCC agreed to the growth plan, let\'s pay for it', 'pay for growth', 'the committee approved enterprise, so set up the payment for it', "I'd like to subscribe to a paid plan"],
  input: z.object({ planCode, returnUrl }),
  output: z.object({ checkout: z.object({ id: z.uuid(), planCode: z.string(), amountMinor: z.number().int(), currency: z.string(), status: z.string(), url: z.string().nullable(), createdAt: z.string() }).strict(), note: z.string() }).strict(),
  prepare: async (input, deps) => prepareCheckout(deps.db, deps.org.id, input, deps),
  run: async (ctx, input) => {
    void input;
    const checkout = await recordCheckout(ctx.db, ctx.org.id, ctx.principal.userId, ctx.prepared as PreparedCheckout);
    return { checkout, note: 'The plan changes when the payment provider confirms payment (its signed webhook); billing_get_plan_status shows it then.' };
  },
});

export const createPortalLinkTool = tools.read('create_portal_link', {
  power: 'billing',
  title: 'Create a billing portal link',
  description: 'A short-lived link to the payment provider\'s customer portal (payment method, invoices, receipts). Returned only to the person who asked: it is a bearer link, so do not share or post it.',
  keywords: ['billing portal', 'update card', 'payment method', 'manage subscription', 'card on file', 'card expired', 'change card details', 'billing details'],
  examples: ['I need to update our card for Steward', 'open the billing portal', 'change the payment card on our subscription', 'where can I download our Steward receipts', "I need to update the church's payment card for Steward", 'where do we manage our Steward payment details', 'the treasurer needs our Steward VAT receipts', 'billing portal', 'our debit card has expired, so where do I put the new one in for Steward?', 'can I get our old Steward receipts'],
  input: z.object({ returnUrl }),
  output: z.object({ portal: z.object({ url: z.string(), expiresInMinutes: z.number().int() }).strict() }).strict(),
  // The provider call happens before the (read-only) transaction; a read's result is not stored, so the bearer URL is kept nowhere.
  prepare: async (input, deps) => openPortal(deps.db, deps.org.id, input.returnUrl),
  run: async (ctx) => ({ portal: ctx.prepared as { url: string; expiresInMinutes: number } }),
});

export const changePlanTool = tools.write('change_plan', {
  power: 'billing',
  title: 'Change plan',
  description: 'Moves the organisation to another plan at once (a downgrade, or a change agreed outside checkout); a subscription held with the payment provider moves to the new price there too, from the next period (no proration). Always waits for a person to approve it. Nothing is deleted: a feature over its new allowance keeps its data and only stops taking new uses. Preview first with billing_preview_plan_change; a paid upgrade goes through billing_create_checkout_link.',
  keywords: ['downgrade', 'switch plan', 'change subscription', 'change plan', 'cheaper plan'],
  examples: ['downgrade us to starter', 'move us to the growth plan', 'switch our Steward plan', 'the PCC voted to go down to the cheaper Steward plan', 'put us on starter from today', 'change our subscription to the community plan', 'drop us a plan level to save money', 'change us to a different Steward plan', "we can't afford our plan, move down a tier", 'switch us to the community plan from today', 'downgrade our Steward subscription, the trustees agreed'],
  approval: { kind: 'gated' },
  input: z.object({ planCode }),
  output: z.object({ subscription: subscriptionSchema, preview: previewSchema }).strict(),
  run: async (ctx, input) => changePlan(ctx.db, ctx.org.id, input.planCode, ctx.workflowId),
});

export const cancelSubscriptionTool = tools.write('cancel_subscription', {
  power: 'billing',
  title: 'Cancel the subscription',
  description: 'Cancels the paid subscription, at the end of the current period by default (atPeriodEnd false: now). Always waits for a person to approve it. A canceled organisation is read-only; nothing is deleted.',
  keywords: ['cancel steward', 'stop subscription', 'end plan'],
  examples: ['cancel our Steward subscription', 'stop the plan at the end of the month', 'we are closing, cancel billing', 'we want to stop paying for Steward', 'end our Steward subscription at the end of the month', 'stop Steward billing right away, not at month end', 'the parish is merging, end our Steward plan', 'cancel Steward', "we're moving to a different system in April, so end the subscription when this period runs out", 'I need to stop our paid plan'],
  approval: { kind: 'gated' },
  input: z.object({ atPeriodEnd: z.boolean().default(true) }),
  output: z.object({ subscription: subscriptionSchema }).strict(),
  run: async (ctx, input) => ({ subscription: await cancelSubscription(ctx.db, ctx.org.id, input.atPeriodEnd) }),
});

export const listInvoicesTool = tools.read('list_invoices', {
  title: 'List invoices',
  description: 'The organisation\'s Steward invoices, newest first: number, plan, status (open, paid, void, uncollectible), amounts in minor units; page with nextCursor.',
  keywords: ['invoices', 'receipts', 'billing history', 'what have we paid'],
  examples: ['show our Steward invoices', 'have we paid this month\'s invoice', 'list unpaid Steward bills', 'show our Steward bills', 'what has Steward charged us this year', 'the treasurer wants all Steward invoices for the year end', 'any Steward invoices overdue', 'Steward invoices', 'the auditor wants every Steward bill from last financial year', 'are any of our invoices unpaid'],
  input: z.object({ ...cursorInput, status: invoiceSchema.shape.status.optional() }),
  output: z.object({ invoices: z.array(invoiceSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => {
    const page = await listPage<{ id: string; created_at: Date }>(ctx.db, {
      table: 'billing_invoices', includeDeleted: true, orgId: ctx.org.id, limit: input.limit, cursor: input.cursor,
      ...(input.status ? { where: 'status = $4', values: [input.status] } : {}),
    });
    return { invoices: page.rows.map(invoiceView), nextCursor: page.nextCursor };
  },
});

export const getInvoiceTool = tools.read('get_invoice', {
  title: 'Get an invoice',
  description: 'One Steward invoice: number, plan, period, status, amount due and paid.',
  keywords: ['invoice detail', 'receipt', 'steward invoice', 'bill'],
  examples: ['show invoice STW-0003', 'what was the last Steward invoice for', 'how much was the October Steward invoice', 'is invoice STW-0012 paid', 'what period does the latest Steward invoice cover', 'open the invoice from last month', 'show me the details of that unpaid Steward bill', 'how much do we owe on the March Steward invoice', 'show the Steward bill for last month', 'has invoice STW-0021 been paid yet', 'what was on our latest Steward bill'],
  input: z.object({ invoiceId: z.uuid() }),
  output: z.object({ invoice: invoiceSchema }).strict(),
  run: async (ctx, input) => ({ invoice: await getInvoice(ctx.db, ctx.org.id, input.invoiceId) }),
});

export const setSpendCapTool = tools.write('set_spend_cap', {
  power: 'billing',
  title: 'Set a spend cap',
  description: 'Caps a metered feature for this organisation below its plan allowance (units a month, e.g. 200 messaging credits), or removes the cap (capUnits null). Alerts show at 50, 80 and 100 % of it; at the cap, further use is refused with a clear reason rather than overspending.',
  keywords: ['spend cap', 'limit sms', 'budget', 'stop overspending', 'credit limit'],
  examples: ['cap our SMS credits at 200 a month', 'do not let us send more than 1000 emails this month', 'remove the SMS spend cap', "don't let text messages cost more than £50 a month", 'put a ceiling on what we spend on SMS', 'limit email sends to 5000 a month to keep costs down', 'lift the limit on messaging credits', 'SMS cap 300', 'we overspent on texts last month, so stop us going past 500 credits', 'can we limit email sends to a budget'],
  input: z.object({ feature, capUnits: z.number().int().min(0).max(100_000_000).nullable() }),
  output: z.object({ usage: usageSchema }).strict(),
  run: async (ctx, input) => ({ usage: await setSpendCap(ctx.db, ctx.org.id, input.feature, input.capUnits) }),
});

export const getUsageTool = tools.read('get_usage', {
  title: 'Get usage',
  description: 'Usage of each metered feature this month (or standing), against the plan allowance and any spend cap, with the highest cap alert crossed (50, 80, 100 %); one feature when named.',
  keywords: ['usage', 'credits left', 'sms credits', 'how much have we used', 'spend cap'],
  examples: ['how many SMS credits have we used', 'why did our SMS credits run out', 'how close are we to the email limit', 'what is left of our allowance', 'how many text messages have we used this month', 'how close are we to our allowance', 'how many emails have we sent against the plan this month', 'usage this month', "we're sending the Christmas mailing soon, do we have enough emails left?", 'what percentage of our text allowance is gone'],
  input: z.object({ feature: feature.optional() }),
  output: z.object({ usage: z.array(usageSchema) }).strict(),
  run: async (ctx, input) => ({ usage: await usageWithCaps(ctx.db, ctx.org.id, input.feature) }),
});

export const billingTools = [
  getPlanStatusTool, listPlansTool, previewPlanChangeTool, createCheckoutLinkTool, createPortalLinkTool, changePlanTool, cancelSubscriptionTool,
  listInvoicesTool, getInvoiceTool, setSpendCapTool, getUsageTool,
];
