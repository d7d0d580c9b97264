import { Harness, type TestOrg } from '../../../test/helpers/harness';

describe('capability gaps: agents report what Steward could not do, owners and admins read them', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Gap Gospel Hall' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('stores a report from any member\'s agent over MCP and shows it to owners and admins only, newest first', async () => {
    const volunteer = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'volunteer');
    const client = await harness.mcpClient(volunteer.apiKey);
    try {
      const reported = await client.callTool({ name: 'platform_report_capability_gap', arguments: {
        tool: 'people_list_contacts', missing: 'Cannot book the church minibus', example: 'Book the minibus for Saturday\'s outing',
      } });
      expect(reported.isError).toBeFalsy();
      const { gap, speakToUser } = reported.structuredContent as { gap: { gapId: string; credentialKind: string; reportedByUserId: string }; speakToUser: string };
      expect(gap).toMatchObject({ credentialKind: 'api_key', reportedByUserId: volunteer.userId });
      expect(speakToUser).toContain('owners');
    } finally {
      await client.close();
    }
    await harness.call(org.apiKey, 'platform_report_capability_gap', { missing: 'No rota export' });

    const { gaps, nextCursor } = await harness.call(org.apiKey, 'platform_list_capability_gaps', {});
    expect(gaps.map((g: { missing: string }) => g.missing)).toEqual(['No rota export', 'Cannot book the church minibus']);
    expect(gaps[1]).toMatchObject({ tool: 'people_list_contacts', example: 'Book the minibus for Saturday\'s outing' });
    expect(nextCursor).toBeNull();
    const page = await harness.call(org.apiKey, 'platform_list_capability_gaps', { limit: 1 });
    expect(page.gaps).toHaveLength(1);
    expect((await harness.call(org.apiKey, 'platform_list_capability_gaps', { limit: 1, cursor: page.nextCursor })).gaps[0].missing).toBe('Cannot book the church minibus');

    const admin = await harness.createKey(org.orgId, ['platform:read'], 'admin');
    expect((await harness.call(admin.apiKey, 'platform_list_capability_gaps', {})).gaps).toHaveLength(2);
    for (const role of ['staff', 'volunteer'] as const) {
      const member = await harness.createKey(org.orgId, ['platform:read'], role);
      expect((await harness.invoke(member.apiKey, 'platform_list_capability_gaps', {})).body.error).toMatchObject({ code: 'forbidden' });
    }
    const other = await harness.createOrg({ name: 'Elsewhere' });
    expect((await harness.call(other.apiKey, 'platform_list_capability_gaps', {})).gaps).toEqual([]);
  });

  it('shows owners and admins the count and latest reports in platform_overview, and nobody else', async () => {
    const fresh = await harness.createOrg({ name: 'Overview Gap Chapel' });
    expect((await harness.call(fresh.apiKey, 'platform_overview', {})).capabilityGaps).toEqual({ open: 0, latest: [] });
    for (const missing of ['First gap', 'Second gap', 'Third gap', 'Fourth gap']) await harness.call(fresh.apiKey, 'platform_report_capability_gap', { missing });
    const admin = await harness.createKey(fresh.orgId, ['platform:read'], 'admin');
    const client = await harness.mcpClient(admin.apiKey);
    try {
      const overview = await client.callTool({ name: 'platform_overview', arguments: {} });
      const gaps = (overview.structuredContent as { capabilityGaps: { open: number; latest: Array<{ missing: string }> } }).capabilityGaps;
      expect(gaps.open).toBe(4);
      expect(gaps.latest.map((g) => g.missing)).toEqual(['Fourth gap', 'Third gap', 'Second gap']);
    } finally {
      await client.close();
    }
    const staff = await harness.createKey(fresh.orgId, ['platform:read'], 'staff');
    expect((await harness.call(staff.apiKey, 'platform_overview', {})).capabilityGaps).toBeNull();
    // Another organisation's reports are not counted.
    expect((await harness.call(org.apiKey, 'platform_overview', {})).capabilityGaps.latest.map((g: { missing: string }) => g.missing)).not.toContain('Fourth gap');
  });

  it('resolves a gap once, with how it was dealt with; the overview then counts only open ones', async () => {
    const fresh = await harness.createOrg({ name: 'Resolving Chapel' });
    const first = (await harness.call(fresh.apiKey, 'platform_report_capability_gap', { missing: 'Cannot book the minibus' })).gap;
    await harness.call(fresh.apiKey, 'platform_report_capability_gap', { missing: 'No rota export' });
    const admin = await harness.createKey(fresh.orgId, ['platform:read', 'platform:write'], 'admin');
    const client = await harness.mcpClient(admin.apiKey);
    try {
      const resolved = await client.callTool({ name: 'platform_resolve_capability_gap', arguments: { gapId: first.gapId, resolution: 'Booked through the spaces module now' } });
      expect(resolved.isError).toBeFalsy();
      expect((resolved.structuredContent as { gap: unknown }).gap).toMatchObject({
        gapId: first.gapId, status: 'resolved', resolution: 'Booked through the spaces module now', resolvedByUserId: admin.userId,
      });
    } finally {
      await client.close();
    }
    const overview = await harness.call(fresh.apiKey, 'platform_overview', {});
    expect(overview.capabilityGaps.open).toBe(1);
    expect(overview.capabilityGaps.latest.map((g: { missing: string }) => g.missing)).toEqual(['No rota export']);
    expect((await harness.call(fresh.apiKey, 'platform_list_capability_gaps', { status: 'open' })).gaps.map((g: { missing: string }) => g.missing)).toEqual(['No rota export']);
    expect((await harness.call(fresh.apiKey, 'platform_list_capability_gaps', { status: 'resolved' })).gaps.map((g: { gapId: string }) => g.gapId)).toEqual([first.gapId]);
    expect((await harness.call(fresh.apiKey, 'platform_list_capability_gaps', {})).gaps).toHaveLength(2);

    // Once only; never by staff; another organisation's gap is not found.
    const again = await harness.invoke(fresh.apiKey, 'platform_resolve_capability_gap', { gapId: first.gapId, resolution: 'Again' });
    expect(again.body.error).toMatchObject({ code: 'conflict' });
    const staff = await harness.createKey(fresh.orgId, ['platform:read', 'platform:write'], 'staff');
    const open = (await harness.call(fresh.apiKey, 'platform_list_capability_gaps', { status: 'open' })).gaps[0];
    expect((await harness.invoke(staff.apiKey, 'platform_resolve_capability_gap', { gapId: open.gapId, resolution: 'Staff says so' })).body.error?.code).toBe('forbidden');
    const outsider = await harness.invoke(org.apiKey, 'platform_resolve_capability_gap', { gapId: open.gapId, resolution: 'Not mine' });
    expect({ status: outsider.status, code: outsider.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
    expect((await harness.call(fresh.apiKey, 'platform_list_capability_gaps', { status: 'open' })).gaps[0]).toMatchObject({ gapId: open.gapId, status: 'open', resolution: null });
    for (const args of [{ gapId: open.gapId, resolution: '' }, { gapId: 'not-a-uuid', resolution: 'x' }, { gapId: open.gapId, resolution: 'x'.repeat(501) }]) {
      expect((await harness.invoke(fresh.apiKey, 'platform_resolve_capability_gap', args)).body.error?.code).toBe('validation_failed');
    }
  });

  it('refuses bad input and writes nothing', async () => {
    // The organisation's gaps: the database is its jest worker's shared stack's, with other suites' organisations in it.
    const before = await harness.pool.query('SELECT count(*)::int AS n FROM capability_gaps WHERE org_id = $1', [org.orgId]);
    for (const args of [{ missing: '' }, { missing: 'x'.repeat(2001) }, { missing: 'ok', tool: 'Not A Tool!' }, { missing: 'ok', colour: 'red' }]) {
      expect((await harness.invoke(org.apiKey, 'platform_report_capability_gap', args)).body.error?.code).toBe('validation_failed');
    }
    expect((await harness.invoke(org.apiKey, 'platform_list_capability_gaps', { cursor: 'made-up' })).body.error?.code).toBe('validation_failed');
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM capability_gaps WHERE org_id = $1', [org.orgId])).rows[0].n).toBe(before.rows[0].n);
  });
});
