import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * Data quality's dashboard routes against the real server, worker, Postgres and Temporal, through
 * people_invoke_api_read/_write over MCP and at their own paths over HTTP: each read answers what
 * its tool answers (a job's progress, duplicates and pairs, dismissals, the review queue, a fix's
 * preview); each write names the curated tool that does it and changes nothing; another
 * organisation's ids are missing ones.
 */
describe('people data quality routes', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  const ids: Record<string, string> = {};
  let scanJobId: string;

  async function seed(target: TestOrg, key: string, fields: Record<string, unknown>): Promise<void> {
    const id = randomUUID();
    const columns = ['id', 'org_id', ...Object.keys(fields)];
    await harness.pool.query(`INSERT INTO contacts (${columns.join(', ')}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(', ')})`, [id, target.orgId, ...Object.values(fields)]);
    ids[key] = id;
  }

  const read = async (path: string, query?: Record<string, string>) => mcpCall(mcp, 'people_invoke_api_read', { path, ...(query ? { query } : {}) });
  const write = async (method: string, path: string, body: Record<string, unknown>) =>
    mcpRefusal(mcp, 'people_invoke_api_write', { method, path, body, actionSummary: 'Data quality through the route' });
  const http = async (apiKey: string, path: string) => {
    const response = await fetch(`${harness.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
    return { status: response.status, body: await response.json() as any };
  };
  const pairWith = (items: any[], contactId: string) => items.find((item: any) => item.contacts.some((c: any) => c.contactId === contactId));

  /** Follows a job through its route until it finishes, keeping every progress seen. */
  async function followJob(jobId: string): Promise<{ job: any; seen: any[] }> {
    const seen = [];
    for (let i = 0; i < 600; i++) {
      const routed = await read(`/api/people/data-quality/jobs/${jobId}`);
      expect(routed.route).toBe('GET /api/people/data-quality/jobs/{jobId}');
      seen.push(routed.result.job.progress);
      if (['completed', 'failed'].includes(routed.result.job.status)) return { job: routed.result.job, seen };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`job ${jobId} did not finish`);
  }

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Routed Data Chapel', country: 'GB' });
    other = await harness.createOrg({ name: 'Routed Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=people');
    await harness.pool.query(`INSERT INTO postcode_cache (postcode, result) VALUES
      ('SW1A 1AA', '{"postcode":"SW1A 1AA","city":"Westminster","county":"London","country":"England"}')
      ON CONFLICT (postcode) DO UPDATE SET result = EXCLUDED.result, fetched_at = now()`);
    const full = { status: 'subscribed', address_city: 'Leeds', address_county: 'West Yorkshire' };
    // An exact group (the same email once lower-cased), Mary in capitals with a postcode missing its town.
    await seed(org, 'mary', { first_name: 'MARY', last_name: 'JONES', email: 'Mary.Jones@example.org', address_postcode: 'sw1a1aa', status: 'subscribed', date_of_birth: '1960-03-03' });
    await seed(org, 'mary2', { ...full, first_name: 'Mary', last_name: 'Jones', email: 'mary.jones@example.org', address_postcode: 'LS1 1AA', date_of_birth: '1961-04-04' });
    // Two likely pairs: alike names with the same date of birth (and for the Jonathans the same postcode).
    await seed(org, 'jon1', { ...full, first_name: 'Jonathan', last_name: 'Smithson', email: 'jonathan@example.org', date_of_birth: '1980-01-01', address_postcode: 'LS6 2QE' });
    await seed(org, 'jon2', { ...full, first_name: 'Jonathon', last_name: 'Smithson', email: 'jon.s@example.org', date_of_birth: '1980-01-01', address_postcode: 'LS6 2QE' });
    await seed(org, 'kath1', { ...full, first_name: 'Katherine', last_name: 'Brown', email: 'kath@example.org', date_of_birth: '1975-05-05', address_postcode: 'LS2 2AA' });
    await seed(org, 'kath2', { ...full, first_name: 'Katharine', last_name: 'Brown', email: 'k.brown@example.org', date_of_birth: '1975-05-05', address_postcode: 'LS3 3AA' });
    // A phone number nobody can read: a review queue item.
    await seed(org, 'badPhone', { ...full, first_name: 'Bad', last_name: 'Phone', email: 'bad.phone@example.org', phone: 'ring the office', date_of_birth: '1990-01-01', address_postcode: 'LS4 4AA' });
    await seed(other, 'foreign', { first_name: 'Far', last_name: 'Away', email: 'far@example.org', phone: 'ask at the desk' });
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  it('a scan\'s progress, its duplicates, pairs and dashboard, each route answering what its tool answers', async () => {
    // Starting a scan through the write bridge names the tool that does it, and starts nothing.
    const refused = await write('POST', '/api/people/data-quality/scans', {});
    expect(refused).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'people_run_data_quality_scan' } });
    expect((await read('/api/people/data-quality/jobs')).result).toEqual({ total: 0, jobs: [] });

    const started = await mcpCall(mcp, 'people_run_data_quality_scan', {});
    scanJobId = started.job.id;
    const { job, seen } = await followJob(scanJobId);
    expect(job).toMatchObject({ id: scanJobId, kind: 'scan', status: 'completed', progress: { done: 7, total: 7, percent: 100 }, result: { contacts: 7 } });
    // Progress only ever moves forward.
    expect(seen.every((progress, i) => i === 0 || progress.done >= seen[i - 1].done)).toBe(true);
    expect(job).toEqual((await mcpCall(mcp, 'people_get_data_quality_job', { jobId: scanJobId })).job);
    const listed = await read('/api/people/data-quality/jobs', { kind: 'scan' });
    expect(listed.result).toEqual(await mcpCall(mcp, 'people_list_data_quality_jobs', { kind: 'scan' }));
    expect(listed.result.jobs.map((j: any) => j.id)).toEqual([scanJobId]);
    expect((await read('/api/people/data-quality/jobs', { status: 'failed' })).result).toEqual({ total: 0, jobs: [] });
    // The same job at its own path over HTTP.
    const direct = await http(org.apiKey, `/api/people/data-quality/jobs/${scanJobId}`);
    expect(direct.status).toBe(200);
    expect(direct.body.job).toMatchObject({ id: scanJobId, status: 'completed', progress: { done: 7, total: 7 } });

    const groups = await read('/api/people/data-quality/duplicates');
    expect(groups.route).toBe('GET /api/people/data-quality/duplicates');
    expect(groups.result).toEqual(await mcpCall(mcp, 'people_list_data_quality_duplicates', {}));
    expect(groups.result.items.map((g: any) => [g.kind, g.contacts.map((c: any) => c.contactId).sort()])).toEqual([['email', [ids.mary, ids.mary2].sort()]]);

    const pairs = await read('/api/people/data-quality/fuzzy-pairs', { minConfidence: '0', limit: '10' });
    expect(pairs.result).toEqual(await mcpCall(mcp, 'people_list_data_quality_fuzzy_pairs', { minConfidence: 0, limit: 10 }));
    expect(pairWith(pairs.result.items, ids.jon1).contacts.map((c: any) => c.contactId).sort()).toEqual([ids.jon1, ids.jon2].sort());
    expect(pairWith(pairs.result.items, ids.kath1).contacts.map((c: any) => c.contactId).sort()).toEqual([ids.kath1, ids.kath2].sort());

    const dashboard = await read('/api/people/data-quality/dashboard');
    expect(dashboard.result).toEqual(await mcpCall(mcp, 'people_fetch_data_quality_dashboard', {}));
    expect(dashboard.result.duplicates).toMatchObject({ exactGroups: 1, fuzzyPairs: pairs.result.total, dismissedPairs: 0 });
  });

  it('previews a fix through the route (the postcode lookup included), and applying it names the tool', async () => {
    const query = { contactIds: ids.mary! };
    const names = await read('/api/people/data-quality/fixes/name_case/preview', query);
    expect(names.result).toEqual(await mcpCall(mcp, 'people_preview_data_quality_fix', { fix: 'name_case', contactIds: [ids.mary] }));
    expect(names.result.rows).toEqual([{
      contactId: ids.mary, name: 'MARY JONES',
      changes: [{ field: 'firstName', before: 'MARY', after: 'Mary' }, { field: 'lastName', before: 'JONES', after: 'Jones' }],
    }]);
    // The postcode fix looks its towns up before the bridge's transaction, as the tool does.
    const postcodes = await read('/api/people/data-quality/fixes/uk_postcode/preview', query);
    expect(postcodes.result.rows[0].changes).toEqual(expect.arrayContaining([
      { field: 'addressPostcode', before: 'sw1a1aa', after: 'SW1A 1AA' }, { field: 'addressCity', before: null, after: 'Westminster' },
    ]));
    expect(postcodes.result.previewHash).toBe((await mcpCall(mcp, 'people_preview_data_quality_fix', { fix: 'uk_postcode', contactIds: [ids.mary] })).previewHash);
    const special = await read('/api/people/data-quality/special-fixes/split_full_name/preview');
    expect(special.result).toEqual(await mcpCall(mcp, 'people_preview_data_quality_special_fix', { fix: 'split_full_name' }));

    const apply = await write('POST', '/api/people/data-quality/fixes/name_case/apply', { previewHash: names.result.previewHash, contactIds: [ids.mary] });
    expect(apply).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'people_apply_data_quality_fix' } });
    expect(apply.hint).toBe('Call people_apply_data_quality_fix instead.');
    expect((await harness.pool.query('SELECT first_name FROM contacts WHERE id = $1', [ids.mary])).rows[0].first_name).toBe('MARY');
    expect((await read('/api/people/data-quality/jobs', { kind: 'apply_fix' })).result.total).toBe(0);

    // Bad values are refused, naming the part of the request.
    const badFix = await mcpRefusal(mcp, 'people_invoke_api_read', { path: '/api/people/data-quality/fixes/split_full_name/preview' });
    expect(badFix).toMatchObject({ code: 'validation_failed', issues: [expect.objectContaining({ path: 'params.fix' })] });
    const badIds = await mcpRefusal(mcp, 'people_invoke_api_read', { path: '/api/people/data-quality/fixes/name_case/preview', query: { contactIds: `${ids.mary},nope` } });
    expect(badIds.issues[0].path).toMatch(/^query\.contactIds/);
  });

  it('dismisses a pair and restores it: the routes show each step, and their writes name the tools', async () => {
    const kath = pairWith((await read('/api/people/data-quality/fuzzy-pairs', { minConfidence: '0' })).result.items, ids.kath1);
    const counts = async () => (await read('/api/people/data-quality/dismissals')).result;
    const pairShown = async (includeDismissed: boolean) =>
      pairWith((await read('/api/people/data-quality/fuzzy-pairs', { minConfidence: '0', includeDismissed: String(includeDismissed) })).result.items, ids.kath1);

    const viaRoute = await write('POST', '/api/people/data-quality/fuzzy-pairs/dismissals', { pairIds: [kath.id], reason: 'Cousins' });
    expect(viaRoute).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'people_dismiss_data_quality_fuzzy_pairs' } });
    expect(await counts()).toEqual({ groups: 0, pairs: 0, dismissals: [] });

    expect(await mcpCall(mcp, 'people_dismiss_data_quality_fuzzy_pairs', { pairIds: [kath.id], reason: 'Cousins' })).toEqual({ dismissed: 1, alreadyDismissed: 0 });
    expect(await pairShown(false)).toBeUndefined();
    expect(await pairShown(true)).toMatchObject({ id: kath.id, dismissed: true });
    const dismissed = await counts();
    expect(dismissed).toEqual(await mcpCall(mcp, 'people_get_data_quality_dismissed_counts', {}));
    expect(dismissed).toMatchObject({ groups: 0, pairs: 1 });
    expect(dismissed.dismissals[0]).toMatchObject({ kind: 'pair', reason: 'Cousins', contactIds: [ids.kath1, ids.kath2].sort() });
    expect((await read('/api/people/data-quality/dashboard')).result.duplicates.dismissedPairs).toBe(1);

    const restoreViaRoute = await write('POST', '/api/people/data-quality/dismissals/restore', { dismissalIds: [dismissed.dismissals[0].dismissalId] });
    expect(restoreViaRoute).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'people_restore_data_quality_dismissals' } });
    expect((await counts()).pairs).toBe(1);

    expect(await mcpCall(mcp, 'people_restore_data_quality_dismissals', { dismissalIds: [dismissed.dismissals[0].dismissalId] })).toEqual({ restored: 1 });
    expect(await pairShown(false)).toMatchObject({ id: kath.id, dismissed: false });
    expect(await counts()).toMatchObject({ groups: 0, pairs: 0 });

    // Merging through its route names the tool whose approval it needs; both contacts stay.
    const merge = await write('POST', '/api/people/data-quality/merges', { duplicateId: kath.id, keepContactId: ids.kath1, mergeContactId: ids.kath2 });
    expect(merge).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'people_merge_data_quality_via_dashboard' } });
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM contacts WHERE id = ANY($1) AND deleted_at IS NULL', [[ids.kath1, ids.kath2]])).rows[0].n).toBe(2);
  });

  it('resolves a review queue item, read through the queue route', async () => {
    const open = await read('/api/people/data-quality/queue', { kind: 'unparseable_phone' });
    expect(open.result).toEqual(await mcpCall(mcp, 'people_list_data_quality_queue', { kind: 'unparseable_phone' }));
    const item = pairWith(open.result.items, ids.badPhone);
    expect(item).toMatchObject({ kind: 'unparseable_phone', status: 'open', contactCount: 1 });
    // The likely pairs of confidence 70+ wait there too.
    expect(pairWith((await read('/api/people/data-quality/queue', { kind: 'fuzzy_pair' })).result.items, ids.jon1)).toBeDefined();

    const viaRoute = await write('POST', `/api/people/data-quality/queue/${item.id}/decision`, { decision: 'resolve', note: 'Rang them' });
    expect(viaRoute).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'people_review_data_quality_queue_item' } });
    expect(pairWith((await read('/api/people/data-quality/queue', { kind: 'unparseable_phone' })).result.items, ids.badPhone)).toMatchObject({ status: 'open' });

    const reviewed = await mcpCall(mcp, 'people_review_data_quality_queue_item', { itemId: item.id, decision: 'resolve', note: 'Rang them, number corrected' });
    expect(reviewed.item).toMatchObject({ status: 'resolved' });
    expect(pairWith((await read('/api/people/data-quality/queue', { kind: 'unparseable_phone' })).result.items, ids.badPhone)).toBeUndefined();
    const resolved = await read('/api/people/data-quality/queue', { status: 'resolved' });
    expect(resolved.result.items.find((i: any) => i.id === item.id)).toEqual(reviewed.item);
    const stillOpen = (await read('/api/people/data-quality/queue')).result;
    expect(stillOpen.items.some((i: any) => i.id === item.id)).toBe(false);
    expect((await read('/api/people/data-quality/dashboard')).result.openQueueItems).toBe(stillOpen.total);
  });

  it('another organisation\'s ids are missing ones; scopes are checked; every route is in the OpenAPI document', async () => {
    // The other organisation scans its own contacts: its routes never show this one's.
    const foreignScan = await harness.call(other.apiKey, 'people_run_data_quality_scan', {});
    const missingJob = async (apiKey: string, jobId: string) => harness.invoke(apiKey, 'people_invoke_api_read', { path: `/api/people/data-quality/jobs/${jobId}` });
    const foreign = await missingJob(other.apiKey, scanJobId);
    const absent = randomUUID();
    const nothing = await missingJob(other.apiKey, absent);
    expect(foreign.status).toBe(nothing.status);
    expect(foreign.body.error?.code).toBe('not_found');
    expect(foreign.body.error?.message.replace(scanJobId, '<id>')).toBe(nothing.body.error?.message.replace(absent, '<id>'));
    expect((await http(other.apiKey, `/api/people/data-quality/jobs/${scanJobId}`)).status).toBe(404);
    // This organisation cannot read the other's job either, and the other's own job answers it.
    expect((await mcpRefusal(mcp, 'people_invoke_api_read', { path: `/api/people/data-quality/jobs/${foreignScan.job.id}` })).code).toBe('not_found');
    expect((await harness.call(other.apiKey, 'people_invoke_api_read', { path: `/api/people/data-quality/jobs/${foreignScan.job.id}` })).result.job.id).toBe(foreignScan.job.id);
    for (let i = 0; i < 300; i++) {
      const { job } = await harness.call(other.apiKey, 'people_get_data_quality_job', { jobId: foreignScan.job.id });
      if (job.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const theirQueue = await harness.call(other.apiKey, 'people_invoke_api_read', { path: '/api/people/data-quality/queue', query: { status: 'resolved' } });
    expect(theirQueue.result).toEqual({ total: 0, items: [] });
    const theirOpen = await harness.call(other.apiKey, 'people_invoke_api_read', { path: '/api/people/data-quality/queue' });
    expect(theirOpen.result.items.map((i: any) => i.contacts.map((c: any) => c.contactId))).toEqual([[ids.foreign]]);
    const theirPairs = await harness.call(other.apiKey, 'people_invoke_api_read', { path: '/api/people/data-quality/fuzzy-pairs', query: { minConfidence: '0' } });
    expect(theirPairs.result.total).toBe(0);
    // A fix's preview over this organisation's contact is refused there as a missing contact.
    const foreignPreview = await harness.invoke(other.apiKey, 'people_invoke_api_read', { path: '/api/people/data-quality/fixes/name_case/preview', query: { contactIds: ids.mary! } });
    expect(foreignPreview.body.error?.code).toBe('not_found');

    // A read-only key reads the routes and cannot call the write bridge; a key without people:read cannot read them.
    const reader = await harness.createKey(org.orgId, ['people:read']);
    expect((await harness.call(reader.apiKey, 'people_invoke_api_read', { path: '/api/people/data-quality/dismissals' })).result).toMatchObject({ pairs: 0 });
    const readerWrite = await harness.invoke(reader.apiKey, 'people_invoke_api_write', { method: 'POST', path: '/api/people/data-quality/scans', body: {}, actionSummary: 'Scan' });
    expect(readerWrite.body.error?.code).toBe('insufficient_scope');
    const platformOnly = await harness.createKey(org.orgId, ['platform:read', 'platform:write']);
    const noPeople = await harness.invoke(platformOnly.apiKey, 'platform_invoke_dashboard_api_read', { path: '/api/people/data-quality/queue' });
    expect(noPeople.body.error).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: 'people:read' } });

    const openapi = await (await fetch(`${harness.url}/api/openapi.json`)).json() as { paths: Record<string, Record<string, any>> };
    const operations = {
      '/api/people/data-quality/dashboard': { get: undefined },
      '/api/people/data-quality/scans': { post: 'people_run_data_quality_scan' },
      '/api/people/data-quality/fixes/{fix}/preview': { get: undefined },
      '/api/people/data-quality/fixes/{fix}/apply': { post: 'people_apply_data_quality_fix' },
      '/api/people/data-quality/special-fixes/{fix}/preview': { get: undefined },
      '/api/people/data-quality/special-fixes/{fix}/apply': { post: 'people_apply_data_quality_special_fix' },
      '/api/people/data-quality/duplicates': { get: undefined },
      '/api/people/data-quality/duplicates/dismissals': { post: 'people_dismiss_data_quality_duplicate_groups' },
      '/api/people/data-quality/fuzzy-pairs': { get: undefined },
      '/api/people/data-quality/fuzzy-pairs/dismissals': { post: 'people_dismiss_data_quality_fuzzy_pairs' },
      '/api/people/data-quality/dismissals': { get: undefined },
      '/api/people/data-quality/dismissals/restore': { post: 'people_restore_data_quality_dismissals' },
      '/api/people/data-quality/merges': { post: 'people_merge_data_quality_via_dashboard' },
      '/api/people/data-quality/jobs': { get: undefined, post: 'people_trigger_data_quality_jobs' },
      '/api/people/data-quality/jobs/{jobId}': { get: undefined },
      '/api/people/data-quality/queue': { get: undefined },
      '/api/people/data-quality/queue/{itemId}/decision': { post: 'people_review_data_quality_queue_item' },
      '/api/people/contacts/merges': { post: 'people_merge_data_quality_contacts' },
    };
    for (const [path, methods] of Object.entries(operations)) {
      expect(Object.keys(openapi.paths[path] ?? {}).sort()).toEqual(Object.keys(methods).sort());
      for (const [method, tool] of Object.entries(methods)) expect(openapi.paths[path]![method]['x-steward-curated-tool']).toBe(tool);
    }
    expect(openapi.paths['/api/people/data-quality/queue/{itemId}/decision']!.post.requestBody.content['application/json'].schema.required).toEqual(['decision']);
  });
});
