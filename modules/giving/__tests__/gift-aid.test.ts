import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTenantTransaction } from '../../../db/pool';
import { createClaim } from '../gift-aid/claims';
import { startHmrcSandbox, type HmrcSandbox } from '../gift-aid/hmrc-sandbox';
import { getOrgSettings } from '../../platform/orgs';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall as call, mcpRefusal as refusal, dayFromToday } from '../../../test/helpers/mcp-calls';
import { batch, fund, gift, giftAidStatuses, giver, manyGifts, refund } from './gift-aid-fixtures';

/**
 * A treasurer's Gift Aid round over MCP: declarations, a preview that lists and leaves out the bad
 * lines, a claim, its approved submission through the gateway sandbox, HMRC's answer, a refund
 * reversed on the next claim, small donations within their caps, and statements. Then tenancy
 * (another organisation's ids are not found) and two claims made at once.
 */
const day = dayFromToday;
const today = day(0);

describe('Gift Aid end to end', () => {
  let harness: Harness;
  let sandbox: HmrcSandbox;
  let org: TestOrg;
  let mcp: McpClient;
  let general: string;
  let building: string;
  const people: Record<string, string> = {};
  const gifts: Record<string, string> = {};
  let claimId: string;

  beforeAll(async () => {
    sandbox = await startHmrcSandbox();
    process.env.HMRC_GIFT_AID_URL = sandbox.url;
    // Its own stack: the worker submits claims to the HMRC sandbox this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Aidan' });
    mcp = await harness.mcpClient(org.apiKey);
    general = await fund(harness.pool, org.orgId, 'General');
    building = await fund(harness.pool, org.orgId, 'Building', false);
    people.ada = await giver(harness.pool, org.orgId, { firstName: 'Ada', lastName: 'Lovelace', title: 'Mrs', house: '12', postcode: 'sw1a1aa' });
    people.bob = await giver(harness.pool, org.orgId, { firstName: 'Bob', lastName: 'Badpost', postcode: 'NOT A POSTCODE' });
    people.cy = await giver(harness.pool, org.orgId, { firstName: 'Cy', lastName: 'Nodecl' });
    people.dee = await giver(harness.pool, org.orgId, { firstName: 'Dee', lastName: 'Oral' });
    gifts.ada1 = await gift(harness.pool, org.orgId, { contactId: people.ada, parts: [{ fundId: general, amount: 5000 }], receivedOn: day(-60) });
    gifts.adaSplit = await gift(harness.pool, org.orgId, { contactId: people.ada, parts: [{ fundId: general, amount: 1001 }, { fundId: building, amount: 999 }], receivedOn: day(-30) });
    gifts.adaBuilding = await gift(harness.pool, org.orgId, { contactId: people.ada, parts: [{ fundId: building, amount: 700 }], receivedOn: day(-30) });
    gifts.bob = await gift(harness.pool, org.orgId, { contactId: people.bob, parts: [{ fundId: general, amount: 3000 }], receivedOn: day(-20) });
    gifts.cy = await gift(harness.pool, org.orgId, { contactId: people.cy, parts: [{ fundId: general, amount: 4000 }], receivedOn: day(-20) });
    gifts.dee = await gift(harness.pool, org.orgId, { contactId: people.dee, parts: [{ fundId: general, amount: 1000 }], receivedOn: day(-10) });
    gifts.uncommitted = await gift(harness.pool, org.orgId, {
      contactId: people.ada, parts: [{ fundId: general, amount: 99_900 }], receivedOn: day(-5), batchId: await batch(harness.pool, org.orgId, false),
    });
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await sandbox?.close();
    delete process.env.HMRC_GIFT_AID_URL;
  });

  it('records declarations; refuses a bad one naming the field', async () => {
    const ada = await call(mcp, 'giving_record_gift_aid_declaration', { contactId: people.ada, scope: 'past_and_future', method: 'written', madeOn: day(-1) });
    expect(ada.declaration).toMatchObject({ scope: 'past_and_future', state: 'active', startOn: `${Number(day(-1).slice(0, 4)) - 4}${day(-1).slice(4)}` });
    await call(mcp, 'giving_record_gift_aid_declaration', { contactId: people.bob, scope: 'past_and_future', method: 'online', madeOn: day(-1) });
    const dee = await call(mcp, 'giving_record_gift_aid_declaration', { contactId: people.dee, scope: 'past_and_future', method: 'oral', madeOn: day(-1) });
    expect(dee.declaration.state).toBe('awaiting_confirmation');
    people.deeDeclaration = dee.declaration.id;

    const future = await refusal(mcp, 'giving_record_gift_aid_declaration', { contactId: people.cy, scope: 'future_only', method: 'written', madeOn: day(3) });
    expect(future).toMatchObject({ code: 'validation_failed', issues: [{ path: 'madeOn' }] });
    const tooFarBack = await refusal(mcp, 'giving_record_gift_aid_declaration', { contactId: people.cy, scope: 'past_and_future', method: 'written', madeOn: today, startOn: day(-5 * 366) });
    expect(tooFarBack.issues).toEqual([expect.objectContaining({ path: 'startOn' })]);
    const listed = await call(mcp, 'giving_list_gift_aid_declarations', { contactId: people.cy });
    expect(listed.declarations).toEqual([]);
  });

  it('previews: good lines claimed at 25% of the total, bad lines listed with their reasons and left out', async () => {
    const preview = await call(mcp, 'giving_preview_gift_aid_claim', {});
    const lineIds = preview.lines.map((l: any) => l.donationId).sort();
    expect(lineIds).toEqual([gifts.ada1, gifts.adaSplit].sort());
    // Only the eligible part of a split gift is claimed: 5000 + 1001 = 6001 → 1500.25 → 1500.
    expect(preview.totals).toMatchObject({ gross: 6001, giftAid: 1500 });
    const reasons = Object.fromEntries(preview.excluded.map((e: any) => [e.donationId, e.problems.map((p: any) => p.code)]));
    expect(reasons).toEqual({
      [gifts.adaBuilding]: ['fund_not_eligible'],
      [gifts.bob]: ['postcode_invalid'],
      [gifts.cy]: ['no_declaration'],
      [gifts.dee]: ['oral_unconfirmed'],
    });
    expect(JSON.stringify(preview)).not.toContain(gifts.uncommitted);
    // A preview claims nothing.
    expect(Object.values(await giftAidStatuses(harness.pool, [gifts.ada1, gifts.adaSplit]))).toEqual(['unclaimed', 'unclaimed']);
  });

  it('an oral declaration counts once its written confirmation is recorded as sent', async () => {
    await call(mcp, 'giving_confirm_oral_declaration', { declarationId: people.deeDeclaration, sentOn: today });
    const preview = await call(mcp, 'giving_preview_gift_aid_claim', {});
    expect(preview.lines.map((l: any) => l.donationId)).toContain(gifts.dee);
    expect(preview.totals).toMatchObject({ gross: 7001, giftAid: 1750 });
  });

  it('records small donations within the rules, and the claim takes them within 10× its Gift Aid gross', async () => {
    const tooBig = await refusal(mcp, 'giving_record_gasds_collection', { collectedOn: today, method: 'cash', entries: [{ amount: 3001, quantity: 1 }] });
    expect(tooBig).toMatchObject({ code: 'validation_failed', issues: [{ path: 'entries.0.amount' }] });
    const cheque = await refusal(mcp, 'giving_record_gasds_collection', { collectedOn: today, method: 'cheque', entries: [{ amount: 500 }] });
    expect(cheque.code).toBe('validation_failed');
    // £1,000 of £5 notes: more than 10 × the £70.01 of Gift Aid gifts this claim holds (when all fall in one tax year).
    const collection = await call(mcp, 'giving_record_gasds_collection', { collectedOn: day(-1), method: 'cash', entries: [{ amount: 500, quantity: 200 }], description: 'Plate' });
    expect(collection.collection).toMatchObject({ amount: 100_000, giftCount: 200, method: 'cash' });
    const preview = await call(mcp, 'giving_preview_gift_aid_claim', {});
    const year = preview.gasds.find((y: any) => y.unclaimed === 100_000);
    expect(year.claiming).toBe(Math.min(100_000, 10 * year.giftAidGross));
    expect(preview.totals.gasds).toBe(year.claiming);
    expect(preview.totals.gasdsTopUp).toBe(Math.floor(year.claiming / 4));
  });

  it('a collection linked to the donation that booked it makes that donation a small-donations entry', async () => {
    const plate = await gift(harness.pool, org.orgId, { contactId: null, parts: [{ fundId: general, amount: 2500 }], receivedOn: day(-1), method: 'cash' });
    const declared = await refusal(mcp, 'giving_record_gasds_collection', { collectedOn: day(-1), method: 'contactless', entries: [{ amount: 500 }], donationId: gifts.ada1 });
    expect(declared).toMatchObject({ code: 'validation_failed', issues: [{ path: 'donationId', message: expect.stringContaining('Gift Aid declaration') }] });
    const wrongWay = await refusal(mcp, 'giving_record_gasds_collection', { collectedOn: day(-1), method: 'contactless', entries: [{ amount: 500 }], donationId: plate });
    expect(wrongWay.issues[0].message).toContain('by card');
    const tooMuch = await refusal(mcp, 'giving_record_gasds_collection', { collectedOn: day(-1), method: 'cash', entries: [{ amount: 1000, quantity: 3 }], donationId: plate });
    expect(tooMuch).toMatchObject({ code: 'validation_failed', issues: [{ path: 'donationId' }] });
    const linked = await call(mcp, 'giving_record_gasds_collection', { collectedOn: day(-1), method: 'cash', entries: [{ amount: 500, quantity: 4 }, { amount: 250, quantity: 2 }], donationId: plate });
    expect(linked.collection).toMatchObject({ amount: 2500, giftCount: 6, donationId: plate, entries: [{ amount: 500, quantity: 4 }, { amount: 250, quantity: 2 }] });
    const { rows } = await harness.pool.query('SELECT is_gasds, gift_aid_status FROM giving_donations WHERE id = $1', [plate]);
    expect(rows[0]).toEqual({ is_gasds: true, gift_aid_status: 'not_claimable' });
    const twice = await refusal(mcp, 'giving_record_gasds_collection', { collectedOn: day(-1), method: 'cash', entries: [{ amount: 100 }], donationId: plate });
    expect(twice.code).toBe('validation_failed');
  });

  it('creates a claim: its gifts move to in_claim and stay out of the next preview', async () => {
    const created = await call(mcp, 'giving_create_gift_aid_claim', {});
    claimId = created.claim.id;
    expect(created.claim).toMatchObject({ status: 'validated', grossTotal: 7001, giftAidTotal: 1750, currency: 'GBP' });
    expect(await giftAidStatuses(harness.pool, [gifts.ada1, gifts.adaSplit, gifts.dee, gifts.bob])).toEqual({
      [gifts.ada1]: 'in_claim', [gifts.adaSplit]: 'in_claim', [gifts.dee]: 'in_claim', [gifts.bob]: 'unclaimed',
    });
    const again = await call(mcp, 'giving_preview_gift_aid_claim', {});
    expect(again.lines).toEqual([]);
    const collections = (await call(mcp, 'giving_list_gasds_collections', {})).collections;
    const plate = collections.find((c: any) => c.description === 'Plate');
    expect(plate.claimed).toBe(created.claim.gasdsTotal - collections.filter((c: any) => c !== plate).reduce((sum: number, c: any) => sum + c.claimed, 0));
    expect(created.claim.gasdsTotal).toBeGreaterThan(0);
    const nothing = await refusal(mcp, 'giving_create_gift_aid_claim', { includeGasds: false });
    expect(nothing.code).toBe('conflict');
  });

  it('submits only once an owner approves; the gateway receives the claim once', async () => {
    const asked = await refusal(mcp, 'giving_submit_gift_aid_claim', { claimId, charityReference: 'ab12345', actionSummary: 'Claim Gift Aid for the autumn' }, { approvalWaitMs: 300 });
    expect(asked).toMatchObject({ code: 'approval_required', details: { status: 'pending' } });
    expect(sandbox.claims).toHaveLength(0);
    const approved = await call(mcp, 'platform_approve_proposal', { proposalId: asked.details.proposalId });
    expect(approved.execution).toMatchObject({ status: 'succeeded' });
    const claim = approved.execution.result.claim;
    expect(claim).toMatchObject({ status: 'submitted', charityReference: 'AB12345', approvedByUserId: org.ownerUserId });
    expect(sandbox.claims).toHaveLength(1);
    const sent = sandbox.claims[0];
    expect(sent.reference).toBe(claim.providerReference);
    expect(sent.claim.donations.map((d) => d.postcode)).toEqual(['SW1A 1AA', 'SW1A 1AA', 'SW1A 1AA']);
    expect(sent.claim.donations.find((d) => d.amount === 5000)).toMatchObject({ title: 'Mrs', firstName: 'Ada', lastName: 'Lovelace', houseNameOrNumber: '12' });
    expect(sent.claim.totals).toMatchObject({ gross: 7001, giftAid: 1750 });

    const twice = await refusal(mcp, 'giving_submit_gift_aid_claim', { claimId, charityReference: 'AB12345' });
    expect(twice.code).toBe('conflict');
  });

  it('records the outcome: a rejected line goes back to unclaimed, the rest become claimed; then paid', async () => {
    const paidTooSoon = await refusal(mcp, 'giving_record_claim_outcome', { claimId, outcome: 'paid', paidOn: today, paidAmount: 100 });
    expect(paidTooSoon.code).toBe('conflict');
    const strange = await refusal(mcp, 'giving_record_claim_outcome', { claimId, outcome: 'accepted', rejectedLines: [{ donationId: gifts.bob, reason: 'x' }] });
    expect(strange).toMatchObject({ code: 'validation_failed', issues: [{ path: 'rejectedLines.0.donationId' }] });
    const accepted = await call(mcp, 'giving_record_claim_outcome', {
      claimId, outcome: 'accepted', rejectedLines: [{ donationId: gifts.dee, reason: 'Donor not a UK taxpayer' }],
    });
    expect(accepted.claim.status).toBe('accepted');
    expect(await giftAidStatuses(harness.pool, [gifts.ada1, gifts.adaSplit, gifts.dee])).toEqual({
      [gifts.ada1]: 'claimed', [gifts.adaSplit]: 'claimed', [gifts.dee]: 'unclaimed',
    });
    const paid = await call(mcp, 'giving_record_claim_outcome', { claimId, outcome: 'paid', paidOn: today, paidAmount: accepted.claim.acceptedGiftAid });
    expect(paid.claim).toMatchObject({ status: 'paid', paidOn: today });
    const got = await call(mcp, 'giving_get_gift_aid_claim', { claimId });
    expect(got.lines.find((l: any) => l.donationId === gifts.dee)).toMatchObject({ status: 'rejected', rejectionReason: 'Donor not a UK taxpayer' });
  });

  it('a refund of a claimed gift is reversed by a negative line on the next claim, once', async () => {
    await refund(harness.pool, org.orgId, gifts.ada1, general, 2000);
    const preview = await call(mcp, 'giving_preview_gift_aid_claim', { includeGasds: false });
    const adjustment = preview.lines.find((l: any) => l.kind === 'adjustment');
    expect(adjustment).toMatchObject({ donationId: gifts.ada1, amount: -2000, giftAid: -500 });
    // Dee's gift, rejected last time, is back; the reversal comes off its Gift Aid.
    expect(preview.totals).toMatchObject({ gross: 1000 - 2000 });
    const refused = await refusal(mcp, 'giving_create_gift_aid_claim', { includeGasds: false });
    expect(refused.code).toBe('conflict'); // it would pay back more than it claims
    gifts.ada3 = await gift(harness.pool, org.orgId, { contactId: people.ada, parts: [{ fundId: general, amount: 8000 }], receivedOn: day(-1) });
    const created = await call(mcp, 'giving_create_gift_aid_claim', { includeGasds: false });
    expect(created.claim).toMatchObject({ grossTotal: 8000 + 1000 - 2000, giftAidTotal: 1750 });
    const next = await call(mcp, 'giving_preview_gift_aid_claim', { includeGasds: false });
    expect(next.lines).toEqual([]);
    const cancelled = await call(mcp, 'giving_cancel_gift_aid_claim', { claimId: created.claim.id, reason: 'Checking the refund first' });
    expect(cancelled.claim.status).toBe('cancelled');
    expect(await giftAidStatuses(harness.pool, [gifts.ada3, gifts.dee])).toEqual({ [gifts.ada3]: 'unclaimed', [gifts.dee]: 'unclaimed' });
    const restored = await call(mcp, 'giving_preview_gift_aid_claim', { includeGasds: false });
    expect(restored.adjustmentLines).toBe(1);
  });

  it('a cancelled declaration stops later gifts but not the claimed ones', async () => {
    const list = await call(mcp, 'giving_list_gift_aid_declarations', { contactId: people.ada });
    const cancelled = await call(mcp, 'giving_cancel_gift_aid_declaration', { declarationId: list.declarations[0].id, cancelledOn: day(-1), reason: 'No longer a taxpayer' });
    expect(cancelled.declaration).toMatchObject({ state: 'cancelled', cancelledOn: day(-1) });
    const tooEarly = await refusal(mcp, 'giving_cancel_gift_aid_declaration', { declarationId: people.deeDeclaration, cancelledOn: day(-2), reason: 'x' });
    expect(tooEarly).toMatchObject({ code: 'validation_failed', issues: [{ path: 'cancelledOn' }] });
    const preview = await call(mcp, 'giving_preview_gift_aid_claim', { includeGasds: false });
    expect(preview.excluded.find((e: any) => e.donationId === gifts.ada3).problems.map((p: any) => p.code)).toEqual(['declaration_cancelled']);
    expect(await giftAidStatuses(harness.pool, [gifts.adaSplit])).toEqual({ [gifts.adaSplit]: 'claimed' });
    const again = await refusal(mcp, 'giving_cancel_gift_aid_declaration', { declarationId: list.declarations[0].id, reason: 'again' });
    expect(again.code).toBe('conflict');
  });

  it('statements: committed gifts net of refunds, the uncommitted batch left out', async () => {
    const generated = await call(mcp, 'giving_generate_statements', { periodStart: day(-400), periodEnd: today, contactIds: [people.ada, people.cy] });
    expect(generated.givers.withGifts).toBe(2);
    const ada = generated.statements.find((s: any) => s.contactId === people.ada);
    // 5000 − 2000 refunded, 2000 split, 700 building, 8000: the uncommitted 999.00 is not there.
    expect(ada).toMatchObject({ donationCount: 4, totalAmount: 3000 + 2000 + 700 + 8000, giftAidClaimed: 1250 + 250 });
    const statement = await call(mcp, 'giving_get_statement', { statementId: ada.id });
    expect(statement.content.lines.map((l: any) => l.donationId)).not.toContain(gifts.uncommitted);
    expect(statement.text).toContain('Total given: GBP 137.00');
    expect(statement.text).toContain('Ada Lovelace');
    const byRun = await call(mcp, 'giving_list_statements', { runId: generated.run.id });
    expect(byRun.statements.map((s: any) => s.id).sort()).toEqual(generated.statements.map((s: any) => s.id).sort());
    const byGiver = await call(mcp, 'giving_list_statements', { contactId: people.cy });
    expect(byGiver.statements).toEqual([expect.objectContaining({ contactId: people.cy, totalAmount: 4000, runId: generated.run.id })]);
    const badYear = await refusal(mcp, 'giving_generate_statements', { taxYear: '2025-27' });
    expect(badYear).toMatchObject({ code: 'validation_failed', issues: [{ path: 'taxYear' }] });
  });

  it("another organisation's ids behave as missing", async () => {
    const other = await harness.createOrg({ name: 'Elsewhere' });
    const theirs = await harness.mcpClient(other.apiKey);
    try {
      const statement = (await harness.pool.query('SELECT id FROM giving_statements WHERE org_id = $1 LIMIT 1', [org.orgId])).rows[0].id;
      const declaration = (await call(mcp, 'giving_list_gift_aid_declarations', {})).declarations[0].id;
      const probes: Array<[string, Record<string, unknown>]> = [
        ['giving_get_gift_aid_claim', { claimId }],
        ['giving_cancel_gift_aid_claim', { claimId, reason: 'x' }],
        ['giving_record_claim_outcome', { claimId, outcome: 'rejected', reason: 'x' }],
        ['giving_submit_gift_aid_claim', { claimId, charityReference: 'AB1' }],
        ['giving_cancel_gift_aid_declaration', { declarationId: declaration, reason: 'x' }],
        ['giving_confirm_oral_declaration', { declarationId: people.deeDeclaration, sentOn: today }],
        ['giving_record_gift_aid_declaration', { contactId: people.cy, scope: 'future_only', method: 'written', madeOn: today }],
        ['giving_list_gift_aid_declarations', { contactId: people.ada }],
        ['giving_get_statement', { statementId: statement }],
        ['giving_list_statements', { contactId: people.ada }],
        ['giving_list_statements', { runId: (await harness.pool.query('SELECT run_id FROM giving_statements WHERE id = $1', [statement])).rows[0].run_id }],
        ['giving_generate_statements', { taxYear: '2026-27', contactIds: [people.ada] }],
        ['giving_record_gasds_collection', { collectedOn: today, method: 'cash', entries: [{ amount: 100 }], donationId: gifts.cy }],
      ];
      for (const [tool, args] of probes) {
        const error = await refusal(theirs, tool, args);
        expect({ tool, code: error.code }).toEqual({ tool, code: 'not_found' });
      }
      const preview = await call(theirs, 'giving_preview_gift_aid_claim', {});
      expect(preview.lines).toEqual([]);
      expect(preview.excluded).toEqual([]);
    } finally {
      await theirs.close();
    }
  });

  it('two claims created at once never take one gift twice', async () => {
    const contacts = [people.ada, people.bob];
    await harness.pool.query("UPDATE giving_givers SET postcode = 'M1 1AE' WHERE contact_id = $1", [people.bob]);
    const fresh = await manyGifts(harness.pool, org.orgId, { contactIds: contacts, fundId: general, count: 60, receivedOn: day(-3) });
    const calls = await Promise.all([0, 1, 2].map(() => harness.invoke(org.apiKey, 'giving_create_gift_aid_claim', { includeGasds: false })));
    const made = calls.filter((c) => c.status === 200);
    expect(made.length).toBeGreaterThanOrEqual(1);
    for (const c of calls.filter((x) => x.status !== 200)) expect(c.body.error?.code).toBe('conflict');
    const { rows } = await harness.pool.query(`SELECT donation_id, count(*)::int AS n FROM giving_gift_aid_claim_lines
      WHERE donation_id = ANY($1::uuid[]) AND kind = 'donation' AND status IN ('included', 'accepted') GROUP BY donation_id`, [fresh]);
    expect(rows).toHaveLength(60);
    expect(rows.every((row: { n: number }) => row.n === 1)).toBe(true);
    expect(new Set(Object.values(await giftAidStatuses(harness.pool, fresh)))).toEqual(new Set(['in_claim']));
  }, 120_000);

  it('five claims built in five parallel transactions: every gift in exactly one', async () => {
    const fresh = await manyGifts(harness.pool, org.orgId, { contactIds: [people.ada, people.bob], fundId: general, count: 200, receivedOn: day(-3) });
    const settings = await getOrgSettings(harness.pool, org.orgId);
    const options = { asOf: today, receivedTo: today, maxLines: 10_000, includeGasds: false };
    const outcomes = await Promise.allSettled([0, 1, 2, 3, 4].map(() => withTenantTransaction(harness.pool, org.orgId,
      (db) => createClaim(db, settings, null, options))));
    const made = outcomes.filter((o) => o.status === 'fulfilled');
    expect(made.length).toBeGreaterThanOrEqual(1);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { code?: string }).code).toBe('conflict');
    const { rows } = await harness.pool.query(`SELECT donation_id, count(*)::int AS n FROM giving_gift_aid_claim_lines
      WHERE donation_id = ANY($1::uuid[]) AND kind = 'donation' AND status IN ('included', 'accepted') GROUP BY donation_id`, [fresh]);
    expect(rows).toHaveLength(200);
    expect(rows.every((row: { n: number }) => row.n === 1)).toBe(true);
  }, 120_000);

  it('a claim whose giver changed after it was made is not sent, and says which line', async () => {
    const mine = await call(mcp, 'giving_list_gift_aid_claims', { status: 'validated' });
    const target = mine.claims[0].id;
    await harness.pool.query("UPDATE giving_givers SET postcode = 'ZZ' WHERE contact_id = $1", [people.bob]);
    const asked = await refusal(mcp, 'giving_submit_gift_aid_claim', { claimId: target, charityReference: 'AB12345' }, { approvalWaitMs: 300 });
    const before = sandbox.requests;
    // The approval did not happen as asked: it answers the action's own error, and the proposal says so.
    const approved = await refusal(mcp, 'platform_approve_proposal', { proposalId: asked.details.proposalId });
    expect(approved).toMatchObject({ code: 'validation_failed', details: { proposalId: asked.details.proposalId, status: 'approved', execution: { status: 'failed' } } });
    expect((await call(mcp, 'platform_get_proposal', { proposalId: asked.details.proposalId })).proposal.execution).toMatchObject({ status: 'failed', error: { code: 'validation_failed' } });
    expect(sandbox.requests).toBe(before);
    expect((await call(mcp, 'giving_get_gift_aid_claim', { claimId: target, linesLimit: 0 })).claim.status).toBe('validated');
  });
});
