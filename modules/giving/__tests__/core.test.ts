import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { stewardErrorBodyOf } from '../../../core/failures';
import type { Principal } from '../../../core/principal';
import { ALL_SCOPES } from '../../../core/scopes';
import { workflowTypeForPlan } from '../../../core/tool-plan';
import { toolCallWorkflowId } from '../../../core/workflow-ids';
import { findTool } from '../../catalogue';
import { argsHashOf, policyOf } from '../../tool';
import { Harness, type TestOrg } from '../../../test/helpers/harness';

/**
 * The giving core over MCP (the SDK's client against the real server, worker, Postgres and
 * Temporal): a treasurer's week from fund to committed, approved batch; tenancy; roles; bad input
 * that changes nothing; and parallel imports and recordings that never record a gift twice.
 */

const today = new Date().toISOString().slice(0, 10);
const MISSING = '00000000-0000-4000-8000-000000000000';

interface CallError { code: string; message: string; hint?: string; issues?: Array<{ path: string; message: string }>; details?: any }

/** A tools/call over MCP: the structured result, or the Steward error body it carried. */
async function mcpCall(mcp: McpClient, name: string, args: Record<string, unknown>): Promise<{ ok: true; result: any } | { ok: false; error: CallError }> {
  // No waiting for a person: a gated call answers approval_required at once.
  const result = await mcp.callTool({ name, arguments: args, _meta: { approvalWaitMs: 0 } }, CallToolResultSchema);
  if (!result.isError) return { ok: true, result: result.structuredContent };
  return { ok: false, error: JSON.parse((result.content as Array<{ text: string }>)[0].text).error };
}

