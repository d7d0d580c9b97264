import { Harness, type TestOrg } from '../helpers/harness';

describe('capability gaps: agents report what Steward could not do, owners read them', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Gap Gospel Hall' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('stores a report from any member\'s agent over MCP and shows it to owners only, newest first', async () => {
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
    expect((await harness.invoke(admin.apiKey, 'platform_list_capability_gaps', {})).body.error).toMatchObject({ code: 'forbidden' });
    const other = await harness.createOrg({ name: 'Elsewhere' });
    expect((await harness.call(other.apiKey, 'platform_list_capability_gaps', {})).gaps).toEqual([]);
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
