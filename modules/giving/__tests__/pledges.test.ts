import { randomUUID } from 'node:crypto';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { StewardError } from '../../../core/errors';
import { withTenantTransaction } from '../../../db/pool';
import { requireOpenPledge } from '../pledges';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { insertContact, insertDonation, insertFund } from './pledges-recurring-fixtures';

/**
 * Pledge campaigns and pledges: progress is computed from linked donations in committed batches,
 * net of refunds; uncommitted donations and cancelled pledges' promises count nowhere.
 * The campaign's dates lie wholly in the past (or future), so "expected by today" does not depend on the day the test runs.
 */
describe('giving pledges', () => {
  let harness: Harness;
  let org: TestOrg;
  let fundId: string;
  let ann: string;
  let bob: string;
  let cat: string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Pledge Chapel' });
    fundId = await insertFund(harness.pool, org.orgId, 'Building');
    ann = await insertContact(harness.pool, org.orgId, 'Ann');
    bob = await insertContact(harness.pool, org.orgId, 'Bob');
    cat = await insertContact(harness.pool, org.orgId, 'Cat');
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function refund(donationId: string, amount: number): Promise<void> {
    await harness.pool.query(`INSERT INTO giving_refunds (id, org_id, donation_id, fund_id, amount, reason, refunded_on)
      VALUES ($1, $2, $3, $4, $5, 'test', '2025-06-30')`, [randomUUID(), org.orgId, donationId, fundId, amount]);
  }

  it('walks a campaign over MCP: pledges once and monthly, gifts linked, committed only, net of refunds; cancelling takes a promise out', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await mcp.callTool({ name, arguments: args }, CallToolResultSchema);
      if (result.isError) throw new Error(`${name}: ${(result.content as any)[0].text}`);
      return result.structuredContent as any;
    };
    try {
      const { campaign } = await call('giving_create_pledge_campaign', { name: 'Roof 2025', fundId, goalAmount: 500_000, startsOn: '2025-01-01', endsOn: '2025-12-31' });
      expect(campaign).toMatchObject({ name: 'Roof 2025', fundId, fundName: 'Building', goalAmount: 500_000, currency: 'GBP', status: 'active' });

      const once = (await call('giving_create_pledge', { campaignId: campaign.id, contactId: ann, amount: 50_000, startsOn: '2025-02-01' })).pledge;
      expect(once).toMatchObject({ period: 'one_off', pledgedTotal: 50_000, expectedToDate: 50_000, received: 0, outstanding: 50_000, fulfilled: false, contactName: 'Ann Giver' });
      // Monthly through the campaign's end: 12 × £100.
      const monthly = (await call('giving_create_pledge', { campaignId: campaign.id, contactId: bob, amount: 10_000, period: 'monthly', startsOn: '2025-01-31' })).pledge;
      expect(monthly).toMatchObject({ period: 'monthly', endsOn: null, pledgedTotal: 120_000, expectedToDate: 120_000 });
      // Quarterly with its own end: Mar, Jun, Sep.
      const quarterly = (await call('giving_create_pledge', { campaignId: campaign.id, contactId: cat, amount: 7_500, period: 'quarterly', startsOn: '2025-03-15', endsOn: '2025-09-30' })).pledge;
      expect(quarterly).toMatchObject({ pledgedTotal: 22_500 });

      await insertDonation(harness.pool, org.orgId, { contactId: ann, pledgeId: once.id, designations: [{ fundId, amount: 20_000 }], receivedOn: '2025-03-01' });
      // Staged, not committed: counts nowhere.
      await insertDonation(harness.pool, org.orgId, { contactId: ann, pledgeId: once.id, designations: [{ fundId, amount: 30_000 }], committed: false, receivedOn: '2025-04-01' });
      const bobGifts = [];
      for (const month of ['01', '02', '03']) {
        bobGifts.push(await insertDonation(harness.pool, org.orgId, { contactId: bob, pledgeId: monthly.id, designations: [{ fundId, amount: 10_000 }], receivedOn: `2025-${month}-28` }));
      }
      await refund(bobGifts[1].donationId, 4_000);
      await insertDonation(harness.pool, org.orgId, { contactId: cat, pledgeId: quarterly.id, designations: [{ fundId, amount: 22_500 }], receivedOn: '2025-03-15' });
      // A gift to the fund not linked to any pledge is not pledge progress.
      await insertDonation(harness.pool, org.orgId, { contactId: cat, designations: [{ fundId, amount: 99_999 }] });

      const annProgress = await call('giving_get_pledge_progress', { pledgeId: once.id });
      expect(annProgress.pledge).toMatchObject({ received: 20_000, outstanding: 30_000, donationCount: 1, lastGiftOn: '2025-03-01', fulfilled: false });
      const bobProgress = (await call('giving_get_pledge_progress', { pledgeId: monthly.id })).pledge;
      expect(bobProgress).toMatchObject({ received: 26_000, outstanding: 94_000, donationCount: 3, lastGiftOn: '2025-03-28' });
      const catProgress = (await call('giving_get_pledge_progress', { pledgeId: quarterly.id })).pledge;
      expect(catProgress).toMatchObject({ received: 22_500, outstanding: 0, fulfilled: true });

      const whole = (await call('giving_get_pledge_progress', { campaignId: campaign.id })).campaign;
      expect(whole).toMatchObject({
        goalAmount: 500_000, pledgedTotal: 192_500, received: 68_500, expectedToDate: 192_500, outstanding: 124_000,
        percentOfGoal: 13, percentOfPledged: 35, pledgeCount: 3, openPledgeCount: 3, cancelledPledgeCount: 0, fulfilledPledgeCount: 1,
      });

      const cancelled = (await call('giving_cancel_pledge', { pledgeId: monthly.id })).pledge;
      expect(cancelled).toMatchObject({ status: 'cancelled', received: 26_000, outstanding: 0 });
      const after = (await call('giving_get_pledge_progress', { campaignId: campaign.id })).campaign;
      // Bob's promise is gone; his gifts still count as received.
      expect(after).toMatchObject({ pledgedTotal: 72_500, received: 68_500, openPledgeCount: 2, cancelledPledgeCount: 1 });

      const listed = await call('giving_list_pledges', { campaignId: campaign.id, status: 'open' });
      expect(listed.pledges.map((pledge: any) => pledge.id).sort()).toEqual([once.id, quarterly.id].sort());
      const bobs = await call('giving_list_pledges', { contactId: bob });
      expect(bobs.pledges.map((pledge: any) => pledge.id)).toEqual([monthly.id]);
      const campaigns = await call('giving_list_pledge_campaigns', {});
      expect(campaigns.campaigns).toEqual([expect.objectContaining({ campaign: expect.objectContaining({ id: campaign.id }), received: 68_500 })]);

      const closed = (await call('giving_close_pledge_campaign', { campaignId: campaign.id })).campaign;
      expect(closed.status).toBe('closed');
      expect((await call('giving_list_pledge_campaigns', { status: 'active' })).campaigns).toEqual([]);
      const late = await harness.invoke(org.apiKey, 'giving_create_pledge', { campaignId: campaign.id, contactId: ann, amount: 100 });
      expect(late.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'campaignId' }] });
    } finally {
      await mcp.close();
    }
  });

  it('gifts recorded with pledgeId count once their batch is committed; refunded money comes off', async () => {
    const { campaign } = await harness.call(org.apiKey, 'giving_create_pledge_campaign', { name: 'Hall 2025', fundId, startsOn: '2025-01-01', endsOn: '2025-12-31' });
    const { pledge } = await harness.call(org.apiKey, 'giving_create_pledge', { campaignId: campaign.id, contactId: bob, amount: 30_000 });
    const { batch } = await harness.call(org.apiKey, 'giving_create_batch', { name: 'Sunday' });
    const recorded = await harness.call(org.apiKey, 'giving_record_donation', {
      batchId: batch.id, contactId: bob, amount: 12_000, method: 'cheque', receivedOn: '2025-05-04', fundId, pledgeId: pledge.id,
    });
    expect(recorded.donation.pledgeId).toBe(pledge.id);
    expect((await harness.call(org.apiKey, 'giving_get_pledge_progress', { pledgeId: pledge.id })).pledge).toMatchObject({ received: 0, donationCount: 0 });
    await harness.call(org.apiKey, 'giving_commit_batch', { batchId: batch.id });
    expect((await harness.call(org.apiKey, 'giving_get_pledge_progress', { pledgeId: pledge.id })).pledge).toMatchObject({ received: 12_000, outstanding: 18_000, donationCount: 1 });

    const refund = await harness.invoke(org.apiKey, 'giving_refund_donation', { donationId: recorded.donation.id, amount: 2_000, reason: 'Cheque part returned' });
    await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: refund.body.error!.details.proposalId });
    expect((await harness.call(org.apiKey, 'giving_get_pledge_progress', { pledgeId: pledge.id })).pledge).toMatchObject({ received: 10_000, outstanding: 20_000 });
    const shown = await harness.call(org.apiKey, 'giving_get_donation', { donationId: recorded.donation.id });
    expect(shown.donation.refunded).toBe(2_000);

    await harness.call(org.apiKey, 'giving_cancel_pledge', { pledgeId: pledge.id });
    const refused = await harness.invoke(org.apiKey, 'giving_record_donation', { contactId: bob, amount: 100, method: 'cash', receivedOn: '2025-05-11', fundId, pledgeId: pledge.id });
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'pledgeId' }] });
  });

  it('a future campaign expects nothing yet', async () => {
    const { campaign } = await harness.call(org.apiKey, 'giving_create_pledge_campaign', { name: 'Organ 2099', fundId, startsOn: '2099-01-01', endsOn: '2099-12-31' });
    const { pledge } = await harness.call(org.apiKey, 'giving_create_pledge', { campaignId: campaign.id, contactId: ann, amount: 1_000, period: 'weekly' });
    expect(pledge).toMatchObject({ startsOn: '2099-01-01', pledgedTotal: 53_000, expectedToDate: 0, received: 0 });
    const progress = await harness.call(org.apiKey, 'giving_get_pledge_progress', { campaignId: campaign.id });
    expect(progress.campaign).toMatchObject({ goalAmount: null, percentOfGoal: null, percentOfPledged: 0, pledgedTotal: 53_000 });
  });

  it('refuses bad pledges and campaigns with a clear error, writing nothing', async () => {
    const { campaign } = await harness.call(org.apiKey, 'giving_create_pledge_campaign', { name: 'Open-ended', fundId, startsOn: '2025-01-01' });
    const archived = await insertFund(harness.pool, org.orgId, 'Old roof');
    await harness.pool.query("UPDATE giving_funds SET status = 'archived' WHERE id = $1", [archived]);
    const other = await harness.createOrg({ name: 'Pledge Elsewhere' });
    const foreignContact = await insertContact(harness.pool, other.orgId, 'Foreign');
    const before = (await harness.pool.query('SELECT count(*)::int AS n FROM giving_pledges WHERE org_id = $1', [org.orgId])).rows[0].n;

    const cases: Array<[string, string, Record<string, unknown>, string, string | undefined]> = [
      ['giving_create_pledge', 'periodic without any end', { campaignId: campaign.id, contactId: ann, amount: 100, period: 'monthly' }, 'validation_failed', 'endsOn'],
      ['giving_create_pledge', 'one-off with an end', { campaignId: campaign.id, contactId: ann, amount: 100, endsOn: '2025-06-01' }, 'validation_failed', 'endsOn'],
      ['giving_create_pledge', 'before its campaign', { campaignId: campaign.id, contactId: ann, amount: 100, startsOn: '2024-12-31' }, 'validation_failed', 'startsOn'],
      ['giving_create_pledge', 'over ten years', { campaignId: campaign.id, contactId: ann, amount: 100, period: 'yearly', startsOn: '2025-01-01', endsOn: '2036-01-01' }, 'validation_failed', 'endsOn'],
      ['giving_create_pledge', 'fractional', { campaignId: campaign.id, contactId: ann, amount: 99.5 }, 'validation_failed', 'amount'],
      ['giving_create_pledge', '10^15', { campaignId: campaign.id, contactId: ann, amount: 1e15 }, 'validation_failed', 'amount'],
      ['giving_create_pledge', 'not a real date', { campaignId: campaign.id, contactId: ann, amount: 100, startsOn: '2025-02-30' }, 'validation_failed', 'startsOn'],
      ['giving_create_pledge', 'a foreign giver', { campaignId: campaign.id, contactId: foreignContact, amount: 100 }, 'not_found', undefined],
      ['giving_create_pledge', 'an unknown campaign', { campaignId: randomUUID(), contactId: ann, amount: 100 }, 'not_found', undefined],
      ['giving_create_pledge_campaign', 'an archived fund', { name: 'Archived', fundId: archived }, 'validation_failed', 'fundId'],
      ['giving_create_pledge_campaign', 'an unknown fund', { name: 'Nowhere', fundId: randomUUID() }, 'not_found', undefined],
      ['giving_create_pledge_campaign', 'ends before it starts', { name: 'Backwards', fundId, startsOn: '2025-05-01', endsOn: '2025-04-01' }, 'validation_failed', 'endsOn'],
      ['giving_create_pledge_campaign', 'a name taken (any case)', { name: 'OPEN-ENDED', fundId }, 'conflict', undefined],
      ['giving_get_pledge_progress', 'both ids', { campaignId: campaign.id, pledgeId: randomUUID() }, 'validation_failed', 'pledgeId'],
      ['giving_get_pledge_progress', 'neither id', {}, 'validation_failed', 'pledgeId'],
    ];
    for (const [tool, label, args, code, field] of cases) {
      const response = await harness.invoke(org.apiKey, tool, args);
      expect({ label, code: response.body.error?.code }).toEqual({ label, code });
      if (field) expect({ label, paths: response.body.error?.issues?.map((issue) => issue.path) }).toEqual({ label, paths: expect.arrayContaining([field]) });
    }
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM giving_pledges WHERE org_id = $1', [org.orgId])).rows[0].n).toBe(before);
  });

  it('another organisation sees none of it, and a cancelled pledge cannot take new gifts', async () => {
    const { campaign } = await harness.call(org.apiKey, 'giving_create_pledge_campaign', { name: 'Private appeal', fundId, startsOn: '2025-01-01' });
    const { pledge } = await harness.call(org.apiKey, 'giving_create_pledge', { campaignId: campaign.id, contactId: ann, amount: 2_000 });
    const other = await harness.createOrg({ name: 'Nosy Chapel' });
    for (const [tool, args] of [
      ['giving_get_pledge_progress', { pledgeId: pledge.id }], ['giving_get_pledge_progress', { campaignId: campaign.id }],
      ['giving_cancel_pledge', { pledgeId: pledge.id }], ['giving_close_pledge_campaign', { campaignId: campaign.id }],
      ['giving_create_pledge', { campaignId: campaign.id, contactId: ann, amount: 100 }],
    ] as const) {
      const response = await harness.invoke(other.apiKey, tool, args);
      expect({ tool, status: response.status, code: response.body.error?.code }).toEqual({ tool, status: 404, code: 'not_found' });
    }
    expect((await harness.call(other.apiKey, 'giving_list_pledges', { campaignId: campaign.id })).pledges).toEqual([]);
    expect((await harness.call(other.apiKey, 'giving_list_pledge_campaigns', {})).campaigns).toEqual([]);
    const volunteer = await harness.createKey(org.orgId, ['people:read'], 'volunteer');
    expect((await harness.invoke(volunteer.apiKey, 'giving_get_pledge_progress', { pledgeId: pledge.id })).body.error?.code).toBe('insufficient_scope');

    // What recording a donation with pledgeId checks.
    const linkable = await withTenantTransaction(harness.pool, org.orgId, (db) => requireOpenPledge(db, org.orgId, pledge.id, [fundId]));
    expect(linkable).toEqual({ id: pledge.id, campaignId: campaign.id, contactId: ann, currency: 'GBP' });
    await expect(withTenantTransaction(harness.pool, other.orgId, (db) => requireOpenPledge(db, other.orgId, pledge.id, [fundId]))).rejects.toMatchObject({ code: 'not_found' });
    await harness.call(org.apiKey, 'giving_cancel_pledge', { pledgeId: pledge.id });
    const refused = await withTenantTransaction(harness.pool, org.orgId, (db) => requireOpenPledge(db, org.orgId, pledge.id, [fundId])).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StewardError);
    expect(refused).toMatchObject({ code: 'validation_failed', issues: [{ path: 'pledgeId' }] });
    const again = await harness.invoke(org.apiKey, 'giving_cancel_pledge', { pledgeId: pledge.id });
    expect(again.body.error?.code).toBe('conflict');
  });
  it("links a gift to a pledge only when it is to the pledge's fund, unless the pledge spans funds", async () => {
    const general = await insertFund(harness.pool, org.orgId, 'General');
    const { campaign } = await harness.call(org.apiKey, 'giving_create_pledge_campaign', { name: 'Funds 2025', fundId, startsOn: '2025-01-01', endsOn: '2025-12-31' });
    const pledge = (await harness.call(org.apiKey, 'giving_create_pledge', { campaignId: campaign.id, contactId: ann, amount: 10_000, startsOn: '2025-02-01' })).pledge;
    expect(pledge.spansFunds).toBe(false);
    const gift = { contactId: ann, amount: 5_000, method: 'online', receivedOn: '2025-03-01', pledgeId: pledge.id, commit: true };

    const wrongFund = await harness.invoke(org.apiKey, 'giving_record_donation', { ...gift, fundId: general });
    expect(wrongFund.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'pledgeId' }] });
    expect(wrongFund.body.error?.message).toContain('Building');
    // Part of a split to another fund would count towards the promise too.
    const split = await harness.invoke(org.apiKey, 'giving_record_donation', { ...gift, designations: [{ fundId, amount: 2_500 }, { fundId: general, amount: 2_500 }] });
    expect(split.body.error?.code).toBe('validation_failed');
    await harness.call(org.apiKey, 'giving_record_donation', { ...gift, fundId });
    expect((await harness.call(org.apiKey, 'giving_get_pledge_progress', { pledgeId: pledge.id })).pledge.received).toBe(5_000);

    const anyFund = (await harness.call(org.apiKey, 'giving_create_pledge', { campaignId: campaign.id, contactId: bob, amount: 10_000, startsOn: '2025-02-01', spansFunds: true })).pledge;
    expect(anyFund.spansFunds).toBe(true);
    await harness.call(org.apiKey, 'giving_record_donation', { ...gift, contactId: bob, pledgeId: anyFund.id, fundId: general });
    expect((await harness.call(org.apiKey, 'giving_get_pledge_progress', { pledgeId: anyFund.id })).pledge.received).toBe(5_000);
  });
});
