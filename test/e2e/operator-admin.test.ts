import { APP_ROLE, withTransaction } from '../../db/pool';
import { createOperatorKey, grantPlatformAdmin, revokePlatformAdmin } from '../../kernel/operators';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * The installation operator's pair, platform_admin_invoke_api_read/_write: only a key the admin CLI
 * marks `operator`, held by a platform admin, reaches the operator routes; an organisation's owner
 * (every scope) cannot, and cannot even see them. What an operator changes in an organisation is
 * written to that organisation's own audit trail, and revoking the role ends it at once.
 */
describe('operator admin routes', () => {
  let harness: Harness;
  let home: TestOrg;
  let church: TestOrg;
  let operatorEmail: string;

  beforeAll(async () => {
    harness = await Harness.start();
    home = await harness.createOrg({ name: 'Hosting Ltd' });
    church = await harness.createOrg({ name: 'St Operator Test' });
    operatorEmail = `owner-${home.orgId}@test.local`;
  });

  afterAll(async () => {
    await harness?.close();
  });

  const read = (apiKey: string, path: string, query?: Record<string, string>) =>
    harness.invoke(apiKey, 'platform_admin_invoke_api_read', { method: 'GET', path, ...(query ? { query } : {}) });

  it('is refused to an owner holding every scope, who cannot reach the routes through any other bridge either', async () => {
    const refused = await read(church.apiKey, '/api/platform/admin/organisations');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });
    const viaDashboard = await harness.invoke(church.apiKey, 'platform_invoke_dashboard_api_read', { method: 'GET', path: '/api/platform/admin/organisations' });
    expect(viaDashboard.body.ok).toBe(false);
    const search = await harness.call(church.apiKey, 'platform_search_tools', { query: 'operator admin organisations across the installation' });
    expect(JSON.stringify(search)).not.toContain('platform_admin_invoke_api');
    // Nobody becomes an operator's key holder without the role.
    await expect(withTransaction(harness.pool, (db) => createOperatorKey(db, { email: operatorEmail, orgId: home.orgId }))).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('an operator lists organisations and users, reads support, and sets an allowance the church sees in its own audit trail', async () => {
    await withTransaction(harness.pool, (db) => grantPlatformAdmin(db, operatorEmail, 'test'));
    const { apiKey } = await withTransaction(harness.pool, (db) => createOperatorKey(db, { email: operatorEmail, orgId: home.orgId }));

    const listed = await read(apiKey, '/api/platform/admin/organisations', { search: 'operator test' });
    expect(listed.body).toMatchObject({ ok: true });
    const organisations = (listed.body as any).result.result.organisations;
    expect(organisations.map((o: any) => o.id)).toEqual([church.orgId]);
    expect(organisations[0]).toMatchObject({ name: 'St Operator Test', members: 1 });

    const users = (await read(apiKey, '/api/platform/admin/users', { email: `owner-${church.orgId}` })).body as any;
    expect(users.result.result.users).toEqual([expect.objectContaining({ platformAdmin: false, memberships: [{ orgId: church.orgId, orgName: 'St Operator Test', role: 'owner' }] })]);

    const support = (await read(apiKey, `/api/platform/admin/organisations/${church.orgId}/support`)).body as any;
    expect(support.result.result.support).toMatchObject({ organisation: { id: church.orgId }, owners: [{ email: `owner-${church.orgId}@test.local` }] });
    expect(support.result.result.support.allowances.map((a: any) => a.feature)).toContain('contacts');

    const set = await harness.invoke(apiKey, 'platform_admin_invoke_api_write', {
      method: 'PUT', path: `/api/platform/admin/organisations/${church.orgId}/allowances/contacts`, body: { monthlyLimit: 7 }, actionSummary: 'Pilot allowance for St Operator Test',
    });
    expect((set.body as any).result.result.allowance).toMatchObject({ feature: 'contacts', override: 7, previousOverride: null, effectiveLimit: 7 });
    const usage = await harness.call(church.apiKey, 'platform_usage', {});
    expect(JSON.stringify(usage)).toMatch(/"feature":"contacts"[^}]*"limit":7/);

    // The church's own trail says an operator changed it; the operator's organisation keeps the call.
    const churchTrail = await harness.call(church.apiKey, 'audit_list_events', { actionPrefix: 'platform.allowance_override' });
    expect(churchTrail.events).toEqual([expect.objectContaining({ action: 'platform.allowance_override.set', target: { type: 'allowance', id: 'contacts' } })]);
    const homeTrail = await harness.call(home.apiKey, 'audit_list_events', { actionPrefix: 'platform' });
    expect(homeTrail.events.filter((e: any) => e.tool === 'platform_admin_invoke_api_write' && e.outcome === 'success')).toHaveLength(1);

    // Clear errors, nothing changed.
    const unknownFeature = await harness.invoke(apiKey, 'platform_admin_invoke_api_write', {
      method: 'PUT', path: `/api/platform/admin/organisations/${church.orgId}/allowances/not_a_feature`, body: { monthlyLimit: 1 }, actionSummary: 'Bad feature',
    });
    expect(unknownFeature.body).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    const unknownOrg = await read(apiKey, '/api/platform/admin/organisations/00000000-0000-4000-8000-000000000000/support');
    expect(unknownOrg.body).toMatchObject({ ok: false, error: { code: 'not_found' } });

    // Revoking the role ends it on the key at once.
    await withTransaction(harness.pool, (db) => revokePlatformAdmin(db, operatorEmail));
    expect((await read(apiKey, '/api/platform/admin/organisations')).body).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });
  });

  it('the application role can neither read nor grant the platform-admin role, nor call the functions for someone who is not one', async () => {
    const asApp = (sql: string, values: unknown[] = []) => withTransaction(harness.pool, async (db) => {
      await db.query(`SET LOCAL ROLE ${APP_ROLE}`);
      await db.query("SELECT set_config('steward.org_id', $1, true)", [church.orgId]);
      return db.query(sql, values);
    });
    await expect(asApp('SELECT * FROM platform_admins')).rejects.toMatchObject({ code: '42501' });
    await expect(asApp('INSERT INTO platform_admins (user_id, granted_by) VALUES ($1, $2)', [church.ownerUserId, 'self'])).rejects.toMatchObject({ code: '42501' });
    await expect(asApp('SELECT * FROM steward_operator_organisations($1, NULL, 10)', [church.ownerUserId])).rejects.toMatchObject({ code: '42501' });
  });
});
