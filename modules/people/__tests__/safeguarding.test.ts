import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { moduleSchedule, syncAllSchedules } from '../../../activities/schedules';
import people from '..';
import { certificateHashOf, hasCurrentSafeguardingCheck } from '../pastoral/care/safeguarding';

/** Safeguarding checks and policies: people:safeguarding only, certificate numbers never stored, status from dates by a daily schedule. */
describe('safeguarding checks and policies', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let contactId: string;

  beforeAll(async () => {
    // Its own stack: it syncs the schedules of every organisation on the task queue.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Grace Church' });
    other = await harness.createOrg({ name: 'Other Church' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=people');
    contactId = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Sarah', lastName: 'Leader', email: 'sarah@example.org' })).contact.id;
  });

  afterAll(async () => {
    await mcp?.close();
    for await (const schedule of harness.temporal.schedule.list()) {
      if (schedule.scheduleId.includes(harness.taskQueue) || schedule.scheduleId.includes(org.orgId)) {
        await harness.temporal.schedule.getHandle(schedule.scheduleId).delete().catch(() => undefined);
      }
    }
    await harness?.close();
  });

  const create = (args: Record<string, unknown>) => mcpCall(mcp, 'people_create_safeguarding_check', { contactId, checkType: 'Enhanced DBS', ...args });

  it('keeps only a keyed hash and the last four of a certificate number, and finds the check by the number again', async () => {
    const { check } = await create({ certificateNumber: '0012 3456 7890', issuedOn: dayFromToday(-10), expiresOn: dayFromToday(700) });
    expect(check).toMatchObject({ contactId, contactName: 'Sarah Leader', certificateLast4: '7890', status: 'completed' });
    expect(JSON.stringify(check)).not.toContain('001234567890');
    const { rows } = await harness.pool.query('SELECT row_to_json(s)::text AS row, certificate_hash FROM safeguarding_checks s WHERE id = $1', [check.checkId]);
    expect(rows[0].row).not.toContain('001234567890');
    expect(rows[0].row).not.toContain('0012 3456 7890');
    expect(rows[0].certificate_hash).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const found = await mcpCall(mcp, 'people_list_safeguarding_checks', { certificateNumber: '001-234-567-890' });
    expect(found.checks.map((c: any) => c.checkId)).toEqual([check.checkId]);
    expect((await mcpCall(mcp, 'people_list_safeguarding_checks', { certificateNumber: '001234567891' })).checks).toEqual([]);
    // The stored hash is the keyed one, and the same number hashes differently in another organisation.
    expect(rows[0].certificate_hash).toBe(certificateHashOf(org.orgId, '001234567890'));
    expect(certificateHashOf(other.orgId, '001234567890')).not.toBe(rows[0].certificate_hash);
  });

  it('computes pending → completed → expiring → overdue from the dates, and the check-in gate reads the dates', async () => {
    const pending = (await create({ checkType: 'Basic DBS' })).check;
    const expiring = (await create({ checkType: 'Training', issuedOn: dayFromToday(-300), expiresOn: dayFromToday(30) })).check;
    const overdue = (await create({ checkType: 'First aid', issuedOn: dayFromToday(-800), expiresOn: dayFromToday(-1) })).check;
    expect([pending.status, expiring.status, overdue.status]).toEqual(['pending', 'expiring', 'overdue']);

    const issued = await mcpCall(mcp, 'people_set_safeguarding_check', { checkId: pending.checkId, issuedOn: dayFromToday(0), expiresOn: dayFromToday(1000) });
    expect(issued).toMatchObject({ changed: ['issuedOn', 'expiresOn'], check: { status: 'completed' } });
    const bad = await mcpRefusal(mcp, 'people_set_safeguarding_check', { checkId: pending.checkId, expiresOn: dayFromToday(-5) });
    expect(bad.code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'people_create_safeguarding_check', { contactId, checkType: 'DBS', issuedOn: '2026-02-30' })).code).toBe('validation_failed');

    expect(await hasCurrentSafeguardingCheck(harness.pool, org.orgId, contactId, dayFromToday(0), 'Training')).toBe(true);
    expect(await hasCurrentSafeguardingCheck(harness.pool, org.orgId, contactId, dayFromToday(31), 'Training')).toBe(false);
    expect(await hasCurrentSafeguardingCheck(harness.pool, org.orgId, contactId, dayFromToday(0), 'First aid')).toBe(false);
    expect(await hasCurrentSafeguardingCheck(harness.pool, other.orgId, contactId, dayFromToday(0))).toBe(false);

    const summary = await mcpCall(mcp, 'people_get_safeguarding_summary', {});
    const { rows } = await harness.pool.query('SELECT status, count(*)::int AS n FROM safeguarding_checks WHERE org_id = $1 GROUP BY status', [org.orgId]);
    const expected = { pending: 0, completed: 0, expiring: 0, overdue: 0, ...Object.fromEntries(rows.map((r: any) => [r.status, r.n])) };
    expect(summary.checksByStatus).toEqual(expected);
    expect(summary.needingAttention.map((c: any) => c.checkId).sort()).toEqual([expiring.checkId, overdue.checkId].sort());
    expect(summary.peopleWithCurrentCheck).toBe(1);
  });

  it('the daily schedule moves checks along as their dates pass', async () => {
    const { check } = await create({ checkType: 'Youth work DBS', issuedOn: dayFromToday(-100), expiresOn: dayFromToday(300) });
    expect(check.status).toBe('completed');
    // Time passes: the dates are now 10 days from expiry, and another check expired yesterday; statuses are stale until the run.
    await harness.pool.query('UPDATE safeguarding_checks SET expires_on = CURRENT_DATE + 10 WHERE id = $1', [check.checkId]);
    const lapsed = (await create({ checkType: 'Old DBS', issuedOn: dayFromToday(-400), expiresOn: dayFromToday(200) })).check;
    await harness.pool.query('UPDATE safeguarding_checks SET expires_on = CURRENT_DATE - 1 WHERE id = $1', [lapsed.checkId]);

    await syncAllSchedules(harness.temporal, harness.pool, harness.taskQueue);
    const scheduleId = moduleSchedule(people.schedules!.find((schedule) => schedule.id === 'safeguarding-status')!, harness.taskQueue).scheduleId;
    const described = await harness.temporal.schedule.getHandle(scheduleId).describe();
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'safeguardingStatusWorkflow' });
    expect(described.spec.intervals?.[0].every).toBe(24 * 3_600_000);

    await harness.temporal.schedule.getHandle(scheduleId).trigger('ALLOW_ALL');
    const statusOf = async (id: string) => (await harness.pool.query('SELECT status FROM safeguarding_checks WHERE id = $1', [id])).rows[0].status;
    for (let i = 0; i < 100 && (await statusOf(lapsed.checkId)) !== 'overdue'; i++) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statusOf(check.checkId)).toBe('expiring');
    expect(await statusOf(lapsed.checkId)).toBe('overdue');
    // Each move is in the audit trail with the status it left, the system as actor, kept as a pastoral record.
    const trail = await harness.pool.query(`SELECT target_id, actor_kind, category, changes->'fields'->'status' AS status FROM audit_events
      WHERE org_id = $1 AND action = 'people.safeguarding_check.update' AND actor_kind = 'system' ORDER BY seq`, [org.orgId]);
    expect(trail.rows).toEqual(expect.arrayContaining([
      { target_id: check.checkId, actor_kind: 'system', category: 'pastoral', status: { before: 'completed', after: 'expiring' } },
      { target_id: lapsed.checkId, actor_kind: 'system', category: 'pastoral', status: { before: 'completed', after: 'overdue' } },
    ]));

    // The expiring/overdue alert rule sees them, for a safeguarding holder only.
    const alerts = await harness.call(org.apiKey, 'platform_proactive_alerts', {});
    const rule = alerts.alerts.filter((a: any) => a.ruleId === 'people.safeguarding_checks_expiring');
    const { rows } = await harness.pool.query("SELECT status, count(*)::int AS n FROM safeguarding_checks WHERE org_id = $1 AND status IN ('expiring', 'overdue') GROUP BY status", [org.orgId]);
    expect(rule.map((a: any) => a.count).sort()).toEqual(rows.map((r: any) => r.n).sort());
    const staff = await harness.createKey(org.orgId, ['platform:read', 'people:read'], 'staff');
    const staffAlerts = await harness.call(staff.apiKey, 'platform_proactive_alerts', {});
    expect(staffAlerts.alerts.some((a: any) => a.ruleId === 'people.safeguarding_checks_expiring')).toBe(false);
    expect(staffAlerts.notChecked).toContainEqual({ ruleId: 'people.safeguarding_checks_expiring', requiredScope: 'people:safeguarding' });
  });

  it('policies: title unique, version and review date, owner from the team', async () => {
    const owner = (await harness.pool.query('SELECT user_id FROM memberships WHERE org_id = $1 LIMIT 1', [org.orgId])).rows[0].user_id;
    const { policy } = await mcpCall(mcp, 'people_create_safeguarding_policy', { title: 'Safeguarding policy', version: '2026.1', reviewOn: dayFromToday(10), ownerUserId: owner });
    expect(policy).toMatchObject({ version: '2026.1', reviewStatus: 'review_due', ownerUserId: owner, ownerEmail: expect.stringContaining('@') });
    expect((await mcpRefusal(mcp, 'people_create_safeguarding_policy', { title: 'SAFEGUARDING POLICY', version: '1' })).code).toBe('conflict');
    const foreignOwner = (await harness.pool.query('SELECT user_id FROM memberships WHERE org_id = $1 LIMIT 1', [other.orgId])).rows[0].user_id;
    expect((await mcpRefusal(mcp, 'people_create_safeguarding_policy', { title: 'Another', version: '1', ownerUserId: foreignOwner })).code).toBe('not_found');

    const updated = await mcpCall(mcp, 'people_set_safeguarding_policy', { policyId: policy.policyId, version: '2026.2', reviewOn: dayFromToday(365) });
    expect(updated).toMatchObject({ changed: ['version', 'reviewOn'], policy: { version: '2026.2', reviewStatus: 'current' } });
    expect((await mcpCall(mcp, 'people_list_safeguarding_policies', {})).policies.map((p: any) => p.policyId)).toEqual([policy.policyId]);
    const removed = await mcpCall(mcp, 'people_remove_safeguarding_policy', { policyId: policy.policyId });
    expect(removed.removed).toBe(true);
    expect((await mcpCall(mcp, 'people_list_safeguarding_policies', {})).policies).toEqual([]);
  });

  it('refuses every safeguarding tool to a key without people:safeguarding, and another organisation\'s ids behave as missing', async () => {
    const { check } = await create({ checkType: 'Leak probe', certificateNumber: 'ABCD1234' });
    const { policy } = await mcpCall(mcp, 'people_create_safeguarding_policy', { title: 'Leak probe policy', version: '1' });
    const staff = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['people_create_safeguarding_check', { contactId, checkType: 'DBS' }],
      ['people_set_safeguarding_check', { checkId: check.checkId, notes: 'x' }],
      ['people_remove_safeguarding_check', { checkId: check.checkId }],
      ['people_list_safeguarding_checks', {}],
      ['people_get_safeguarding_summary', {}],
      ['people_create_safeguarding_policy', { title: 'X', version: '1' }],
      ['people_set_safeguarding_policy', { policyId: policy.policyId, version: '2' }],
      ['people_remove_safeguarding_policy', { policyId: policy.policyId }],
      ['people_list_safeguarding_policies', {}],
    ];
    for (const [tool, args] of calls) {
      const response = await harness.invoke(staff.apiKey, tool, args);
      expect([tool, response.status, response.body.error?.code]).toEqual([tool, 403, 'insufficient_scope']);
    }
    // Nothing changed.
    expect((await mcpCall(mcp, 'people_list_safeguarding_checks', { certificateNumber: 'ABCD1234' })).checks[0]).toMatchObject({ notes: null });
    // The pastoral dashboard shows no safeguarding figures without the scope.
    expect((await harness.call(staff.apiKey, 'people_get_pastoral_dashboard', {})).dashboard.safeguarding).toBeNull();
    expect((await harness.call(org.apiKey, 'people_get_pastoral_dashboard', {})).dashboard.safeguarding).not.toBeNull();

    for (const [tool, args] of calls.filter(([, a]) => 'checkId' in a || 'policyId' in a || 'contactId' in a)) {
      const response = await harness.invoke(other.apiKey, tool, args);
      expect([tool, response.body.error?.code]).toEqual([tool, 'not_found']);
    }
    expect((await harness.call(other.apiKey, 'people_list_safeguarding_checks', {})).checks).toEqual([]);
    expect((await mcpCall(mcp, 'people_remove_safeguarding_check', { checkId: check.checkId })).removed).toBe(true);
    expect((await mcpRefusal(mcp, 'people_remove_safeguarding_check', { checkId: check.checkId })).code).toBe('not_found');
  });
});
