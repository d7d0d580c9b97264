import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { scopesAllowedForRole } from '../../core/roles';
import { MODULES } from '../../modules';
import { registeredAlertRules } from '../../modules/platform/alerts/tool';
import { Harness, type TestOrg } from '../helpers/harness';
import { dayFromToday, mcpCall } from '../helpers/mcp-calls';

/**
 * platform_proactive_alerts over MCP against data made with the real tools (and, where only
 * time can make a record old, its timestamps moved back): each rule fires with its figures and
 * tool, stays quiet otherwise, counts restricted pastoral records only for safeguarding holders
 * exactly as their own lists do, skips rules outside the credential's scopes, and never counts
 * another organisation.
 */

interface AlertView { ruleId: string; module: string; severity: string; title: string; reason: string; count: number; actWith: { tool: string; args?: Record<string, unknown> } }

describe('platform_proactive_alerts', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let holder: McpClient;
  let nonHolder: McpClient;
  let platformOnly: McpClient;

  const alertsOf = async (client: McpClient, args: Record<string, unknown> = {}) => mcpCall(client, 'platform_proactive_alerts', args);
  const rule = (result: { alerts: AlertView[] }, ruleId: string) => result.alerts.filter((alert) => alert.ruleId === ruleId);
  const contact = async (firstName: string) =>
    (await mcpCall(owner, 'people_create_contact', { firstName, lastName: 'Alert', email: `${firstName.toLowerCase()}-${randomUUID().slice(0, 8)}@example.org` })).contact.id as string;
  const backdate = async (table: string, id: string, days: number) =>
    harness.pool.query(`UPDATE ${table} SET created_at = now() - make_interval(days => $2) WHERE id = $1`, [id, days]);
  const outboxRow = async (orgId: string, sourceKind: string, status: string, daysAgo: number) => harness.pool.query(`
    INSERT INTO outbox_messages (id, org_id, source_kind, source_id, idempotency_key, channel, recipient, body, status, created_at)
    VALUES ($1, $2, $3, $4, $5, 'email', 'someone@example.org', 'Hello', $6, now() - make_interval(days => $7))`,
  [randomUUID(), orgId, sourceKind, randomUUID(), randomUUID(), status, daysAgo]);

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Alert' });
    other = await harness.createOrg({ name: 'Quiet Elsewhere' });
    owner = await harness.mcpClient(org.apiKey);
    holder = await harness.mcpClient((await harness.createKey(org.orgId, scopesAllowedForRole('staff', true), 'staff', { safeguarding: true })).apiKey);
    nonHolder = await harness.mcpClient((await harness.createKey(org.orgId, scopesAllowedForRole('staff', false), 'staff')).apiKey);
    platformOnly = await harness.mcpClient((await harness.createKey(org.orgId, ['platform:read'], 'staff')).apiKey);
  });

  afterAll(async () => {
    for (const client of [owner, holder, nonHolder, platformOnly]) await client?.close();
    await harness?.close();
  });

  it('says nothing needs attention for a new organisation, and lists every registered rule in its description', async () => {
    const result = await alertsOf(owner);
    expect(result).toEqual({ alerts: [], rulesChecked: registeredAlertRules(MODULES).length, notChecked: [], speakToUser: 'Nothing needs attention right now.' });
    const [tool] = (await mcpCall(owner, 'platform_inspect_tools', { names: ['platform_proactive_alerts'] })).tools;
    expect((await mcpCall(owner, 'platform_search_tools', { query: 'what needs my attention this week' })).tools).toContain('platform_proactive_alerts');
    for (const { rule: registered } of registeredAlertRules(MODULES)) expect(tool.description).toContain(registered.id);
    for (const id of ['platform.allowance_near_limit', 'platform.failed_sends', 'people.welfare_due', 'people.follow_ups_overdue', 'giving.batches_left_open']) {
      expect(registeredAlertRules(MODULES).map((r) => r.rule.id)).toContain(id);
    }
  });

  it('warns when an allowance is nearly used, and says it is used up when it is', async () => {
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'contacts', 5)", [org.orgId]);
    for (const name of ['Ann', 'Bea', 'Cal', 'Dee']) await contact(name);
    const [near] = rule(await alertsOf(owner), 'platform.allowance_near_limit');
    const plan = (await mcpCall(owner, 'platform_overview', {})).organisation.plan;
    expect(near).toEqual({
      ruleId: 'platform.allowance_near_limit', module: 'platform', severity: 'warning', title: 'The contacts allowance is 80% used',
      reason: `4 contacts used of the 5 the ${plan} plan allows (80%).`, count: 4, actWith: { tool: 'platform_usage' },
    });
    await contact('Eve');
    const [full] = rule(await alertsOf(owner), 'platform.allowance_near_limit');
    expect(full).toMatchObject({ severity: 'urgent', title: 'The contacts allowance is used up', count: 5 });
    expect(full.reason).toContain('more are refused');
    await harness.pool.query('DELETE FROM org_allowance_overrides WHERE org_id = $1', [org.orgId]);
    expect(rule(await alertsOf(owner), 'platform.allowance_near_limit')).toEqual([]);
  });

  it('reports failed sends of the last week by kind, with counts only and the tool to look after them', async () => {
    await outboxRow(org.orgId, 'platform.team_invite', 'failed', 1);
    await outboxRow(org.orgId, 'platform.team_invite', 'failed', 2);
    await outboxRow(org.orgId, 'giving.statement', 'needs_review', 0);
    await outboxRow(org.orgId, 'giving.statement', 'failed', 30);
    await outboxRow(org.orgId, 'giving.statement', 'sent', 0);
    await outboxRow(other.orgId, 'platform.team_invite', 'failed', 0);
    const result = await alertsOf(owner);
    const failed = rule(result, 'platform.failed_sends');
    expect(failed).toEqual([
      { ruleId: 'platform.failed_sends', module: 'platform', severity: 'urgent', title: '2 team invitations were not delivered',
        reason: 'In the last 7 days, 2 messages failed.', count: 2, actWith: { tool: 'platform_list_pending_team_invites' } },
      { ruleId: 'platform.failed_sends', module: 'platform', severity: 'warning', title: '1 giving statement was not delivered',
        reason: 'In the last 7 days, 1 message stopped for review because an earlier attempt may already have arrived.', count: 1, actWith: { tool: 'giving_list_statements' } },
    ]);
    expect(JSON.stringify(result)).not.toContain('someone@example.org');
    // Most pressing first, and the sentence counts them.
    expect(result.alerts[0].severity).toBe('urgent');
    expect(result.speakToUser).toBe(`${result.alerts.length} things need attention, 1 urgent; first: 2 team invitations were not delivered.`);
    expect((await alertsOf(owner, { minimumSeverity: 'urgent' })).alerts.map((a: AlertView) => a.ruleId)).toEqual(['platform.failed_sends']);
  });

  describe('pastoral rules count only what the caller may see', () => {
    let olive: string;
    let rex: string;

    beforeAll(async () => {
      // Olive and Rex joined 200 days ago; Rex had a confidential (red) note last week, Olive nothing.
      olive = await contact('Olive');
      rex = await contact('Rex');
      await backdate('contacts', olive, 200);
      await backdate('contacts', rex, 200);
      await mcpCall(owner, 'people_add_note', { contactId: rex, content: 'Rex shared something in confidence.', confidentialityLevel: 'red' });
      // Nina's follow-ups are overdue: a team note three days late, a private one twenty days late.
      const nina = await contact('Nina');
      await mcpCall(owner, 'people_add_note', { contactId: nina, content: 'Ring Nina about the rota.', followUpDate: dayFromToday(-3) });
      await mcpCall(owner, 'people_add_note', { contactId: nina, content: 'Visit Nina at home.', privacy: 'private', followUpDate: dayFromToday(-20) });
    });

    it('welfare due: the holder sees Olive only, anyone else Olive and Rex, each matching their own list', async () => {
      const [forHolder] = rule(await alertsOf(holder), 'people.welfare_due');
      expect(forHolder).toMatchObject({
        severity: 'warning', title: '1 person is due a welfare check', count: 1, actWith: { tool: 'people_list_welfare_due_contacts', args: { days: 180 } },
      });
      expect(forHolder.reason).toBe('1 person has had no pastoral contact for at least 180 days (the welfare interval); the longest gap is 200 days.');
      const [forOthers] = rule(await alertsOf(nonHolder), 'people.welfare_due');
      expect(forOthers).toMatchObject({ title: '2 people are due a welfare check', count: 2 });
      for (const [client, alert] of [[holder, forHolder], [nonHolder, forOthers]] as const) {
        const listed = await mcpCall(client, alert.actWith.tool, alert.actWith.args ?? {});
        expect(listed.contacts).toHaveLength(alert.count);
      }
      expect((await mcpCall(holder, 'people_list_welfare_due_contacts', {})).contacts.map((c: { contactId: string }) => c.contactId)).toEqual([olive]);
      expect(rex).toBeDefined();
    });

    it('overdue follow-ups: the private one counts (and makes it urgent) only for the holder', async () => {
      const [forHolder] = rule(await alertsOf(holder), 'people.follow_ups_overdue');
      expect(forHolder).toMatchObject({ severity: 'urgent', title: '2 pastoral follow-ups are overdue', count: 2 });
      expect(forHolder.reason).toContain('the oldest was due 20 days ago');
      const [forOthers] = rule(await alertsOf(nonHolder), 'people.follow_ups_overdue');
      expect(forOthers).toMatchObject({ severity: 'warning', title: '1 pastoral follow-up is overdue', count: 1 });
      expect(forOthers.reason).toContain('the oldest was due 3 days ago');
      for (const [client, alert] of [[holder, forHolder], [nonHolder, forOthers]] as const) {
        expect((await mcpCall(client, alert.actWith.tool, alert.actWith.args ?? {})).followUps).toHaveLength(alert.count);
      }
    });
  });

  it('platform_overview counts the same alerts, under each caller\'s view', async () => {
    for (const client of [holder, nonHolder, platformOnly]) {
      const { alerts } = await alertsOf(client);
      const { attention } = await mcpCall(client, 'platform_overview', {});
      const count = (severity: string) => alerts.filter((a: AlertView) => a.severity === severity).length;
      expect(attention).toEqual({ urgent: count('urgent'), warning: count('warning'), info: count('info'), titles: alerts.slice(0, 3).map((a: AlertView) => a.title) });
    }
    // The private follow-up makes a difference between the two views.
    const urgentFor = async (client: McpClient) => (await mcpCall(client, 'platform_overview', {})).attention.urgent;
    expect(await urgentFor(holder)).toBe(await urgentFor(nonHolder) + 1);
  });

  describe('giving rules', () => {
    beforeAll(async () => {
      const giver = await contact('Gina');
      const { batch } = await mcpCall(owner, 'giving_create_batch', { name: 'Harvest envelopes' });
      await mcpCall(owner, 'giving_record_donation', { amount: 2_000, method: 'cash', receivedOn: dayFromToday(-10), contactId: giver, batchId: batch.id });
      await mcpCall(owner, 'giving_record_donation', { amount: 3_000, method: 'cash', receivedOn: dayFromToday(-10), contactId: giver, batchId: batch.id });
      await backdate('giving_batches', batch.id, 10);
      // A batch begun today is not forgotten yet.
      await mcpCall(owner, 'giving_create_batch', { name: 'This Sunday' });

      const { funds } = await mcpCall(owner, 'giving_list_funds', {});
      const { gift } = await mcpCall(owner, 'giving_create_recurring_gift', {
        contactId: giver, fundId: funds[0].id, amount: 1_000, method: 'standing_order', frequency: 'monthly',
      });
      await harness.pool.query("UPDATE giving_recurring_gifts SET next_on = (now() AT TIME ZONE 'UTC')::date - 5 WHERE id = $1", [gift.id]);

      await mcpCall(owner, 'giving_record_donation', { amount: 5_000, method: 'cash', receivedOn: dayFromToday(-1), contactId: giver, commit: true });
      const generated = await mcpCall(owner, 'giving_generate_statements', { periodStart: dayFromToday(-30), periodEnd: dayFromToday(0), contactIds: [giver] });
      await harness.pool.query("UPDATE giving_statements SET delivery_status = 'failed' WHERE id = $1", [generated.statements[0].id]);
    });

    it('finds the forgotten batch, the stalled recurring gift and the failed statement email', async () => {
      const result = await alertsOf(owner);
      expect(rule(result, 'giving.batches_left_open')).toEqual([{
        ruleId: 'giving.batches_left_open', module: 'giving', severity: 'warning', title: '1 batch of gifts left uncommitted',
        reason: '1 batch was begun 7 or more days ago and not committed; 2 gifts in it count in no total until committed.',
        count: 1, actWith: { tool: 'giving_list_batches', args: { status: 'in_progress' } },
      }]);
      const [behind] = rule(result, 'giving.recurring_gifts_behind');
      expect(behind).toMatchObject({ severity: 'urgent', count: 1, title: '1 recurring gift is not being recorded', actWith: { tool: 'giving_list_recurring_gifts' } });
      expect(behind.reason).toContain(`due since ${dayFromToday(-5)}`);
      expect(rule(result, 'giving.statement_emails_failed')).toMatchObject([{ severity: 'warning', count: 1, title: '1 giving statement was not emailed' }]);
    });

    it('leaves out rules whose scope the credential lacks, and names them as not checked', async () => {
      const result = await alertsOf(platformOnly);
      expect(result.alerts.every((alert: AlertView) => alert.module === 'platform')).toBe(true);
      const skipped = result.notChecked.map((n: { ruleId: string }) => n.ruleId);
      for (const id of ['people.welfare_due', 'people.follow_ups_overdue', 'giving.batches_left_open', 'giving.recurring_gifts_behind']) expect(skipped).toContain(id);
      expect(result.notChecked).toContainEqual({ ruleId: 'giving.batches_left_open', requiredScope: 'giving:read' });
      expect(result.rulesChecked + result.notChecked.length).toBe(registeredAlertRules(MODULES).length);
    });
  });

  it('never counts another organisation\'s records', async () => {
    const otherClient = await harness.mcpClient(other.apiKey);
    try {
      const result = await alertsOf(otherClient);
      expect(result.alerts.map((a: AlertView) => [a.ruleId, a.count])).toEqual([['platform.failed_sends', 1]]);
    } finally {
      await otherClient.close();
    }
  });

  it('refuses unknown arguments', async () => {
    for (const args of [{ minimumSeverity: 'meh' }, { colour: 'red' }]) {
      expect((await harness.invoke(org.apiKey, 'platform_proactive_alerts', args)).body.error?.code).toBe('validation_failed');
    }
  });
});
