import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * Long work says how far it has come: an MCP client that sends a progress token (the SDK does when
 * given `onprogress`) hears notifications/progress while its tools/call is open, each further on
 * than the last, ending at the total; a client that sends none gets a plain answer.
 */
describe('MCP progress notifications for long calls', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Progress Parish' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=all');
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  const contactsCsv = (rows: number, prefix: string) => ['First Name,Last Name,Email', ...Array.from({ length: rows }, (_, i) => `${prefix}${i},Importer,${prefix.toLowerCase()}${i}@example.org`)].join('\n');

  it('a 400-row contact import sends several increasing progress notifications ending at 400 of 400', async () => {
    const progress: Progress[] = [];
    const result = await mcp.callTool(
      { name: 'people_import_contacts', arguments: { csv: contactsCsv(400, 'Row'), mode: 'commit' } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ committed: true, rows: 400, toCreate: 400 });
    const count = await harness.pool.query("SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND last_name = 'Importer' AND deleted_at IS NULL", [org.orgId]);
    expect(count.rows[0].n).toBe(400);

    expect(progress.length).toBeGreaterThanOrEqual(3);
    const values = progress.map((p) => p.progress);
    // Strictly increasing, as the protocol requires, each within the total.
    for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1]);
    expect(progress.every((p) => p.total === 400)).toBe(true);
    expect(progress[progress.length - 1]).toEqual({ progress: 400, total: 400, message: 'Imported 400 of 400 rows' });
    // The lines name rows, never a person.
    expect(progress.every((p) => /^Imported \d+ of 400 rows$/.test(p.message ?? ''))).toBe(true);
  }, 180_000);

  it('a donation import reports each gift recorded', async () => {
    const csv = ['Date,Amount,Reference', ...Array.from({ length: 120 }, (_, i) => `2026-01-${String((i % 28) + 1).padStart(2, '0')},${(i + 1)}.00,REF-${i}`)].join('\n');
    const progress: Progress[] = [];
    const result = await mcp.callTool(
      { name: 'giving_import_donations', arguments: { csv, source: 'bank', mode: 'commit' } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as any).counts).toMatchObject({ rows: 120, recorded: 120 });
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[progress.length - 1]).toEqual({ progress: 120, total: 120, message: 'Recorded 120 of 120 gifts' });
  }, 180_000);

  it('a call without a progress token gets its answer with no notifications', async () => {
    const seen: unknown[] = [];
    mcp.fallbackNotificationHandler = async (notification) => { seen.push(notification); };
    try {
      const result = await mcp.callTool({ name: 'people_import_contacts', arguments: { csv: contactsCsv(30, 'Quiet'), mode: 'commit' } });
      expect(result.structuredContent).toMatchObject({ committed: true, toCreate: 30 });
      expect(seen).toEqual([]);
    } finally {
      mcp.fallbackNotificationHandler = undefined;
    }
  }, 120_000);
});
