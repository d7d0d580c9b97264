import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTenantTransaction } from '../../../db/pool';
import { assertAllowance } from '../../../kernel/billing';
import { paymentSignature } from '../../../kernel/payments';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { failNextInsertOnce, prepareAttempt } from '../../../test/helpers/retried-attempt';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { paymentsSandboxConfigFromEnv, startPaymentsSandbox, type PaymentsSandbox } from '../../../sandbox/payments/server';
import { seedTaggedContacts } from '../../channels/__tests__/broadcast-seed';
import { startSmsServer, type SmsServer } from '../../channels/__tests__/broadcast-sms-server';

jest.setTimeout(240_000);

/**
 * The organisation's own plan end to end over MCP: an upgrade bought through a checkout link and
 * granted only by the provider's signed webhook (not by the redirect, not by a forged or repeated
 * event), subscription events out of order, a failed payment's grace window, the customer portal,
 * a spend cap stopping a broadcast part-way and refusing a metered call with a clear reason (under
 * 20 concurrent calls too), approval-gated cancellation leaving the organisation read-only, and
 * another organisation seeing none of it.
 */
describe('billing journey: upgrade, spend cap, cancel', () => {
  let harness: Harness;
  let sandbox: PaymentsSandbox;
  let sms: SmsServer;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  const saved: Record<string, string | undefined> = {};

  const call = (name: string, args: Record<string, unknown> = {}) => mcpCall(mcp, name, args, { approvalWaitMs: 0 });
  const refusal = (name: string, args: Record<string, unknown> = {}) => mcpRefusal(mcp, name, args, { approvalWaitMs: 0 });
  const status = async () => call('billing_get_plan_status');
  const planOf = async (orgId: string) => (await harness.pool.query('SELECT plan_code FROM organisations WHERE id = $1', [orgId])).rows[0].plan_code as string;
  const meta = () => ({ steward_module: 'billing', org_id: org.orgId });
  const subscriptionEvent = (created: number, object: Record<string, unknown>, type = 'customer.subscription.updated') =>
    sandbox.sendEvent(type, { object: 'subscription', id: 'sub_test_1', metadata: meta(), ...object }, 'billing', { created });

  beforeAll(async () => {
    sms = await startSmsServer();
    sandbox = await startPaymentsSandbox(paymentsSandboxConfigFromEnv({}));
    for (const [key, value] of Object.entries({ ...sms.env(), ...sandbox.env() })) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
    harness = await Harness.start({ own: true });
    sandbox.setWebhookBaseUrl(harness.url);
    org = await harness.createOrg({ name: 'St Brigid', country: 'GB' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    await otherMcp?.close();
    await mcp?.close();
    await harness?.close();
    await sandbox?.close();
    await sms?.close();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('upgrades only on the signed webhook, once, and applies subscription events in order', async () => {
    const before = await status();
    expect(before.subscription).toMatchObject({ planCode: 'starter', status: 'active', billed: false });
    expect(before.entitlements).toMatchObject({ meteredUse: true, marketingSends: true, readOnly: false });
    const plans = (await call('billing_list_plans')).plans;
    expect(plans.map((plan: any) => [plan.code, plan.priceMinor, plan.current])).toEqual([['starter', 0, true], ['growth', 4900, false], ['enterprise', 19900, false]]);
    expect(plans[0].allowances.find((a: any) => a.feature === 'messaging_credits').monthlyLimit).toEqual(expect.any(Number));

    const preview = (await call('billing_preview_plan_change', { planCode: 'growth' })).preview;
    expect(preview).toMatchObject({ from: 'starter', to: 'growth', direction: 'upgrade', newPriceMinor: 4900, proratedChargeMinor: 4900 });
    expect((await refusal('billing_preview_plan_change', { planCode: 'platinum' })).code).toBe('validation_failed');
    expect((await refusal('billing_create_checkout_link', { planCode: 'starter' })).code).toBe('validation_failed');
    expect(await planOf(org.orgId)).toBe('starter');

    const { checkout } = await call('billing_create_checkout_link', { planCode: 'growth', returnUrl: 'https://example.org/billing/done' });
    expect(checkout).toMatchObject({ planCode: 'growth', amountMinor: 4900, currency: 'GBP', status: 'open', url: expect.stringContaining('/checkout/') });
    const session = sandbox.sessions().find((s) => s.metadata.checkout_id === checkout.id)!;
    expect(session.metadata).toMatchObject({ steward_module: 'billing', org_id: org.orgId, plan_code: 'growth' });

    // Returning from the checkout page grants nothing; nor does a forged event.
    await fetch('https://example.org/billing/done').catch(() => undefined);
    expect((await status()).subscription.planCode).toBe('starter');
    const { webhook } = await sandbox.pay(session.id, { deliver: false });
    const forged = await fetch(webhook.url, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': paymentSignature('wrong', webhook.body, Math.floor(Date.now() / 1000)) }, body: webhook.body });
    expect(forged.status).toBe(401);
    const unsigned = await fetch(webhook.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: webhook.body });
    expect(unsigned.status).toBe(401);
    // Another module's session, or one naming an organisation that does not exist, grants nothing.
    const foreign = await sandbox.sendEvent('checkout.session.completed', { ...session, metadata: { ...session.metadata, steward_module: 'ticketing' } }, 'billing');
    expect(JSON.parse(foreign.result!.body)).toMatchObject({ ignored: 'not a billing event' });
    const ghost = await sandbox.sendEvent('checkout.session.completed', { ...session, metadata: { ...session.metadata, org_id: '00000000-0000-4000-8000-000000000000' } }, 'billing');
    expect(JSON.parse(ghost.result!.body)).toMatchObject({ outcome: 'unknown_organisation' });
    expect(await planOf(org.orgId)).toBe('starter');

    // The signed webhook grants it; the same event again changes nothing.
    const first = await sandbox.deliver(webhook);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ outcome: 'plan_granted' });
    expect(JSON.parse((await sandbox.deliver(webhook)).body)).toMatchObject({ outcome: 'duplicate' });
    const after = await status();
    expect(after.subscription).toMatchObject({ planCode: 'growth', status: 'active', billed: true, cancelAtPeriodEnd: false });
    expect(await planOf(org.orgId)).toBe('growth');
    const { invoices } = await call('billing_list_invoices', {});
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ number: 'STW-0001', planCode: 'growth', status: 'paid', amountDueMinor: 4900, amountPaidMinor: 4900, currency: 'GBP' });
    expect((await call('billing_get_invoice', { invoiceId: invoices[0].id })).invoice.id).toBe(invoices[0].id);

    // Subscription events out of order: the newer applies, the older arriving late is ignored.
    const now = Math.floor(Date.now() / 1000);
    const period = { current_period_start: now - 60, current_period_end: now + 30 * 86_400 };
    expect(JSON.parse((await subscriptionEvent(now + 20, { status: 'active', cancel_at_period_end: false, ...period, metadata: { ...meta(), plan_code: 'growth' } })).result!.body).outcome).toBe('subscription_active');
    expect(JSON.parse((await subscriptionEvent(now + 10, { status: 'unpaid', ...period })).result!.body).outcome).toBe('stale_ignored');
    expect((await status()).subscription.status).toBe('active');

    // A failed payment: past due, service messages continue, marketing sends stop; the invoice paid restores it.
    const failed = await sandbox.sendEvent('invoice.payment_failed', { object: 'invoice', id: 'in_test_2', amount_due: 4900, currency: 'gbp', metadata: meta() }, 'billing', { created: now + 30 });
    expect(JSON.parse(failed.result!.body).outcome).toBe('invoice_payment_failed');
    const pastDue = await status();
    expect(pastDue.subscription.status).toBe('past_due');
    expect(pastDue.entitlements).toMatchObject({ status: 'past_due', serviceMessages: true, marketingSends: false, readOnly: false, graceEndsAt: expect.any(String) });
    // platform_usage reads the same entitlements the allowance check applies.
    expect((await call('platform_usage', {})).entitlements).toEqual({ ...pastDue.entitlements, plan: undefined });
    // The kernel's allowance check asks billing: a marketing message is refused, a service one allowed.
    const check = (purpose: string) => withTenantTransaction(harness.pool, org.orgId, (db) => assertAllowance(db, org.orgId, 'messaging_credits', 1, { tool: 'channels_send_sms', purpose }));
    await expect(check('marketing')).rejects.toMatchObject({ code: 'subscription_inactive' });
    await expect(check('service')).resolves.toBeUndefined();
    await sandbox.sendEvent('invoice.paid', { object: 'invoice', id: 'in_test_2', amount_due: 4900, currency: 'gbp', metadata: meta() }, 'billing', { created: now + 40 });
    expect((await status()).subscription.status).toBe('active');
    const both = (await call('billing_list_invoices', {})).invoices;
    expect(both.map((invoice: any) => invoice.status)).toEqual(['paid', 'paid']);
    // A late payment_failed for a paid invoice never unpays it.
    await sandbox.sendEvent('invoice.payment_failed', { object: 'invoice', id: 'in_test_2', amount_due: 4900, currency: 'gbp', metadata: meta() }, 'billing', { created: now + 35 });
    expect((await call('billing_list_invoices', { status: 'paid' })).invoices).toHaveLength(2);
    expect((await status()).subscription.status).toBe('active');

    // The portal link goes to the requester only, and is not stored with the call's result.
    const portal = (await call('billing_create_portal_link', {})).portal;
    expect(portal.url).toBe(sandbox.portalSessions()[0]!.url);
    const stored = await harness.pool.query("SELECT count(*)::int AS n FROM tool_call_results WHERE org_id = $1 AND result::text LIKE '%' || $2 || '%'", [org.orgId, portal.url]);
    expect(stored.rows[0].n).toBe(0);

    // The dashboard routes through the invoke pair: the checkouts opened, the provider events and what each did.
    const checkouts = (await call('billing_invoke_api_read', { method: 'GET', path: '/api/billing/checkouts' })).result.checkouts;
    expect(checkouts).toEqual([expect.objectContaining({ id: checkout.id, planCode: 'growth', status: 'complete', completedAt: expect.any(String) })]);
    const events = (await call('billing_invoke_api_read', { method: 'GET', path: '/api/billing/provider-events' })).result.events;
    expect(events.map((event: any) => event.outcome).sort()).toEqual(['invoice_paid', 'invoice_payment_failed', 'plan_granted', 'stale_ignored', 'stale_ignored', 'subscription_active'].sort());
    // Each event that changed something left one audit event with the webhook as actor; ignored ones left none.
    const trail = (await call('audit_list_events', { actorKind: 'webhook', limit: 50 })).events;
    expect(trail.map((event: any) => event.action).sort()).toEqual(['billing.checkout.complete', 'billing.invoice.fail', 'billing.invoice.pay', 'billing.subscription.update'].sort());
    expect(trail.every((event: any) => event.tool === 'webhook:payments' && event.actor.userId === null && event.category === 'finance')).toBe(true);
    const curated = await refusal('billing_invoke_api_write', { method: 'PUT', path: '/api/billing/spend-caps/messaging_credits', body: { capUnits: 5 }, actionSummary: 'Cap SMS' });
    expect(curated.code).toBe('use_workflow_tool');
    expect((await mcpCall(otherMcp, 'billing_invoke_api_read', { method: 'GET', path: '/api/billing/checkouts' })).result.checkouts).toEqual([]);

    // Another organisation sees none of it.
    expect((await mcpRefusal(otherMcp, 'billing_get_invoice', { invoiceId: invoices[0].id })).code).toBe('not_found');
    expect((await mcpCall(otherMcp, 'billing_get_plan_status', {})).subscription).toMatchObject({ planCode: 'starter', billed: false });
    const unknown = await mcpRefusal(otherMcp, 'billing_create_portal_link', {});
    expect(unknown.code).toBe('conflict');
  });

  it('a spend cap stops a broadcast part-way and refuses metered calls with a clear reason, under concurrency too', async () => {
    // Messaging credits capped at 3: a 5-person SMS broadcast sends 3 and stops the rest with spend_cap_reached.
    const capped = (await call('billing_set_spend_cap', { feature: 'messaging_credits', capUnits: 3 })).usage;
    expect(capped).toMatchObject({ feature: 'messaging_credits', capUnits: 3, used: 0, capPercent: 0, alertLevel: null });
    expect((await refusal('billing_set_spend_cap', { feature: 'sms', capUnits: 3 })).code).toBe('validation_failed');
    expect((await refusal('billing_set_spend_cap', { feature: 'messaging_credits', capUnits: -1 })).code).toBe('validation_failed');
    const { tagId } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Rota', count: 5, firstNumber: 500 });
    const previewed = await call('channels_preview_broadcast', { name: 'Rota', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'Rota for Sunday is out.' });
    const { broadcast } = await call('channels_schedule_broadcast', { broadcastId: previewed.broadcast.id, previewHash: previewed.previewHash });
    await harness.temporal.workflow.getHandle(`broadcast-${broadcast.id}`).result();
    const done = await call('channels_get_broadcast', { broadcastId: broadcast.id });
    expect(done.recipients.byStatus).toMatchObject({ sent: 3, failed: 2 });
    expect(done.recipients.failedByReason).toEqual({ spend_cap_reached: 2 });
    expect(sms.messages).toHaveLength(3);
    const usage = (await call('billing_get_usage', { feature: 'messaging_credits' })).usage[0];
    expect(usage).toMatchObject({ used: 3, capUnits: 3, capRemaining: 0, capPercent: 100, alertLevel: 100 });
    const alerts = (await call('platform_proactive_alerts', {})).alerts ?? [];
    expect(JSON.stringify(alerts)).toContain('spend cap');

    // A metered tool call at the cap is refused, with why and what to do, and nothing is recorded.
    const contacts = (await call('billing_get_usage', { feature: 'contacts' })).usage[0].used as number;
    await call('billing_set_spend_cap', { feature: 'contacts', capUnits: contacts + 5 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => mcpCall(mcp, 'people_create_contact', { firstName: `Cap${i}`, lastName: 'Test' }, { approvalWaitMs: 0 })
      .then(() => 'ok', (error: Error) => error.message)));
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(results.filter((r) => r !== 'ok').every((message) => message.includes('spend_cap_reached'))).toBe(true);
    const refused = await refusal('people_create_contact', { firstName: 'One', lastName: 'More' });
    expect(refused.code).toBe('spend_cap_reached');
    expect(refused.message).toMatch(/spend cap on contacts is reached: \d+ of the \d+/);
    expect(refused.hint).toContain('billing_set_spend_cap');
    expect((await call('billing_get_usage', { feature: 'contacts' })).usage[0].used).toBe(contacts + 5);
    // Removing the cap lets the call through.
    await call('billing_set_spend_cap', { feature: 'contacts', capUnits: null });
    await call('people_create_contact', { firstName: 'One', lastName: 'More' });
  });

  it('changing plan and canceling wait for a person; a canceled organisation is read-only and keeps its data', async () => {
    // Power over the organisation's billing: a person approves with another credential than the one that proposed.
    const owner = await harness.createKey(org.orgId, ['platform:read', 'platform:write', 'billing:read', 'billing:write'], 'owner');
    const ownerMcp = await harness.mcpClient(owner.apiKey);
    const approve = (proposalId: string) => mcpCall(ownerMcp, 'platform_approve_proposal', { proposalId }, { approvalWaitMs: 0 });
    // The provider does not know the subscription the events named: it refuses the change, and nothing changes here.
    const unknown = await refusal('billing_change_plan', { planCode: 'enterprise' });
    expect(unknown.code).toBe('approval_required');
    const refusedChange = await mcpRefusal(ownerMcp, 'platform_approve_proposal', { proposalId: unknown.details.proposalId }, { approvalWaitMs: 0 });
    expect(refusedChange).toMatchObject({ code: 'conflict', details: { execution: { status: 'failed' } } });
    expect(refusedChange.message).toMatch(/payment provider refused the plan change.*No such subscription: 'sub_test_1'/);
    expect(await planOf(org.orgId)).toBe('growth');
    expect((await status()).subscription.planCode).toBe('growth');

    sandbox.createSubscription({ id: 'sub_test_1', customer: 'cus_test_1', currency: 'gbp', unitAmountMinor: 4900, product: 'prod_StewardSubscription', metadata: { ...meta(), plan_code: 'growth' } });
    const gated = await refusal('billing_change_plan', { planCode: 'enterprise' });
    expect(gated.code).toBe('approval_required');
    expect(await planOf(org.orgId)).toBe('growth');
    // Nothing reaches the provider before a person approves.
    expect(sandbox.subscriptionUpdates()).toEqual([]);
    const changed = await approve(gated.details.proposalId);
    expect(changed.execution.result.subscription.planCode).toBe('enterprise');
    expect(await planOf(org.orgId)).toBe('enterprise');
    // The provider's subscription moved to the enterprise price, its item replaced (not a second one added), without proration,
    // on the product the account already has (the provider knows no product Steward made up).
    expect(sandbox.subscriptionUpdates()).toEqual([{
      subscription: 'sub_test_1', proration_behavior: 'none', idempotency_key: expect.stringMatching(/^billing-change-plan-/),
      price: expect.objectContaining({ currency: 'gbp', unit_amount: 19900, product: 'prod_StewardSubscription', recurring: { interval: 'month' } }),
    }]);
    const atProvider = sandbox.subscriptions().find((subscription) => subscription.id === 'sub_test_1')!;
    expect(atProvider.items.data).toHaveLength(1);
    expect(atProvider.items.data[0].price.unit_amount).toBe(19900);
    expect(atProvider.metadata).toMatchObject({ plan_code: 'enterprise', org_id: org.orgId });

    const cancel = await refusal('billing_cancel_subscription', {});
    expect(cancel.code).toBe('approval_required');
    const atEnd = await approve(cancel.details.proposalId);
    expect(atEnd.execution.result.subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });

    const now = await refusal('billing_cancel_subscription', { atPeriodEnd: false });
    const canceled = await approve(now.details.proposalId);
    expect(canceled.execution.result.subscription.status).toBe('canceled');
    const after = await status();
    expect(after.entitlements).toMatchObject({ status: 'canceled', readOnly: true, meteredUse: false });
    expect((await call('platform_overview', {})).plan).toMatchObject({ planCode: 'enterprise', status: 'canceled', readOnly: true });
    const contactsBefore = (await call('billing_get_usage', { feature: 'contacts' })).usage[0].used;
    const refused = await refusal('people_create_contact', { firstName: 'After', lastName: 'Cancel' });
    expect(refused.code).toBe('subscription_inactive');
    expect(refused.message).toContain('canceled');
    // Nothing was deleted: the contacts and invoices are all still there.
    expect((await call('billing_get_usage', { feature: 'contacts' })).usage[0].used).toBe(contactsBefore);
    expect((await call('billing_list_invoices', {})).invoices).toHaveLength(2);
    await ownerMcp.close();
  });
  it('resubscribes after cancelling: the same payment reported 20 times at once grants the plan once', async () => {
    expect((await status()).subscription.status).toBe('canceled');
    const { checkout } = await call('billing_create_checkout_link', { planCode: 'growth' });
    const session = sandbox.sessions().find((s) => s.metadata.checkout_id === checkout.id)!;
    const { webhook } = await sandbox.pay(session.id, { deliver: false });
    // Ten deliveries of one event and ten distinct events for the same payment, all at once.
    const again = await Promise.all(Array.from({ length: 10 }, () => sandbox.pay(session.id, { deliver: false })));
    const results = await Promise.all([...Array.from({ length: 10 }, () => webhook), ...again.map((entry) => entry.webhook)].map((hook) => sandbox.deliver(hook)));
    expect(results.every((result) => result.status === 200)).toBe(true);
    const outcomes = results.map((result) => JSON.parse(result.body).outcome as string);
    expect(outcomes.filter((outcome) => outcome === 'plan_granted')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome !== 'plan_granted').every((outcome) => outcome === 'duplicate' || outcome === 'already_applied')).toBe(true);
    const after = await status();
    expect(after.subscription).toMatchObject({ planCode: 'growth', status: 'active', cancelAtPeriodEnd: false });
    expect(after.entitlements.readOnly).toBe(false);
    expect((await call('billing_list_invoices', {})).invoices).toHaveLength(3);
    const invoiced = await call('platform_analytics_query', { metric: 'steward_invoiced' });
    expect(invoiced.data).toMatchObject({ invoices: 3, open: 0, totals: [{ currency: 'GBP', due: 4900 * 3, paid: 4900 * 3 }] });
    expect(invoiced.speakToUser).toContain('3 Steward invoices');
    await call('people_create_contact', { firstName: 'Back', lastName: 'Again' });
  });

  it('opens one checkout session per call, however many attempts make it; another call opens its own', async () => {
    const buyer = await harness.createOrg({ name: 'St Aidan' });
    const sessions = () => sandbox.sessions().filter((s) => s.metadata.org_id === buyer.orgId);
    // Two attempts of one call (the first died after its provider call): the same checkout id and session.
    const one = { workflowId: `test-call-${randomUUID()}`, startedAt: new Date(Math.floor(Date.now() / 1000) * 1000) };
    const first = await prepareAttempt(harness.pool, buyer, 'billing_create_checkout_link', { planCode: 'growth' }, one);
    const retried = await prepareAttempt(harness.pool, buyer, 'billing_create_checkout_link', { planCode: 'growth' }, one);
    expect(retried).toEqual(first);
    expect(sessions().map((s) => [s.id, s.metadata.checkout_id, s.status])).toEqual([[first.session.id, first.checkoutId, 'open']]);
    // The session runs 23 hours from the call's start, whichever attempt asked.
    expect(sessions()[0]!.expires_at).toBe(one.startedAt.getTime() / 1000 + 23 * 3_600);
    const other = await prepareAttempt(harness.pool, buyer, 'billing_create_checkout_link', { planCode: 'growth' }, { ...one, workflowId: `test-call-${randomUUID()}` });
    expect(other.checkoutId).not.toBe(first.checkoutId);
    expect(other.session.id).not.toBe(first.session.id);
    expect(sessions()).toHaveLength(2);
  });

  it('keeps the session of an attempt that failed before its commit for the retry: one session, the checkout\'s, open', async () => {
    // A real call whose first attempt fails before its commit: the retry records the session the first opened.
    const buyer = await harness.createOrg({ name: 'St Chad' });
    const sessions = () => sandbox.sessions().filter((s) => s.metadata.org_id === buyer.orgId);
    const buyerMcp = await harness.mcpClient(buyer.apiKey);
    const fault = await failNextInsertOnce(harness.pool, 'billing_checkouts', buyer.orgId);
    try {
      const { checkout } = await mcpCall(buyerMcp, 'billing_create_checkout_link', { planCode: 'enterprise' }, { approvalWaitMs: 0 });
      expect(await fault.inserts()).toBe(2);
      expect(sessions().map((s) => [s.metadata.checkout_id, s.metadata.plan_code, s.status, s.url])).toEqual([[checkout.id, 'enterprise', 'open', checkout.url]]);
    } finally {
      await fault.remove();
      await buyerMcp.close();
    }
  });
});
