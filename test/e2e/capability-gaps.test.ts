import { Harness, type TestOrg } from '../helpers/harness';

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
    expect((await harness.call(fresh.apiKey, 'platform_overview', {})).capabilityGaps).toEqual({ count: 0, latest: [] });
    for (const missing of ['First gap', 'Second gap', 'Third gap', 'Fourth gap']) await harness.call(fresh.apiKey, 'platform_report_capability_gap', { missing });
    const admin = await harness.createKey(fresh.orgId, ['platform:read'], 'admin');
    const client = await harness.mcpClient(admin.apiKey);
    try {
      const overview = await client.callTool({ name: 'platform_overview', arguments: {} });
      const gaps = (overview.structuredContent as { capabilityGaps: { count: number; latest: Array<{ missing: string }> } }).capabilityGaps;
      expect(gaps.count).toBe(4);
      expect(gaps.latest.map((g) => g.missing)).toEqual(['Fourth gap', 'Third gap', 'Second gap']);
    } finally {
      await client.close();
    }
    const staff = await harness.createKey(fresh.orgId, ['platform:read'], 'staff');
    expect((await harness.call(staff.apiKey, 'platform_overview', {})).capabilityGaps).toBeNull();
    // Another organisation's reports are not counted.
    expect((await harness.call(org.apiKey, 'platform_overview', {})).capabilityGaps.latest.map((g: { missing: string }) => g.missing)).not.toContain('Fourth gap');
  });

  it('refuses bad input and writes nothing', async () => {
    const before = await harness.pool.query('SELECT count(*)::int AS n FROM capability_gaps');
    for (const args of [{ missing: '' }, { missing: 'x'.repeat(2001) }, { missing: 'ok', tool: 'Not A Tool!' }, { missing: 'ok', colour: 'red' }]) {
      expect((await harness.invoke(org.apiKey, 'platform_report_capability_gap', args)).body.error?.code).toBe('validation_failed');
    }
    expect((await harness.invoke(org.apiKey, 'platform_list_capability_gaps', { cursor: 'made-up' })).body.error?.code).toBe('validation_failed');
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM capability_gaps')).rows[0].n).toBe(before.rows[0].n);
  });
});
