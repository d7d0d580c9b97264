import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { StewardError } from '../../../core/errors';
import { withTenantTransaction } from '../../../db/pool';
import { refundDonation } from '../refunds';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { insertContact, insertDonation, insertFund, refundedTotal } from './pledges-recurring-fixtures';

/**
 * Refunds: every one needs a person's approval (a proposal), the refunded total of a designation
 * never passes its amount under real parallel approvals, and a refund that could only fail is
 * refused before any proposal exists.
 */
describe('giving refunds', () => {
  let harness: Harness;
  let org: TestOrg;
  let fundId: string;
  let otherFundId: string;
  let contactId: string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Refund Chapel' });
    fundId = await insertFund(harness.pool, org.orgId, 'General');
    otherFundId = await insertFund(harness.pool, org.orgId, 'Missions');
    contactId = await insertContact(harness.pool, org.orgId, 'Rhoda');
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function proposalCount(): Promise<number> {
    const { rows } = await harness.pool.query("SELECT count(*)::int AS n FROM proposals WHERE org_id = $1 AND tool = 'giving_refund_donation'", [org.orgId]);
    return rows[0].n;
  }

  /** A refund call: it becomes a proposal, whose id is returned. */
  async function propose(args: Record<string, unknown>): Promise<string> {
    const response = await harness.invoke(org.apiKey, 'giving_refund_donation', args);
    expect(response.body.error).toMatchObject({ code: 'approval_required' });
    return response.body.error!.details.proposalId;
  }

  it('over MCP: the call waits for approval; once approved the refund is made and listed', async () => {
    const { donationId } = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 5000 }], giftAidStatus: 'claimed' });
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const asked = await mcp.callTool({ name: 'giving_refund_donation', arguments: { donationId, amount: 2000, reason: 'Gave twice by mistake', actionSummary: 'Refund £20 to Rhoda' }, _meta: { approvalWaitMs: 300 } }, CallToolResultSchema);
      expect(asked.isError).toBe(true);
      const error = JSON.parse((asked.content as any)[0].text).error;
      expect(error).toMatchObject({ code: 'approval_required', details: { status: 'pending' } });
      expect(await refundedTotal(harness.pool, donationId)).toBe(0);

      const proposal = await mcp.callTool({ name: 'platform_get_proposal', arguments: { proposalId: error.details.proposalId } }, CallToolResultSchema);
      expect((proposal.structuredContent as any).proposal).toMatchObject({ status: 'pending', summary: 'Refund £20 to Rhoda' });

      const approved = await mcp.callTool({ name: 'platform_approve_proposal', arguments: { proposalId: error.details.proposalId } }, CallToolResultSchema);
      expect(approved.isError).toBeFalsy();
      const execution = (approved.structuredContent as any).execution;
      expect(execution.status).toBe('succeeded');
      expect(execution.result).toMatchObject({
        refunds: [{ donationId, fundId, fundName: 'General', amount: 2000, currency: 'GBP', reason: 'Gave twice by mistake', createdByUserId: org.ownerUserId }],
        donation: { donationId, amount: 5000, refunded: 2000, refundable: 3000, giftAidStatus: 'claimed' },
        giftAidReversal: 'next_claim',
      });
      expect(await refundedTotal(harness.pool, donationId)).toBe(2000);

      const listed = await mcp.callTool({ name: 'giving_list_refunds', arguments: { donationId } }, CallToolResultSchema);
      expect((listed.structuredContent as any).refunds).toEqual([expect.objectContaining({ donationId, amount: 2000 })]);
      // The Gift Aid status is the claim's business: a refund never changes it.
      const { rows } = await harness.pool.query('SELECT gift_aid_status FROM giving_donations WHERE id = $1', [donationId]);
      expect(rows[0].gift_aid_status).toBe('claimed');
    } finally {
      await mcp.close();
    }
  });

  it('a rejected refund is never made', async () => {
    const { donationId } = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 3000 }] });
    const proposalId = await propose({ donationId, reason: 'Changed their mind' });
    const decided = await harness.call(org.apiKey, 'platform_reject_proposal', { proposalId, reason: 'Not our policy' });
    expect(decided.status).toBe('rejected');
    expect(await refundedTotal(harness.pool, donationId)).toBe(0);
  });

  it('50 refund proposals of £10 against one £100 donation, approved in parallel: exactly £100 refunded, the rest refused', async () => {
    const { donationId } = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 10_000 }] });
    const proposalIds: string[] = [];
    // Each proposal is checked when made (nothing refunded yet, so all 50 are accepted as proposals).
    for (let i = 0; i < 50; i += 5) {
      proposalIds.push(...await Promise.all([0, 1, 2, 3, 4].map((j) => propose({ donationId, amount: 1000, reason: `Refund ${i + j}` }))));
    }
    expect(new Set(proposalIds).size).toBe(50);
    const decisions = await Promise.all(proposalIds.map((proposalId) => harness.invoke(org.apiKey, 'platform_approve_proposal', { proposalId })));
    // An approval whose refund then failed answers the refund's own error, never a bare "approved".
    const succeeded = decisions.filter((decision) => decision.status === 200 && decision.body.result?.execution?.status === 'succeeded');
    const failed = decisions.filter((decision) => decision.status !== 200);
    expect(succeeded).toHaveLength(10);
    expect(failed).toHaveLength(40);
    for (const decision of failed) expect(decision.body.error).toMatchObject({ code: 'conflict', details: { status: 'approved', execution: { status: 'failed' } } });
    expect(await refundedTotal(harness.pool, donationId)).toBe(10_000);
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM giving_refunds WHERE donation_id = $1', [donationId]);
    expect(rows[0].n).toBe(10);
  }, 180_000);

  it('50 refunds in 50 parallel transactions through the service: the total never passes the designation', async () => {
    const { donationId } = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 10_000 }] });
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => withTenantTransaction(harness.pool, org.orgId,
      (db) => refundDonation(db, org.orgId, { donationId, amount: 700, reason: `Parallel ${i}` }, null))));
    const made = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    // 14 × 7.00 = 98.00; a fifteenth would pass 100.00.
    expect(made).toHaveLength(14);
    expect(refused).toHaveLength(36);
    for (const outcome of refused) {
      expect(outcome.reason).toBeInstanceOf(StewardError);
      expect((outcome.reason as StewardError).code).toBe('conflict');
    }
    expect(await refundedTotal(harness.pool, donationId)).toBe(9800);
  }, 60_000);

  it('refuses, before any proposal exists, a refund that could only fail', async () => {
    const split = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 6000 }, { fundId: otherFundId, amount: 4000 }] });
    const staged = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 2500 }], committed: false });
    const other = await harness.createOrg({ name: 'Elsewhere' });
    const before = await proposalCount();

    const cases: Array<[string, string, Record<string, unknown>, number, string, string | undefined]> = [
      ['more than was given', org.apiKey, { donationId: split.donationId, fundId, amount: 6001, reason: 'x' }, 400, 'validation_failed', 'amount'],
      ['split gift, no fund named', org.apiKey, { donationId: split.donationId, amount: 100, reason: 'x' }, 400, 'validation_failed', 'fundId'],
      ['a fund the gift was not given to', org.apiKey, { donationId: split.donationId, fundId: contactId, reason: 'x' }, 400, 'validation_failed', 'fundId'],
      ['an uncommitted donation', org.apiKey, { donationId: staged.donationId, reason: 'x' }, 409, 'conflict', undefined],
      ['dated before the gift', org.apiKey, { donationId: split.donationId, reason: 'x', refundedOn: '2026-10-01' }, 400, 'validation_failed', 'refundedOn'],
      ['dated in the future', org.apiKey, { donationId: split.donationId, reason: 'x', refundedOn: '2099-01-01' }, 400, 'validation_failed', 'refundedOn'],
      ['fractional minor units', org.apiKey, { donationId: split.donationId, fundId, amount: 10.5, reason: 'x' }, 400, 'validation_failed', 'amount'],
      ['zero', org.apiKey, { donationId: split.donationId, fundId, amount: 0, reason: 'x' }, 400, 'validation_failed', 'amount'],
      ['negative', org.apiKey, { donationId: split.donationId, fundId, amount: -5, reason: 'x' }, 400, 'validation_failed', 'amount'],
      ['10^15', org.apiKey, { donationId: split.donationId, fundId, amount: 1e15, reason: 'x' }, 400, 'validation_failed', 'amount'],
      ['no reason', org.apiKey, { donationId: split.donationId, fundId, amount: 100 }, 400, 'validation_failed', 'reason'],
      ['an unknown donation', org.apiKey, { donationId: '00000000-0000-4000-8000-000000000000', reason: 'x' }, 404, 'not_found', undefined],
      ['another organisation\'s donation', other.apiKey, { donationId: split.donationId, reason: 'x' }, 404, 'not_found', undefined],
    ];
    for (const [label, key, args, status, code, field] of cases) {
      const response = await harness.invoke(key, 'giving_refund_donation', args);
      expect({ label, status: response.status, code: response.body.error?.code }).toEqual({ label, status, code });
      if (field) expect({ label, paths: response.body.error?.issues?.map((issue) => issue.path) }).toEqual({ label, paths: expect.arrayContaining([field]) });
    }
    expect(await proposalCount()).toBe(before);
    expect(await refundedTotal(harness.pool, split.donationId)).toBe(0);
    const foreign = await harness.pool.query('SELECT count(*)::int AS n FROM proposals WHERE org_id = $1', [other.orgId]);
    expect(foreign.rows[0].n).toBe(0);
  });

  it('refunds one designation of a split gift, then the rest in full; a further refund is refused as nothing is left', async () => {
    const { donationId } = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 6000 }, { fundId: otherFundId, amount: 4000 }] });
    const first = await harness.call(org.apiKey, 'platform_approve_proposal', {
      proposalId: await propose({ donationId, fundId: otherFundId, amount: 1500, reason: 'Missions trip cancelled' }),
    });
    expect(first.execution.result.donation).toMatchObject({
      refunded: 1500, refundable: 8500,
      designations: expect.arrayContaining([{ fundId: otherFundId, amount: 4000, refunded: 1500, refundable: 2500 }, { fundId, amount: 6000, refunded: 0, refundable: 6000 }]),
    });
    const rest = await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: await propose({ donationId, reason: 'Giver left the church' }) });
    expect(rest.execution.result.refunds.map((refund: any) => [refund.fundId, refund.amount]).sort()).toEqual([[fundId, 6000], [otherFundId, 2500]].sort());
    expect(rest.execution.result.donation).toMatchObject({ refunded: 10_000, refundable: 0 });
    expect(await refundedTotal(harness.pool, donationId)).toBe(10_000);

    const again = await harness.invoke(org.apiKey, 'giving_refund_donation', { donationId, reason: 'Once more' });
    expect(again.status).toBe(409);
    expect(again.body.error?.message).toContain('refunded in full');
  });

  it('an amount still refundable when proposed but not when approved fails at approval and writes nothing', async () => {
    const { donationId } = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 4000 }] });
    const a = await propose({ donationId, amount: 3000, reason: 'First' });
    const b = await propose({ donationId, amount: 3000, reason: 'Second' });
    expect((await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: a })).execution.status).toBe('succeeded');
    const second = await harness.invoke(org.apiKey, 'platform_approve_proposal', { proposalId: b });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'conflict', details: { proposalId: b, status: 'approved', execution: { status: 'failed' } } });
    expect(second.body.error?.message).toContain('Only 1000 of 4000 is left');
    const { proposal } = await harness.call(org.apiKey, 'platform_get_proposal', { proposalId: b });
    expect(proposal.execution).toMatchObject({ status: 'failed', error: { code: 'conflict' } });
    expect(await refundedTotal(harness.pool, donationId)).toBe(3000);
  });

  it('lists refunds by fund and date range, in pages, and never shows another organisation\'s', async () => {
    const page1 = await harness.call(org.apiKey, 'giving_list_refunds', { fundId: otherFundId, limit: 1 });
    expect(page1.refunds).toHaveLength(1);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await harness.call(org.apiKey, 'giving_list_refunds', { fundId: otherFundId, limit: 1, cursor: page1.nextCursor });
    expect(page2.refunds).toHaveLength(1);
    expect(page2.refunds[0].id).not.toBe(page1.refunds[0].id);
    for (const refund of [...page1.refunds, ...page2.refunds]) expect(refund.fundId).toBe(otherFundId);
    const future = await harness.call(org.apiKey, 'giving_list_refunds', { from: '2099-01-01' });
    expect(future.refunds).toEqual([]);
    const other = await harness.createOrg({ name: 'Refund Elsewhere' });
    expect((await harness.call(other.apiKey, 'giving_list_refunds', {})).refunds).toEqual([]);
    const volunteer = await harness.createKey(org.orgId, ['people:read'], 'volunteer');
    expect((await harness.invoke(volunteer.apiKey, 'giving_list_refunds', {})).body.error?.code).toBe('insufficient_scope');
  });
});
