import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { scopesAllowedForRole } from '../../core/roles';
import { MODULES } from '../../modules';
import { metricCatalogue, PROMISED_METRICS } from '../../modules/metrics';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * platform_analytics_query over MCP against data made with the real tools: every metric's exact
 * figures and sentence, metrics of modules not built yet, scopes, tenancy and bad parameters.
 */

interface CallError { code: string; message: string; issues?: Array<{ path: string; message: string }>; details?: any }

const DAY_MS = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const mondayOf = (date: string) => {
  const at = new Date(`${date}T00:00:00Z`);
  return new Date(at.getTime() - ((at.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
};
const monthName = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date());
const spoken = (date: string) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));

async function mcpCall(mcp: McpClient, name: string, args: Record<string, unknown>): Promise<{ ok: true; result: any } | { ok: false; error: CallError }> {
  const result = await mcp.callTool({ name, arguments: args, _meta: { approvalWaitMs: 0 } }, CallToolResultSchema);
  if (!result.isError) return { ok: true, result: result.structuredContent };
  return { ok: false, error: JSON.parse((result.content as Array<{ text: string }>)[0].text).error };
}

describe('platform_analytics_query over MCP', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  let peopleOnly: McpClient;
  let volunteer: McpClient;
  const eightWeeksAgo = daysAgo(56);

  const call = async (name: string, args: Record<string, unknown>, client = mcp) => {
    const outcome = await mcpCall(client, name, args);
    if (!outcome.ok) throw new Error(`${name} failed: ${JSON.stringify(outcome.error)}`);
    return outcome.result;
  };
  const refusal = async (args: Record<string, unknown>, client = mcp): Promise<CallError> => {
    const outcome = await mcpCall(client, 'platform_analytics_query', args);
    if (outcome.ok) throw new Error(`unexpectedly answered: ${JSON.stringify(outcome.result)}`);
    return outcome.error;
  };
  const query = (args: Record<string, unknown>, client = mcp) => call('platform_analytics_query', args, client);
  const contact = async (client: McpClient, firstName: string, fields: Record<string, unknown>) =>
    (await call('people_create_contact', { firstName, lastName: 'Tester', email: `${firstName.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.org`, ...fields }, client)).contact.id as string;
  const gift = async (client: McpClient, amount: number, receivedOn: string, contactId?: string) =>
    (await call('giving_record_donation', { amount, method: 'cash', receivedOn, commit: true, ...(contactId ? { contactId } : {}) }, client)).donation;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Figures' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    peopleOnly = await harness.mcpClient((await harness.createKey(org.orgId, ['platform:read', 'people:read'])).apiKey);
    // Everything a volunteer may hold, which never includes giving:read.
    volunteer = await harness.mcpClient((await harness.createKey(org.orgId, scopesAllowedForRole('volunteer', false), 'volunteer')).apiKey);

    const anna = await contact(mcp, 'Anna', { status: 'subscribed', membershipStatus: 'member' });
    const ben = await contact(mcp, 'Ben', { status: 'subscribed', membershipStatus: 'regular_attender' });
    await contact(mcp, 'Cara', { status: 'subscribed', membershipStatus: 'first_time_visitor' });
    await contact(mcp, 'Dan', { status: 'bounced', membershipStatus: 'first_time_visitor' });
    const fay = await contact(mcp, 'Fay', { status: 'subscribed' });
    // Two unsubscribes by one person: counted as two, by one contact.
    await call('people_update_contact', { contactId: fay, status: 'unsubscribed' });
    await call('people_update_contact', { contactId: fay, status: 'subscribed' });
    await call('people_update_contact', { contactId: fay, status: 'unsubscribed' });

    const large = await gift(mcp, 123_450, today, anna);
    await gift(mcp, 10_000, today, ben);
    await gift(mcp, 5_000, eightWeeksAgo, ben);
    await gift(mcp, 2_000, today);
    // An uncommitted batch counts nowhere.
    const { batch } = await call('giving_create_batch', { name: 'Not yet counted' });
    await call('giving_record_donation', { amount: 70_000, method: 'cash', receivedOn: today, contactId: ben, batchId: batch.id });
    // A refund of £4.50 from Anna's gift, approved by the owner.
    const refund = await mcpCall(mcp, 'giving_refund_donation', { donationId: large.id, amount: 450, reason: 'Counted twice', actionSummary: 'Refund £4.50 to Anna' });
    expect(refund).toMatchObject({ ok: false, error: { code: 'approval_required' } });
    const approved = await call('platform_approve_proposal', { proposalId: (refund as { error: CallError }).error.details.proposalId });
    expect(approved.execution.status).toBe('succeeded');

    // Another organisation's people and gifts, which must never be counted.
    const stranger = await contact(otherMcp, 'Stranger', { status: 'unsubscribed', membershipStatus: 'first_time_visitor' });
    await gift(otherMcp, 99_999, today, stranger);
  });

  afterAll(async () => {
    for (const client of [mcp, otherMcp, peopleOnly, volunteer]) await client?.close();
    await harness?.close();
  });

  it('counts contacts: total, by membership stage and by consent status', async () => {
    expect(await query({ metric: 'total_contacts' })).toEqual({ metric: 'total_contacts', module: 'people', data: { total: 5 }, speakToUser: 'You have 5 contacts.' });
    const membership = await query({ metric: 'contacts_by_membership_status' });
    expect(membership.data).toEqual({
      total: 5, byMembershipStatus: { first_time_visitor: 2, returning_visitor: 0, regular_attender: 1, member: 1, inactive: 0, unknown: 1 },
    });
    expect(membership.speakToUser).toBe('Of 5 contacts: 2 first-time visitors, 1 regular attender, 1 member, 1 with no stage set.');
    const status = await query({ metric: 'contacts_by_status' });
    expect(status.data).toEqual({ total: 5, byStatus: { subscribed: 3, unsubscribed: 1, non_subscribed: 0, bounced: 1 } });
    expect(status.speakToUser).toBe('Of 5 contacts: 3 subscribed, 1 unsubscribed, 1 bounced.');
  });

  it('counts unsubscribes and first-time visitors in a range', async () => {
    const week = await query({ metric: 'count_unsubscribes' });
    expect(week.data).toEqual({ from: daysAgo(6), to: today, unsubscribes: 2, contacts: 1 });
    expect(week.speakToUser).toBe(`1 contact unsubscribed from email between ${spoken(daysAgo(6))} and ${spoken(today)}.`);
    expect((await query({ metric: 'count_unsubscribes', from: daysAgo(30), to: daysAgo(1) })).data).toMatchObject({ unsubscribes: 0, contacts: 0 });
    const visitors = await query({ metric: 'first_time_visitors' });
    expect(visitors.data).toEqual({ from: `${today.slice(0, 8)}01`, to: today, firstTimeVisitors: 2 });
    expect(visitors.speakToUser).toBe(`2 first-time visitors came in ${monthName} so far.`);
    expect((await query({ metric: 'first_time_visitors', period: 'last_year' })).data.firstTimeVisitors).toBe(0);
  });

  it('totals giving this month, net of refunds, committed gifts only, with a sentence in pounds', async () => {
    const total = await query({ metric: 'giving_total' });
    expect(total).toEqual({
      metric: 'giving_total', module: 'giving',
      data: { from: `${today.slice(0, 8)}01`, to: today, currency: 'GBP', total: 135_000, giftCount: 3 },
      speakToUser: `£1,350.00 was given in ${monthName} so far across 3 gifts.`,
    });
    const older = await query({ metric: 'giving_total', from: eightWeeksAgo, to: eightWeeksAgo });
    expect(older.data).toMatchObject({ total: 5_000, giftCount: 1 });
    expect(older.speakToUser).toBe(`£50.00 was given on ${spoken(eightWeeksAgo)} across 1 gift.`);
    expect((await query({ metric: 'giving_total', period: 'last_year' })).speakToUser).toBe(`Nothing was given in ${Number(today.slice(0, 4)) - 1}.`);
  });

  it('trends giving by ISO week over the last twelve weeks, empty weeks included', async () => {
    const trend = await query({ metric: 'weekly_trend_giving' });
    expect(trend.data.weeks).toHaveLength(12);
    expect(trend.data.from).toBe(mondayOf(daysAgo(77)));
    expect(trend.data.total).toBe(140_000);
    const nonEmpty = trend.data.weeks.filter((week: any) => week.total !== 0);
    expect(nonEmpty.map((w: any) => [w.weekStart, w.total, w.giftCount])).toEqual([[mondayOf(eightWeeksAgo), 5_000, 1], [mondayOf(today), 135_000, 3]]);
    expect(trend.data.weeks[11].isoWeek).toMatch(/^\d{4}-W\d{2}$/);
    expect(trend.speakToUser).toBe(`£1,400.00 was given over the 12 weeks between ${spoken(trend.data.from)} and ${spoken(today)}; the highest week began ${spoken(mondayOf(today))}, with £1,350.00.`);
  });

  it('lists top donors, never anonymous gifts, limited on request', async () => {
    const top = await query({ metric: 'top_donors' });
    expect(top.data.donors.map((d: any) => [d.displayName, d.total, d.giftCount])).toEqual([['Anna Tester', 123_000, 1], ['Ben Tester', 15_000, 2]]);
    expect(top.speakToUser).toContain(': Anna Tester (£1,230.00), Ben Tester (£150.00).');
    expect((await query({ metric: 'top_donors', limit: 1 })).data.donors).toHaveLength(1);
    expect((await refusal({ metric: 'top_donors', from: daysAgo(20), to: today })).code).toBe('validation_failed');
  });

  it('never counts another organisation, and counts theirs for them', async () => {
    expect((await query({ metric: 'total_contacts' }, otherMcp)).data.total).toBe(1);
    expect((await query({ metric: 'giving_total' }, otherMcp)).data).toMatchObject({ total: 99_999, giftCount: 1 });
    expect((await query({ metric: 'count_unsubscribes' }, otherMcp)).data.unsubscribes).toBe(1);
  });

  it('answers the attendance metrics from the attendance module, none of them waiting on a module', async () => {
    expect([...metricCatalogue(MODULES).unavailable.keys()]).toEqual([]);
    const total = await query({ metric: 'attendance_total' });
    expect(total).toMatchObject({ module: 'attendance' });
    expect(JSON.stringify(total.data)).not.toContain('module_not_available');
    const response = await harness.invoke(org.apiKey, 'platform_analytics_query', { metric: 'weekly_trend_attendance' });
    expect(response.status).toBe(200);
    const listed = await mcp.listTools();
    expect(listed.tools.some((tool) => tool.name === 'platform_analytics_query')).toBe(false);
  });

  it('answers every registered metric with a sentence to relay, and its description lists every metric from the catalogue', async () => {
    const catalogue = metricCatalogue(MODULES);
    // Every promised metric is either answered by its module or waiting on it: none is forgotten.
    expect([...catalogue.available.keys(), ...catalogue.unavailable.keys()].sort()).toEqual(expect.arrayContaining(Object.keys(PROMISED_METRICS).sort()));
    for (const [metric, { module }] of catalogue.available) {
      const answer = await query({ metric });
      expect({ metric, module: answer.module }).toEqual({ metric, module });
      expect(answer.speakToUser).toMatch(/^\S.*\.$/);
    }
    const [tool] = (await call('platform_inspect_tools', { names: ['platform_analytics_query'] })).tools;
    for (const name of catalogue.available.keys()) expect(tool.description).toContain(`${name} (`);
    const waiting = [...catalogue.unavailable].map(([name, module]) => `${name} (${module} module)`);
    for (const entry of waiting) expect(tool.description).toContain(entry);
  });

  it('refuses a giving metric to a people-only credential and to a volunteer, naming the scope', async () => {
    for (const client of [peopleOnly, volunteer]) {
      expect((await query({ metric: 'total_contacts' }, client)).data.total).toBe(5);
      for (const metric of ['giving_total', 'top_donors', 'weekly_trend_giving']) {
        expect(await refusal({ metric }, client)).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: 'giving:read' } });
      }
    }
  });

  it('refuses bad parameters as validation_failed', async () => {
    const bad = [
      { metric: 'giving_total', from: today, to: daysAgo(1) },
      { metric: 'giving_total', from: '2026-13-01' },
      { metric: 'giving_total', to: '24/11/2026' },
      { metric: 'top_donors', limit: 0 },
      { metric: 'top_donors', limit: 51 },
      { metric: 'giving_total', period: 'this_month', to: today },
      { metric: 'total_contacts', from: today },
      { metric: 'weekly_trend_giving', from: '2020-01-01', to: today },
      { metric: 'no_such_metric' },
    ];
    for (const args of bad) expect({ args, code: (await refusal(args)).code }).toEqual({ args, code: 'validation_failed' });
  });
});