describe('giving core over MCP', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;

  const call = async (name: string, args: Record<string, unknown>, client = mcp) => {
    const outcome = await mcpCall(client, name, args);
    if (!outcome.ok) throw new Error(`${name} failed: ${JSON.stringify(outcome.error)}`);
    return outcome.result;
  };
  const refusal = async (name: string, args: Record<string, unknown>, client = mcp): Promise<CallError> => {
    const outcome = await mcpCall(client, name, args);
    if (outcome.ok) throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(outcome.result)}`);
    return outcome.error;
  };
  const contact = async (firstName: string, client = mcp) =>
    (await call('people_create_contact', { firstName, lastName: 'Giver', email: `${firstName.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.org` }, client)).contact.id as string;

  /** Every giving row of an organisation, to prove a refused call wrote nothing. */
  async function givingRows(orgId: string) {
    const out: Record<string, unknown[]> = {};
    for (const table of ['giving_funds', 'giving_givers', 'giving_batches', 'giving_donations', 'giving_designations', 'giving_settings']) {
      out[table] = (await harness.pool.query(`SELECT * FROM ${table} WHERE org_id = $1 ORDER BY 1, 2`, [orgId])).rows;
    }
    return out;
  }

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Giles' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await otherMcp?.close();
    await harness?.close();
  });

  it("walks a treasurer's week: fund, cash and card gifts in a batch, commit over the threshold needs approval, then totals", async () => {
    const { settings } = await call('giving_get_settings', {});
    expect(settings).toEqual({ currency: 'GBP', currencySource: 'country', commitApprovalThreshold: 500_000 });

    const { fund: building } = await call('giving_create_fund', { name: 'Building', code: 'BLD', description: 'Roof and repairs' });
    expect(building).toMatchObject({ name: 'Building', code: 'BLD', giftAidEligible: true, status: 'active', isDefault: false });

    const anna = await contact('Anna');
    const ben = await contact('Ben');
    const { giver } = await call('giving_upsert_giver', {
      contactId: anna, title: 'Mrs', houseNameOrNumber: '12', addressLine: 'High Street', town: 'Leeds', postcode: 'ls1 4ap', bankAccountNumber: '12-34 5678 9012',
    });
    expect(giver).toMatchObject({ contactId: anna, displayName: 'Anna Giver', postcode: 'LS1 4AP', bankAccountLast4: '9012', giverReference: expect.any(String) });
    expect(JSON.stringify(await harness.pool.query('SELECT * FROM giving_givers WHERE org_id = $1', [org.orgId]))).not.toContain('56789012');
    expect((await call('giving_get_giver', { contactId: anna })).giver.id).toBe(giver.id);
    for (const query of ['ls1 4', 'anna', giver.giverReference.toLowerCase()]) {
      expect((await call('giving_list_givers', { query })).givers.map((g: any) => g.id)).toEqual([giver.id]);
    }
    expect((await call('giving_list_givers', { query: '100%_' })).givers).toEqual([]);

    const { batch } = await call('giving_create_batch', { name: 'Sunday offering' });
    expect(batch).toMatchObject({ status: 'in_progress', currency: 'GBP', donationCount: 0, total: 0 });
    // The first gift that names no fund goes to the default fund, created for it.
    expect((await call('giving_list_funds', {})).funds.some((f: any) => f.isDefault)).toBe(false);
    const first = await call('giving_add_batch_donations', { batchId: batch.id, donations: [{ amount: 2_000, method: 'cash', receivedOn: today }] });
    const defaultFund = first.donations[0].designations[0];
    expect(defaultFund).toMatchObject({ fundName: 'General Fund', amount: 2_000 });
    const more = await call('giving_add_batch_donations', {
      batchId: batch.id,
      donations: [
        { contactId: anna, amount: 250_000, method: 'card', receivedOn: today, fee: 1_250, externalId: 'card-001',
          designations: [{ fundId: building.id, amount: 200_000 }, { fundId: defaultFund.fundId, amount: 50_000 }] },
        { contactId: ben, amount: 300_000, method: 'cheque', receivedOn: today, fundId: building.id },
      ],
    });
    expect(more.batch).toMatchObject({ donationCount: 3, total: 552_000 });
    expect(more.donations[0]).toMatchObject({ giftAidStatus: 'unclaimed', fee: 1_250, batchStatus: 'in_progress', giverName: 'Anna Giver' });
    expect(first.donations[0].giftAidStatus).toBe('not_claimable');

    // Uncommitted: in no list or total, but visible in its own batch.
    expect((await call('giving_list_donations', {})).donations).toEqual([]);
    expect((await call('giving_list_donations', { batchId: batch.id })).donations).toHaveLength(3);
    expect((await call('giving_summary', {})).total).toBe(0);

    const gated = await refusal('giving_commit_batch', { batchId: batch.id, expectedTotal: 552_000, actionSummary: 'Commit Sunday offering' });
    expect(gated.code).toBe('approval_required');
    const proposalId = gated.details.proposalId;
    expect((await call('giving_get_batch', { batchId: batch.id })).batch.status).toBe('in_progress');
    const decided = await call('platform_approve_proposal', { proposalId });
    expect(decided).toMatchObject({ status: 'approved', execution: { status: 'succeeded' } });
    expect(decided.execution.result.batch).toMatchObject({ status: 'committed', total: 552_000, committedByUserId: org.ownerUserId });

    const listed = await call('giving_list_donations', { fundId: building.id });
    expect(listed.donations.map((d: any) => d.amount).sort()).toEqual([250_000, 300_000]);
    expect((await call('giving_list_donations', { method: 'cash' })).donations).toHaveLength(1);
    expect((await call('giving_list_donations', { contactId: anna, giftAidStatus: 'unclaimed' })).donations).toHaveLength(1);
    const page = await call('giving_list_donations', { limit: 2 });
    const next = await call('giving_list_donations', { limit: 2, cursor: page.nextCursor });
    expect([...page.donations, ...next.donations].map((d: any) => d.id).sort()).toHaveLength(3);
    expect(next.nextCursor).toBeNull();

    let summary = await call('giving_summary', { period: 'day' });
    expect(summary).toMatchObject({ currency: 'GBP', total: 552_000, donationCount: 3, thisMonth: { total: 552_000, sameMonthLastYear: 0, change: 552_000 } });
    expect(summary.byFund).toEqual([
      { fundId: building.id, fundName: 'Building', total: 500_000, donationCount: 2, lastYearTotal: 0 },
      { fundId: defaultFund.fundId, fundName: 'General Fund', total: 52_000, donationCount: 2, lastYearTotal: 0 },
    ]);
    expect(summary.byPeriod).toEqual([{ periodStart: today, total: 552_000, donationCount: 3, lastYearTotal: 0 }]);

    // A committed batch never changes; a correction is an adjusting entry in a new batch.
    const chequeId = listed.donations.find((d: any) => d.amount === 300_000).id;
    expect((await refusal('giving_add_batch_donations', { batchId: batch.id, donations: [{ amount: 100, method: 'cash', receivedOn: today }] })).code).toBe('conflict');
    expect((await refusal('giving_remove_batch_donation', { donationId: chequeId })).code).toBe('conflict');
    const { adjustment, batch: adjustments } = await call('giving_adjust_donation', { donationId: chequeId, amount: -30_000, reason: 'Cheque was for £2,700' });
    expect(adjustment).toMatchObject({ amount: -30_000, adjustsDonationId: chequeId, batchStatus: 'in_progress', giftAidStatus: 'not_claimable' });
    expect((await call('giving_summary', {})).total).toBe(552_000);
    const shown = await call('giving_get_donation', { donationId: chequeId });
    expect({ amount: shown.donation.amount, refunds: shown.refunds, adjustments: shown.adjustments.map((a: any) => a.id) }).toEqual({ amount: 300_000, refunds: [], adjustments: [adjustment.id] });
    expect((await call('giving_commit_batch', { batchId: adjustments.id })).batch.status).toBe('committed');
    summary = await call('giving_summary', {});
    expect(summary.total).toBe(522_000);
    expect((await refusal('giving_adjust_donation', { donationId: chequeId, amount: -300_000, reason: 'too much' })).issues?.[0]?.path).toBe('designations.0.amount');

    // A small gift of its own, committed at once (within the threshold).
    const single = await call('giving_record_donation', { contactId: ben, amount: 1_000, method: 'online', receivedOn: today, fundId: building.id, commit: true });
    expect(single).toMatchObject({ duplicate: false, batch: { status: 'committed', donationCount: 1 }, donation: { amount: 1_000 } });

    const overview = await call('platform_overview', {});
    expect(overview.givingThisMonth).toEqual({ currency: 'GBP', total: 523_000, sameMonthLastYear: 0 });
    const top = await call('giving_list_top_givers', { purpose: 'thank_you_letters', months: 3 });
    expect(top.givers.map((g: any) => [g.displayName, g.total])).toEqual([['Ben Giver', 271_000], ['Anna Giver', 250_000]]);
    expect((await refusal('giving_list_top_givers', { purpose: 'thank_you_letters', months: 1 })).code).toBe('validation_failed');

    // Each recorded gift counts once on the donations meter (4 gifts, the adjustment is not one).
    const usage = await harness.pool.query("SELECT COALESCE(sum(units), 0)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'donations'", [org.orgId]);
    expect(usage.rows[0].n).toBe(4);

    // Archiving: not the default fund, not while an uncommitted gift uses it.
    expect((await refusal('giving_archive_fund', { fundId: defaultFund.fundId })).code).toBe('conflict');
    const open = (await call('giving_create_batch', { name: 'Midweek' })).batch;
    await call('giving_record_donation', { amount: 500, method: 'cash', receivedOn: today, fundId: building.id, batchId: open.id });
    const inUse = await refusal('giving_archive_fund', { fundId: building.id });
    expect(inUse).toMatchObject({ code: 'conflict', details: { uncommittedDonations: 1 } });
    expect((await call('giving_commit_batch', { batchId: open.id })).batch.status).toBe('committed');
    expect((await call('giving_archive_fund', { fundId: building.id })).fund.status).toBe('archived');
    const archived = await refusal('giving_record_donation', { amount: 500, method: 'cash', receivedOn: today, fundId: building.id });
    expect(archived).toMatchObject({ code: 'validation_failed', issues: [{ path: 'fundId' }] });
    expect((await call('giving_update_fund', { fundId: building.id, status: 'active' })).fund.status).toBe('active');
  });

  it('commits below the threshold directly, and follows an owner-set threshold', async () => {
    const { batch } = await call('giving_create_batch', { name: 'Threshold test' });
    await call('giving_record_donation', { amount: 20_000, method: 'cash', receivedOn: today, batchId: batch.id });
    await call('giving_update_settings', { commitApprovalThreshold: 10_000 });
    try {
      // A commit that needs approval names the total the approver will see.
      expect(await refusal('giving_commit_batch', { batchId: batch.id })).toMatchObject({ code: 'validation_failed', details: { total: 20_000 } });
      expect((await refusal('giving_commit_batch', { batchId: batch.id, expectedTotal: 20_000 })).code).toBe('approval_required');
      await call('giving_update_settings', { commitApprovalThreshold: 20_000 });
      expect((await call('giving_commit_batch', { batchId: batch.id })).batch.status).toBe('committed');
    } finally {
      await call('giving_update_settings', { commitApprovalThreshold: 500_000 });
    }
    const staff = await harness.createKey(org.orgId, ['giving:read', 'giving:write'], 'staff');
    const staffMcp = await harness.mcpClient(staff.apiKey);
    try {
      expect((await refusal('giving_update_settings', { commitApprovalThreshold: 100_000_000 }, staffMcp)).code).toBe('forbidden');
    } finally {
      await staffMcp.close();
    }
    expect((await refusal('giving_update_settings', { currency: 'USD' })).code).toBe('conflict');
  });

  it('a commit started as a plain call past the gate is refused inside its own transaction, and commits nothing', async () => {
    const { batch } = await call('giving_create_batch', { name: 'Past the gate' });
    await call('giving_record_donation', { amount: 600_000, method: 'cheque', receivedOn: today, batchId: batch.id });
    // As a worker would run it if a call reached it without going through the API's gate (or the batch grew after routing).
    const tool = findTool('giving_commit_batch')!;
    const args = { batchId: batch.id, expectedTotal: 600_000 };
    const principal: Principal = {
      orgId: org.orgId, userId: org.ownerUserId, role: 'owner', scopes: [...ALL_SCOPES], intent: null, credentialId: randomUUID(), credentialKind: 'api_key',
    };
    const plan = { tool: tool.name, module: tool.module, args, principal, policy: policyOf(tool, args), argsHash: argsHashOf(tool.name, args) };
    const failure = await harness.temporal.workflow.execute(workflowTypeForPlan(plan), {
      taskQueue: harness.taskQueue, workflowId: toolCallWorkflowId(org.orgId, `direct-${randomUUID()}`), args: [plan],
    }).then(() => undefined, (error: unknown) => error);
    expect(stewardErrorBodyOf(failure)).toMatchObject({ code: 'conflict' });
    expect(stewardErrorBodyOf(failure)?.message).toContain('approval');
    expect((await call('giving_get_batch', { batchId: batch.id })).batch.status).toBe('in_progress');
  });

  it('refuses bad gifts with a clear error naming the field, and writes nothing', async () => {
    const { batch } = await call('giving_create_batch', { name: 'Bad input' });
    const foreignContact = await contact('Mallory', otherMcp);
    const { fund: foreignFund } = await call('giving_create_fund', { name: 'Their fund' }, otherMcp);
    const base = { method: 'cash', receivedOn: today, batchId: batch.id };
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['negative', { ...base, amount: -100 }, 'validation_failed', 'amount'],
      ['zero', { ...base, amount: 0 }, 'validation_failed', 'amount'],
      ['10^15', { ...base, amount: 1e15 }, 'validation_failed', 'amount'],
      ['fractional', { ...base, amount: 12.5 }, 'validation_failed', 'amount'],
      ['a string', { ...base, amount: '1250' }, 'validation_failed', 'amount'],
      ['another currency', { ...base, amount: 1_250, currency: 'USD' }, 'validation_failed', 'currency'],
      ["a part in another organisation's fund", { ...base, amount: 1_000, designations: [{ fundId: foreignFund.id, amount: 1_000 }] }, 'not_found', 'fundId'],
      ['unknown fund', { ...base, amount: 1_250, fundId: MISSING }, 'not_found', 'fundId'],
      ["another organisation's fund", { ...base, amount: 1_250, fundId: foreignFund.id }, 'not_found', 'fundId'],
      ["another organisation's giver", { ...base, amount: 1_250, contactId: foreignContact }, 'not_found', 'contactId'],
      ['a future date', { ...base, amount: 1_250, receivedOn: '2999-01-01' }, 'validation_failed', 'receivedOn'],
      ['a fee above the gift', { ...base, amount: 1_250, fee: 1_251 }, 'validation_failed', 'fee'],
    ];
    const before = await givingRows(org.orgId);
    for (const [label, args, code, field] of cases) {
      const error = await refusal('giving_record_donation', args);
      expect({ label, code: error.code, field: error.issues?.some((issue) => issue.path.startsWith(field)) }).toEqual({ label, code, field: true });
    }
    // Parts that do not add up (own funds), and one bad gift among good ones: nothing of the bulk is recorded.
    const { funds } = await call('giving_list_funds', {});
    const split = await refusal('giving_record_donation', { ...base, amount: 1_250, designations: [{ fundId: funds[0].id, amount: 1_000 }, { fundId: funds[1].id, amount: 200 }] });
    expect(split).toMatchObject({ code: 'validation_failed', issues: [{ path: 'designations' }] });
    const bulk = await refusal('giving_add_batch_donations', { batchId: batch.id, donations: [{ amount: 100, method: 'cash', receivedOn: today }, { amount: 100, method: 'cash', receivedOn: today, fundId: MISSING }] });
    expect(bulk).toMatchObject({ code: 'not_found', issues: [{ path: 'donations.1.fundId' }] });
    expect(await givingRows(org.orgId)).toEqual(before);
  });

  it("treats another organisation's funds, givers, batches and donations as missing", async () => {
    const anna = await contact('Isolde');
    await call('giving_upsert_giver', { contactId: anna, giverReference: 'ENV-77' });
    const { fund } = await call('giving_create_fund', { name: 'Private fund' });
    const { batch } = await call('giving_create_batch', { name: 'Private batch' });
    const { donation } = await call('giving_record_donation', { contactId: anna, amount: 7_700, method: 'cash', receivedOn: today, fundId: fund.id, batchId: batch.id });
    const before = await givingRows(org.orgId);
    const probes: Array<[string, Record<string, unknown>]> = [
      ['giving_update_fund', { fundId: fund.id, name: 'Taken' }],
      ['giving_archive_fund', { fundId: fund.id }],
      ['giving_get_giver', { contactId: anna }],
      ['giving_upsert_giver', { contactId: anna, title: 'Ms' }],
      ['giving_get_batch', { batchId: batch.id }],
      ['giving_add_batch_donations', { batchId: batch.id, donations: [{ amount: 100, method: 'cash', receivedOn: today }] }],
      ['giving_record_donation', { amount: 100, method: 'cash', receivedOn: today, batchId: batch.id }],
      ['giving_commit_batch', { batchId: batch.id }],
      ['giving_get_donation', { donationId: donation.id }],
      ['giving_remove_batch_donation', { donationId: donation.id }],
      ['giving_adjust_donation', { donationId: donation.id, amount: -100, reason: 'Mine now' }],
      ['giving_summary', { fundId: fund.id }],
    ];
    for (const [tool, args] of probes) {
      const error = await refusal(tool, args, otherMcp);
      expect({ tool, code: error.code }).toEqual({ tool, code: 'not_found' });
      expect(JSON.stringify(error)).not.toContain('Private');
    }
    expect((await call('giving_list_donations', { batchId: batch.id }, otherMcp)).donations).toEqual([]);
    expect((await call('giving_list_givers', { query: 'ENV-77' }, otherMcp)).givers).toEqual([]);
    expect((await call('giving_list_givers', { query: 'ENV-77' })).givers).toHaveLength(1);
    expect((await call('giving_list_funds', { status: 'all' }, otherMcp)).funds.map((f: any) => f.name)).not.toContain('Private fund');
    expect(await givingRows(org.orgId)).toEqual(before);
  });

  it('shows volunteers no individual giving', async () => {
    await expect(harness.createKey(org.orgId, ['people:read', 'giving:read'], 'volunteer')).rejects.toMatchObject({ code: 'forbidden' });
    const volunteer = await harness.createKey(org.orgId, ['people:read', 'platform:read'], 'volunteer');
    const volunteerMcp = await harness.mcpClient(volunteer.apiKey);
    try {
      for (const tool of ['giving_list_donations', 'giving_list_top_givers', 'giving_summary']) {
        const args = tool === 'giving_list_top_givers' ? { purpose: 'thank_you_letters' } : {};
        expect((await refusal(tool, args, volunteerMcp)).code).toBe('insufficient_scope');
      }
      const overview = await call('platform_overview', {}, volunteerMcp);
      expect(overview.givingThisMonth).toBeNull();
    } finally {
      await volunteerMcp.close();
    }
  });

  it('imports a bank CSV: dry run reports each row, two imports at once record each gift once, a repeat records nothing', async () => {
    const erin = await contact('Erin');
    await call('giving_upsert_giver', { contactId: erin, giverReference: 'ENV-12' });
    await call('giving_record_donation', { contactId: erin, amount: 4_000, method: 'bank_transfer', receivedOn: today, commit: true });
    const csv = [
      'Date,Amount,Reference,Giver Reference,Description',
      `${today},"1,250.00",TX-1,ENV-12,Standing order`,
      `${today},40.00,TX-2,ENV-12,Looks like the manual gift`,
      `${today},12.5,TX-3,,Anonymous transfer`,
      `${today},abc,TX-4,,Not an amount`,
      `${today},10.00,TX-1,ENV-12,Repeats row 2`,
    ].join('\n');
    const dry = await call('giving_import_donations', { csv, source: 'barclays', mode: 'dry_run' });
    expect(dry.counts).toEqual({ rows: 5, created: 2, duplicate: 1, nearDuplicate: 1, error: 1, recorded: 0 });
    expect(dry.rows.map((r: any) => [r.row, r.status])).toEqual([[2, 'created'], [3, 'near_duplicate'], [4, 'created'], [5, 'error'], [6, 'duplicate']]);
    expect(dry.rows[0]).toMatchObject({ amount: 125_000, contactId: erin });
    expect(dry.rows[2].amount).toBe(1_250);
    expect(dry.rows[3].message).toContain('amount');
    expect(dry.batch).toBeNull();

    // Errors stop the whole commit; the message names the row.
    const refused = await refusal('giving_import_donations', { csv, source: 'barclays', mode: 'commit' });
    expect(refused).toMatchObject({ code: 'validation_failed', issues: [{ path: 'row 5' }] });
    const clean = csv.split('\n').filter((line) => !line.includes('TX-4')).join('\n');
    expect((await refusal('giving_import_donations', { csv: clean, source: 'barclays', mode: 'commit' })).issues?.[0]?.path).toBe('row 3');

    const secondMcp = await harness.mcpClient(org.apiKey);
    try {
      const args = { csv: clean, source: 'barclays', mode: 'commit', acceptNearDuplicates: true };
      const [one, two] = await Promise.all([call('giving_import_donations', args), call('giving_import_donations', args, secondMcp)]);
      expect(one.counts.created + two.counts.created).toBe(2);
      expect(one.counts.recorded + two.counts.recorded).toBe(3);
      // The first records TX-1, TX-2 (accepted near-duplicate) and TX-3; the repeat of TX-1 in the file, and all of the second, are duplicates.
      expect(one.counts.duplicate + two.counts.duplicate).toBe(5);
    } finally {
      await secondMcp.close();
    }
    const recorded = await harness.pool.query("SELECT external_id FROM giving_donations WHERE org_id = $1 AND source = 'import:barclays' ORDER BY 1", [org.orgId]);
    expect(recorded.rows.map((r) => r.external_id)).toEqual(['TX-1', 'TX-2', 'TX-3']);
    // Metered by what was recorded: the three gifts, not the eight rows the two imports read.
    const metered = await harness.pool.query("SELECT COALESCE(sum(units), 0)::int AS n FROM usage_events WHERE org_id = $1 AND tool = 'giving_import_donations'", [org.orgId]);
    expect(metered.rows[0].n).toBe(3);
    const again = await call('giving_import_donations', { csv: clean, source: 'barclays', mode: 'commit', acceptNearDuplicates: true });
    expect(again.counts).toMatchObject({ created: 0, duplicate: 4 });
    expect(again.batch).toBeNull();

    // Malformed and oversized files are refused by name; nothing is written.
    const before = await givingRows(org.orgId);
    const malformed = await refusal('giving_import_donations', { csv: `Date,Amount\n${today},"10.00\n${today},5.00`, source: 'barclays', mode: 'commit' });
    expect(malformed).toMatchObject({ code: 'validation_failed' });
    expect(malformed.issues?.[0]?.path).toMatch(/^csv/);
    const tooLong = await refusal('giving_import_donations', { csv: `Date,Amount,Description\n${today},1.00,${'x'.repeat(905_000)}`, source: 'barclays', mode: 'dry_run' });
    expect(tooLong).toMatchObject({ code: 'validation_failed', issues: [{ path: 'csv' }] });
    // A 5 MB export is refused before it reaches the tool (the request body limit): split it into several imports.
    const fiveMegabytes = await harness.invoke(org.apiKey, 'giving_import_donations', { csv: `Date,Amount\n${`${today},1.00\n`.repeat(300_000)}`, source: 'barclays', mode: 'dry_run' });
    expect(fiveMegabytes.status).toBe(413);
    expect(await givingRows(org.orgId)).toEqual(before);
  });

  it('serves giving pages through the dashboard API bridge: reads answer, a curated write names its tool, B sees nothing', async () => {
    const { batch } = await call('giving_create_batch', { name: 'Bridge batch' });
    const read = await call('giving_invoke_api_read', { path: `/api/giving/batches/${batch.id}` });
    expect(read).toMatchObject({ route: 'GET /api/giving/batches/{batchId}', result: { batch: { id: batch.id, status: 'in_progress' } } });
    const funds = await call('giving_invoke_api_read', { path: '/api/giving/funds' });
    expect(funds.result.funds.length).toBeGreaterThan(0);
    const write = await refusal('giving_invoke_api_write', {
      method: 'PATCH', path: `/api/giving/funds/${funds.result.funds[0].id}`, body: { name: 'Bypass' }, actionSummary: 'Rename',
    });
    expect(write).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'giving_update_fund' } });
    expect((await refusal('giving_invoke_api_read', { path: `/api/giving/batches/${batch.id}` }, otherMcp)).code).toBe('not_found');
  });

  it("a people merge carries giving along: gifts and details move, the kept giver's details stay and are filled in", async () => {
    const kept = await contact('Kit');
    const duplicate = await contact('Kitty');
    const spouse = await contact('Sam');
    await call('giving_upsert_giver', { contactId: kept, giverReference: 'KEEP-1', title: 'Ms', jointContactId: duplicate });
    await call('giving_upsert_giver', { contactId: duplicate, giverReference: 'DUP-1', postcode: 'LS2 7AB', bankAccountNumber: '11112222' });
    await call('giving_upsert_giver', { contactId: spouse, giverReference: 'SAM-1', jointContactId: duplicate });
    const { donation } = await call('giving_record_donation', { contactId: duplicate, amount: 900, method: 'cash', receivedOn: today, commit: true });
    const proposal = await refusal('people_merge_data_quality_contacts', { keepContactId: kept, mergeContactId: duplicate, actionSummary: 'Merge Kit' });
    expect(proposal.code).toBe('approval_required');
    const decided = await call('platform_approve_proposal', { proposalId: proposal.details.proposalId });
    expect(decided.execution).toMatchObject({ status: 'succeeded' });
    expect((await call('giving_get_giver', { contactId: kept })).giver).toMatchObject({
      giverReference: 'KEEP-1', title: 'Ms', postcode: 'LS2 7AB', bankAccountLast4: '2222', jointContactId: null,
    });
    expect((await call('giving_get_giver', { contactId: spouse })).giver.jointContactId).toBe(kept);
    expect((await call('giving_get_donation', { donationId: donation.id })).donation.contactId).toBe(kept);
  });

  it('records one gift when the same external id arrives several times at once', async () => {
    const clients = await Promise.all([1, 2, 3, 4].map(() => harness.mcpClient(org.apiKey)));
    try {
      const args = { amount: 3_300, method: 'online', receivedOn: today, externalId: 'pay_concurrent_1' };
      const results = await Promise.all(clients.flatMap((client) => [call('giving_record_donation', args, client), call('giving_record_donation', args, client)]));
      const ids = new Set(results.map((r) => r.donation.id));
      expect(ids.size).toBe(1);
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
    const rows = await harness.pool.query("SELECT count(*)::int AS n FROM giving_donations WHERE org_id = $1 AND external_id = 'pay_concurrent_1'", [org.orgId]);
    expect(rows.rows[0].n).toBe(1);
    // Only the gift recorded counts on the donations meter, not its seven repeats.
    const metered = await harness.pool.query(`SELECT COALESCE(sum(u.units), 0)::int AS n FROM usage_events u JOIN tool_call_results t ON t.workflow_id = u.idempotency_key
      WHERE u.org_id = $1 AND t.result #>> '{donation,externalId}' = 'pay_concurrent_1'`, [org.orgId]);
    expect(metered.rows[0].n).toBe(1);
    // The repeats left no empty batches of their own behind.
    const empty = await harness.pool.query(`SELECT count(*)::int AS n FROM giving_batches b WHERE org_id = $1 AND name LIKE 'Gift received %'
      AND NOT EXISTS (SELECT 1 FROM giving_donations d WHERE d.batch_id = b.id)`, [org.orgId]);
    expect(empty.rows[0].n).toBe(0);
  });
});
