import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { startHmrcSandbox, type HmrcSandbox } from '../gift-aid/hmrc-sandbox';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall as call, mcpRefusal as refusal, dayFromToday } from '../../../test/helpers/mcp-calls';
import { giftAidStatuses } from './gift-aid-fixtures';

/**
 * Gift Aid on gifts recorded with the giving tools themselves (no fixtures): a giver's details
 * from giving_upsert_giver reach the claim line, a gift in an open batch stays out until the batch
 * is committed, and a claim HMRC rejects whole gives every gift back for the next claim.
 */
const day = dayFromToday;

describe('Gift Aid on gifts recorded through the giving tools', () => {
  let harness: Harness;
  let sandbox: HmrcSandbox;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    sandbox = await startHmrcSandbox();
    process.env.HMRC_GIFT_AID_URL = sandbox.url;
    // Its own stack: the worker submits claims to the HMRC sandbox this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Brendan' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await sandbox?.close();
    delete process.env.HMRC_GIFT_AID_URL;
  });

  it('records, claims, submits; a whole rejection gives every gift back', async () => {
    const fund = (await call(mcp, 'giving_create_fund', { name: 'General', isDefault: true })).fund.id;
    const contactId = (await call(mcp, 'people_create_contact', { firstName: 'Grace', lastName: 'Hopper' })).contact.id;
    await call(mcp, 'giving_upsert_giver', { contactId, title: 'Dr', houseNameOrNumber: 'Rose Cottage', postcode: 'ls1 4ap' });
    const committed = (await call(mcp, 'giving_record_donation', { contactId, fundId: fund, amount: 2500, method: 'card', receivedOn: day(-7), commit: true })).donation;
    expect(committed).toMatchObject({ batchStatus: 'committed', giftAidStatus: 'unclaimed' });
    const batchId = (await call(mcp, 'giving_create_batch', { name: 'Sunday' })).batch.id;
    const open = (await call(mcp, 'giving_record_donation', { batchId, contactId, fundId: fund, amount: 4000, method: 'cash', receivedOn: day(-1) })).donation;
    await call(mcp, 'giving_record_gift_aid_declaration', { contactId, scope: 'past_and_future', method: 'written', madeOn: day(-30) });

    const preview = await call(mcp, 'giving_preview_gift_aid_claim', {});
    expect(preview.lines.map((l: any) => l.donationId)).toEqual([committed.id]);
    expect(preview.lines[0]).toMatchObject({ giverName: 'Grace Hopper', amount: 2500, giftAid: 625 });
    expect(preview.excludedCount).toBe(0);

    await call(mcp, 'giving_commit_batch', { batchId });
    const both = await call(mcp, 'giving_preview_gift_aid_claim', {});
    expect(both.totals).toMatchObject({ gross: 6500, giftAid: 1625 });

    const claim = (await call(mcp, 'giving_create_gift_aid_claim', {})).claim;
    const asked = await refusal(mcp, 'giving_submit_gift_aid_claim', { claimId: claim.id, charityReference: 'XR12345' }, { approvalWaitMs: 200 });
    await call(mcp, 'platform_approve_proposal', { proposalId: asked.details.proposalId });
    expect(sandbox.claims[0].claim.donations).toEqual([
      { title: 'Dr', firstName: 'Grace', lastName: 'Hopper', houseNameOrNumber: 'Rose Cottage', postcode: 'LS1 4AP', date: day(-7), amount: 2500 },
      { title: 'Dr', firstName: 'Grace', lastName: 'Hopper', houseNameOrNumber: 'Rose Cottage', postcode: 'LS1 4AP', date: day(-1), amount: 4000 },
    ]);

    const noReason = await refusal(mcp, 'giving_record_claim_outcome', { claimId: claim.id, outcome: 'rejected' });
    expect(noReason).toMatchObject({ code: 'validation_failed', issues: [{ path: 'reason' }] });
    const rejected = await call(mcp, 'giving_record_claim_outcome', { claimId: claim.id, outcome: 'rejected', reason: 'Authentication failure' });
    expect(rejected.claim).toMatchObject({ status: 'rejected', decisionReason: 'Authentication failure', acceptedGiftAid: 0 });
    expect(Object.values(await giftAidStatuses(harness.pool, [committed.id, open.id]))).toEqual(['unclaimed', 'unclaimed']);
    const again = await call(mcp, 'giving_preview_gift_aid_claim', {});
    expect(again.totals).toMatchObject({ gross: 6500, giftAid: 1625 });
    const lines = (await call(mcp, 'giving_get_gift_aid_claim', { claimId: claim.id })).lines;
    expect(lines.map((l: any) => l.status)).toEqual(['rejected', 'rejected']);
  });

  it('the preview lists every gift it leaves out with its reason: anonymous gifts and gifts to funds that are not eligible too', async () => {
    const general = (await call(mcp, 'giving_list_funds', {})).funds.find((f: any) => f.name === 'General').id;
    const building = (await call(mcp, 'giving_create_fund', { name: 'Building', giftAidEligible: false })).fund.id;
    const contactId = (await call(mcp, 'people_create_contact', { firstName: 'Ivy', lastName: 'Declared' })).contact.id;
    await call(mcp, 'giving_upsert_giver', { contactId, houseNameOrNumber: '3', postcode: 'ls1 4ap' });
    await call(mcp, 'giving_record_gift_aid_declaration', { contactId, scope: 'past_and_future', method: 'written', madeOn: day(-30) });
    const anonymous = (await call(mcp, 'giving_record_donation', { fundId: general, amount: 2000, method: 'cash', receivedOn: day(-3), commit: true })).donation;
    const toBuilding = (await call(mcp, 'giving_record_donation', { contactId, fundId: building, amount: 3000, method: 'card', receivedOn: day(-3), commit: true })).donation;
    expect([anonymous.giftAidStatus, toBuilding.giftAidStatus]).toEqual(['not_claimable', 'not_claimable']);

    const preview = await call(mcp, 'giving_preview_gift_aid_claim', {});
    const reasons = Object.fromEntries(preview.excluded.map((e: any) => [e.donationId, e.problems.map((p: any) => p.code)]));
    expect(reasons[anonymous.id]).toEqual(['anonymous_gift']);
    expect(reasons[toBuilding.id]).toEqual(['fund_not_eligible']);
    expect(preview.excludedCount).toBe(preview.excluded.length);
    expect(preview.lines.map((l: any) => l.donationId)).not.toEqual(expect.arrayContaining([anonymous.id]));
    // Listed, never claimed.
    await harness.invoke(org.apiKey, 'giving_create_gift_aid_claim', {});
    expect(Object.values(await giftAidStatuses(harness.pool, [anonymous.id, toBuilding.id]))).toEqual(['not_claimable', 'not_claimable']);
  });

  it('a volunteer sees no Gift Aid data; a read-only key cannot claim', async () => {
    const volunteer = await harness.createKey(org.orgId, ['people:read'], 'volunteer');
    const readOnly = await harness.createKey(org.orgId, ['giving:read'], 'staff');
    for (const tool of ['giving_preview_gift_aid_claim', 'giving_list_gift_aid_declarations', 'giving_list_gift_aid_claims', 'giving_list_statements']) {
      const refused = await harness.invoke(volunteer.apiKey, tool, {});
      expect({ tool, code: refused.body.error?.code }).toEqual({ tool, code: 'insufficient_scope' });
    }
    expect((await harness.invoke(readOnly.apiKey, 'giving_preview_gift_aid_claim', {})).status).toBe(200);
    const create = await harness.invoke(readOnly.apiKey, 'giving_create_gift_aid_claim', {});
    expect(create.body.error?.code).toBe('insufficient_scope');
  });

  it('a claim in another currency than GBP is refused', async () => {
    const dollars = await harness.createOrg({ name: 'First Church', country: 'US' });
    const theirs = await harness.mcpClient(dollars.apiKey);
    try {
      const refused = await refusal(theirs, 'giving_preview_gift_aid_claim', {});
      expect(refused).toMatchObject({ code: 'validation_failed', issues: [{ path: 'currency' }] });
    } finally {
      await theirs.close();
    }
  });
});
