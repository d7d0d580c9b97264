import { allRoutes, allTools } from '../../modules/catalogue';
import { createSession } from '../../kernel/oauth/sessions';
import { SESSION_COOKIE } from '../../api/oauth/session-cookie';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * The dashboard API: routes declared beside each module's tools, reached through the invoke
 * bridge tools (MCP and the function-calling bridge), POST /api/agent/invoke-dashboard and their
 * own paths, described by /api/openapi.json. Every way in is the same durable tool call.
 */
describe('dashboard API routes and invoke bridges', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
    other = await harness.createOrg({ name: 'Other Church' });
  });
  afterAll(async () => harness?.close());

  const http = async (apiKey: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${harness.url}${path}`, {
      method,
      headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: await response.json() as any };
  };

  it('every module with routes has its invoke pair, and the platform pair reaches every route', () => {
    const names = new Set(allTools().map((tool) => tool.name));
    const modulesWithRoutes = [...new Set(allRoutes().map((route) => route.module))];
    expect(modulesWithRoutes).toContain('people');
    for (const module of modulesWithRoutes.filter((name) => name !== 'platform')) {
      expect(names.has(`${module}_invoke_api_read`)).toBe(true);
      expect(names.has(`${module}_invoke_api_write`)).toBe(true);
    }
    expect(names.has('platform_invoke_dashboard_api_read')).toBe(true);
    expect(names.has('platform_invoke_dashboard_api_write')).toBe(true);
  });

  it('reads a route through the module bridge over MCP and over the function-calling bridge', async () => {
    await harness.call(org.apiKey, 'people_create_crm_tag', { name: 'Choir' });
    await harness.call(other.apiKey, 'people_create_crm_tag', { name: 'Elsewhere' });
    const client = await harness.mcpClient(org.apiKey);
    try {
      const result = await client.callTool({ name: 'people_invoke_api_read', arguments: { path: '/api/people/tags' } });
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as { route: string; result: { tags: Array<{ name: string }> } };
      expect(content.route).toBe('GET /api/people/tags');
      expect(content.result.tags.map((tag) => tag.name)).toEqual(['Choir']);
    } finally {
      await client.close();
    }
    const viaPlatform = await harness.call(org.apiKey, 'platform_invoke_dashboard_api_read', { path: '/api/people/tags' });
    expect(viaPlatform.result.tags.map((tag: { name: string }) => tag.name)).toEqual(['Choir']);
  });

  it('a write a curated tool covers answers 405 use_workflow_tool naming the tool, and writes nothing', async () => {
    const refused = await harness.invoke(org.apiKey, 'people_invoke_api_write', {
      method: 'POST', path: '/api/people/tags', body: { name: 'Bypass' }, actionSummary: 'Create a tag',
    });
    expect(refused.status).toBe(405);
    expect(refused.body.error?.code).toBe('use_workflow_tool');
    expect(refused.body.error?.details?.tool).toBe('people_create_crm_tag');
    expect(refused.body.error?.message).toContain('Nothing is waiting for review');
    const tags = await harness.call(org.apiKey, 'people_list_tags', {});
    expect(tags.tags.map((tag: { name: string }) => tag.name)).not.toContain('Bypass');
  });

  it('a long-tail write runs through the write bridge; the read bridge takes only GET; actionSummary is required', async () => {
    const category = await harness.call(org.apiKey, 'people_create_tag_category', { name: 'Ministries' });
    const categoryId = category.category?.id ?? category.id;
    await harness.call(org.apiKey, 'people_create_crm_tag', { name: 'Band', categoryId });

    const noSummary = await harness.invoke(org.apiKey, 'people_invoke_api_write', { method: 'DELETE', path: `/api/people/tag-categories/${categoryId}` });
    expect(noSummary.body.error?.code).toBe('validation_failed');
    const readPost = await harness.invoke(org.apiKey, 'people_invoke_api_read', { method: 'POST', path: '/api/people/tags' });
    expect(readPost.body.error?.code).toBe('validation_failed');
    const wrongMethod = await harness.invoke(org.apiKey, 'people_invoke_api_write', { method: 'PUT', path: '/api/people/tags', body: {}, actionSummary: 'x' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error?.code).toBe('method_not_allowed');

    const foreign = await harness.invoke(other.apiKey, 'people_invoke_api_write', {
      method: 'DELETE', path: `/api/people/tag-categories/${categoryId}`, actionSummary: 'Remove the category',
    });
    expect(foreign.body.error?.code).toBe('not_found');

    const deleted = await harness.call(org.apiKey, 'people_invoke_api_write', {
      method: 'DELETE', path: `/api/people/tag-categories/${categoryId}`, actionSummary: 'Remove the Ministries category',
    });
    expect(deleted).toEqual({ route: 'DELETE /api/people/tag-categories/{categoryId}', result: { id: categoryId, uncategorisedTags: 1 } });
    const band = (await harness.call(org.apiKey, 'people_list_tags', {})).tags.find((tag: { name: string }) => tag.name === 'Band');
    expect(band.categoryId).toBeNull();
  });

  it('long-tail people routes: delete a segment, follow-up tasks with typed query values, a household', async () => {
    const created = await harness.call(org.apiKey, 'people_create_segment_from_template', { templateId: 'members', name: 'Members to delete' });
    const segmentId = created.segment.id;
    const listed = await harness.call(org.apiKey, 'people_invoke_api_read', { path: '/api/people/segments' });
    expect(listed.result.segments.map((segment: { id: string }) => segment.id)).toContain(segmentId);
    const foreign = await harness.invoke(other.apiKey, 'people_invoke_api_write', { method: 'DELETE', path: `/api/people/segments/${segmentId}`, actionSummary: 'x' });
    expect(foreign.body.error?.code).toBe('not_found');
    const deleted = await harness.call(org.apiKey, 'people_invoke_api_write', { method: 'DELETE', path: `/api/people/segments/${segmentId}`, actionSummary: 'Delete the test segment' });
    expect(deleted.result).toMatchObject({ id: segmentId, name: 'Members to delete' });
    const after = await harness.call(org.apiKey, 'people_list_segments_api', {});
    expect(after.segments.map((segment: { id: string }) => segment.id)).not.toContain(segmentId);

    const tasks = await harness.call(org.apiKey, 'people_invoke_api_read', { path: '/api/people/follow-up-tasks', query: { status: 'all', limit: '5' } });
    expect(Array.isArray(tasks.result.tasks)).toBe(true);
    const badLimit = await harness.invoke(org.apiKey, 'people_invoke_api_read', { path: '/api/people/follow-up-tasks', query: { limit: '5000' } });
    expect(badLimit.body.error?.issues?.[0]?.path).toBe('query.limit');

    const anna = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Anna', lastName: 'Routes' })).contact.id;
    const household = await harness.call(org.apiKey, 'people_invoke_api_read', { path: `/api/people/contacts/${anna}/household` });
    expect(household.route).toBe('GET /api/people/contacts/{contactId}/household');
    const foreignHousehold = await harness.invoke(other.apiKey, 'people_invoke_api_read', { path: `/api/people/contacts/${anna}/household` });
    expect(foreignHousehold.body.error?.code).toBe('not_found');
  });

  it('bad paths, parameters and scopes give clear errors', async () => {
    const unknown = await harness.invoke(org.apiKey, 'people_invoke_api_read', { path: '/api/people/nothing-here' });
    expect(unknown.body.error?.code).toBe('not_found');
    expect(unknown.body.error?.hint).toContain('platform_search_dashboard_api');
    const otherModule = await harness.invoke(org.apiKey, 'people_invoke_api_read', { path: '/api/giving/funds' });
    expect(otherModule.body.error?.code).toBe('not_found');
    const badParam = await harness.invoke(org.apiKey, 'people_invoke_api_read', { path: '/api/people/groups/not-a-uuid/members' });
    expect(badParam.body.error?.code).toBe('validation_failed');
    expect(badParam.body.error?.issues?.[0]?.path).toBe('params.groupId');
    const badQuery = await harness.invoke(org.apiKey, 'people_invoke_api_read', { path: '/api/people/groups', query: { status: 'sleeping' } });
    expect(badQuery.body.error?.issues?.[0]?.path).toBe('query.status');

    // The platform pair needs platform scopes, and the route's own scope as well.
    const platformOnly = await harness.createKey(org.orgId, ['platform:read', 'platform:write']);
    const noPeople = await harness.invoke(platformOnly.apiKey, 'platform_invoke_dashboard_api_read', { path: '/api/people/tags' });
    expect(noPeople.status).toBe(403);
    expect(noPeople.body.error?.code).toBe('insufficient_scope');
    expect(noPeople.body.error?.details?.requiredScope).toBe('people:read');
  });

  it('serves each route at its own path and through POST /api/agent/invoke-dashboard, idempotently', async () => {
    const anonymous = await http(null, 'GET', '/api/people/tags');
    expect(anonymous.status).toBe(401);
    const listed = await http(org.apiKey, 'GET', '/api/people/groups');
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body.groups)).toBe(true);

    const group = (await harness.call(org.apiKey, 'people_create_crm_group', { name: 'Welcome Team' })).group;
    const members = await http(org.apiKey, 'GET', `/api/people/groups/${group.id}/members`);
    expect(members.status).toBe(200);
    expect(members.body.group.name).toBe('Welcome Team');
    const foreignMembers = await http(other.apiKey, 'GET', `/api/people/groups/${group.id}/members`);
    expect(foreignMembers.status).toBe(404);

    const patch = await http(org.apiKey, 'PATCH', `/api/people/groups/${group.id}`, { name: 'Hosts' });
    expect(patch.status).toBe(405);
    expect(patch.body.error?.code).toBe('use_workflow_tool');
    const notAllowed = await http(org.apiKey, 'DELETE', '/api/people/groups');
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.get('allow')).toBe('GET');

    const category = await harness.call(org.apiKey, 'people_create_tag_category', { name: 'Seasons' });
    const categoryId = category.category?.id ?? category.id;
    const key = `delete-seasons-${Date.now()}`;
    const first = await http(org.apiKey, 'POST', '/api/agent/invoke-dashboard', {
      method: 'DELETE', path: `/api/people/tag-categories/${categoryId}`, actionSummary: 'Remove Seasons',
    }, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(first.body.result.result).toEqual({ id: categoryId, uncategorisedTags: 0 });
    // The same key replays the first outcome instead of deleting again (which would now be not_found).
    const replay = await http(org.apiKey, 'POST', '/api/agent/invoke-dashboard', {
      method: 'DELETE', path: `/api/people/tag-categories/${categoryId}`, actionSummary: 'Remove Seasons',
    }, { 'idempotency-key': key });
    expect(replay.body).toEqual(first.body);
    const again = await http(org.apiKey, 'POST', '/api/agent/invoke-dashboard', {
      method: 'DELETE', path: `/api/people/tag-categories/${categoryId}`, actionSummary: 'Remove Seasons',
    });
    expect(again.status).toBe(404);

    const missing = await http(org.apiKey, 'GET', '/api/people/not-a-route');
    expect(missing.status).toBe(404);
  });

  it('the settings pair reaches only settings routes; team and keys are for owners and admins', async () => {
    const settings = await harness.call(org.apiKey, 'platform_settings_invoke_api_read', { path: '/api/platform/settings' });
    expect(settings).toEqual({ route: 'GET /api/platform/settings', result: { settings: expect.objectContaining({ id: org.orgId, dateFormat: 'DMY' }) } });
    const notSettings = await harness.invoke(org.apiKey, 'platform_settings_invoke_api_read', { path: '/api/people/tags' });
    expect(notSettings.body.error?.code).toBe('not_found');

    const renamed = await harness.call(org.apiKey, 'platform_settings_invoke_api_write', {
      method: 'PATCH', path: '/api/platform/settings', body: { name: 'St Aidan\'s' }, actionSummary: 'Rename the church',
    });
    expect(renamed.result.settings.name).toBe('St Aidan\'s');

    const staff = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'staff');
    const staffTeam = await harness.invoke(staff.apiKey, 'platform_settings_invoke_api_read', { path: '/api/platform/team' });
    expect(staffTeam.status).toBe(403);
    expect(staffTeam.body.error?.code).toBe('forbidden');
    const staffRename = await harness.invoke(staff.apiKey, 'platform_settings_invoke_api_write', { method: 'PATCH', path: '/api/platform/settings', body: { name: 'Mine' }, actionSummary: 'x' });
    expect(staffRename.body.error?.code).toBe('forbidden');

    const team = await harness.call(org.apiKey, 'platform_settings_invoke_api_read', { path: '/api/platform/team' });
    expect(team.result.members.map((member: { role: string }) => member.role)).toContain('owner');
    const keys = await harness.call(org.apiKey, 'platform_settings_invoke_api_read', { path: '/api/platform/api-keys' });
    const staffKey = keys.result.keys.find((key: { id: string }) => key.id === staff.keyId);
    expect(staffKey).toMatchObject({ revoked: false, scopes: ['platform:read', 'platform:write'] });
    expect(JSON.stringify(keys.result)).not.toContain(staff.apiKey);

    const revoked = await harness.call(org.apiKey, 'platform_settings_invoke_api_write', { method: 'DELETE', path: `/api/platform/api-keys/${staff.keyId}`, actionSummary: 'Revoke the staff key' });
    expect(revoked.result).toEqual({ id: staff.keyId, revoked: true });
    expect((await harness.invoke(staff.apiKey, 'platform_overview', {})).status).toBe(401);
    const foreignKey = await harness.invoke(other.apiKey, 'platform_settings_invoke_api_write', { method: 'DELETE', path: `/api/platform/api-keys/${staff.keyId}`, actionSummary: 'x' });
    expect(foreignKey.body.error?.code).toBe('not_found');

    const agent = await harness.invoke(org.apiKey, 'platform_settings_invoke_api_write', { method: 'PATCH', path: '/api/platform/agents/people', body: { autonomy: 'off' }, actionSummary: 'x' });
    expect(agent.status).toBe(405);
    expect(agent.body.error?.details?.tool).toBe('platform_set_agent_autonomy');
  });

  it('the dashboard reaches routes with its browser session; writes only from its own pages', async () => {
    const staff = await harness.createMember(org.orgId, { role: 'staff' });
    const session = await createSession(harness.pool, staff.userId);
    const cookie = { cookie: `${SESSION_COOKIE}=${session.token}` };
    await harness.call(org.apiKey, 'people_create_crm_tag', { name: 'Session Tag' });
    const tags = await http(null, 'GET', '/api/people/tags', undefined, cookie);
    expect(tags.status).toBe(200);
    expect(tags.body.tags.map((tag: { name: string }) => tag.name)).toContain('Session Tag');

    const category = await harness.call(org.apiKey, 'people_create_tag_category', { name: 'Dashboard Category' });
    const categoryId = category.category?.id ?? category.id;
    const path = `/api/people/tag-categories/${categoryId}`;
    const crossSite = await http(null, 'DELETE', path, undefined, { ...cookie, origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const fetchedCrossSite = await http(null, 'DELETE', path, undefined, { ...cookie, 'sec-fetch-site': 'cross-site' });
    expect(fetchedCrossSite.status).toBe(403);
    const sameSite = await http(null, 'DELETE', path, undefined, { ...cookie, origin: new URL(harness.url).origin });
    expect(sameSite.status).toBe(200);
    expect(sameSite.body).toEqual({ id: categoryId, uncategorisedTags: 0 });

    // Another organisation's id in X-Steward-Org is refused, and an ended session is told to sign in.
    const elsewhere = await http(null, 'GET', '/api/people/tags', undefined, { ...cookie, 'x-steward-org': other.orgId });
    expect(elsewhere.status).toBe(403);
    const ended = await http(null, 'GET', '/api/people/tags', undefined, { cookie: `${SESSION_COOKIE}=${'x'.repeat(43)}` });
    expect(ended.status).toBe(401);
  });

  it('finds routes by what they do, and counts them from the catalogue', async () => {
    const found = await harness.call(org.apiKey, 'platform_search_dashboard_api', { query: 'members of a ministry team' });
    // The team list and its members are both fair answers; the members route must be among the first two.
    const members = found.routes.slice(0, 2).find((route: { path: string }) => route.path === '/api/people/groups/{groupId}/members');
    expect(members).toMatchObject({ method: 'GET', invokeTool: 'people_invoke_api_read', scope: 'people:read' });
    const catalogue = await harness.call(org.apiKey, 'platform_route_catalog', { module: 'people' });
    expect(catalogue.total).toBe(allRoutes().length);
    const people = catalogue.modules.find((entry: { module: string }) => entry.module === 'people');
    expect(people).toEqual({ module: 'people', routes: allRoutes().filter((route) => route.module === 'people').length, readTool: 'people_invoke_api_read', writeTool: 'people_invoke_api_write' });
    expect(catalogue.routes.find((route: { path: string; method: string }) => route.method === 'POST' && route.path === '/api/people/tags').curatedTool).toBe('people_create_crm_tag');

    const readOnly = await harness.createKey(org.orgId, ['platform:read']);
    const none = await harness.call(readOnly.apiKey, 'platform_search_dashboard_api', { query: 'tags' });
    expect(none.routes).toEqual([]);
  });

  it('publishes a valid OpenAPI 3.1 document with every route', async () => {
    const document = await http(null, 'GET', '/api/openapi.json');
    expect(document.status).toBe(200);
    // The validator ships only as an ES module (Jest compiles it; see jest.config.js).
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const verdict = await validator.validate(document.body);
    expect(verdict.errors ?? []).toEqual([]);
    expect(verdict.valid).toBe(true);
    // The validator does refuse a broken document (a parameter that does not say where it goes).
    const broken = structuredClone(document.body);
    delete broken.paths['/api/people/groups/{groupId}/members'].get.parameters[0].in;
    expect((await new Validator().validate(broken)).valid).toBe(false);
    expect(document.body.openapi).toBe('3.1.0');
    const operations = Object.values(document.body.paths as Record<string, Record<string, unknown>>).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
    expect(operations).toBe(allRoutes().length);
    expect(document.body.paths['/api/people/groups/{groupId}/members'].get.parameters[0]).toMatchObject({ name: 'groupId', in: 'path', required: true });
    // It says where the API is, what a key looks like, and the refusals a route may answer.
    expect(document.body.servers).toEqual([{ url: harness.url, description: 'This Steward server' }]);
    expect(document.body.components.securitySchemes.bearer.description).toContain('sk_live_');
    const responses = document.body.paths['/api/people/groups/{groupId}/members'].get.responses;
    for (const status of ['400', '401', '403', '404', '409']) expect(responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(responses['403'].description).toContain('insufficient_scope');
  });
});
