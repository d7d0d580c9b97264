import { randomUUID } from 'node:crypto';
import { CallToolResultSchema, EmptyResultSchema, LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { Harness, type TestOrg } from '../helpers/harness';

/** The logging capability: advertised, logging/setLevel answered, approval waits reported as notifications/message. */
describe('MCP logging', () => {
  let harness: Harness;
  let org: TestOrg;
  const saved = { ...process.env };

  beforeAll(async () => {
    // Several wait reports within a short approval budget.
    process.env.STEWARD_MCP_PROGRESS_INTERVAL_MS = '300';
    // Its own stack: the API reads the progress interval this suite sets in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg();
  });

  afterAll(async () => {
    await harness?.close();
    process.env = saved;
  });

  it('advertises logging and answers logging/setLevel, refusing an unknown level with -32602', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      expect(mcp.getServerCapabilities()?.logging).toEqual({});
      await expect(mcp.setLoggingLevel('warning')).resolves.toEqual({});
      await expect(mcp.request({ method: 'logging/setLevel', params: { level: 'loud' as never } }, EmptyResultSchema)).rejects.toMatchObject({ code: -32602 });
    } finally {
      await mcp.close();
    }
  });

  it('sends notifications/message while a call waits for a person to approve it', async () => {
    const keep = randomUUID();
    const merge = randomUUID();
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, created_at) VALUES
      ($1, $3, 'Lia', 'Dup', 'lia@example.org', now() - interval '2 days'), ($2, $3, 'Lia', 'Dup', 'lia@example.org', now() - interval '1 day')`,
    [keep, merge, org.orgId]);
    const mcp = await harness.mcpClient(org.apiKey);
    const messages: LoggingMessageNotification['params'][] = [];
    mcp.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      messages.push(notification.params);
    });
    try {
      const result = await mcp.callTool(
        { name: 'people_merge_data_quality_contacts', arguments: { keepContactId: keep, mergeContactId: merge }, _meta: { approvalWaitMs: 1000 } },
        CallToolResultSchema,
        { onprogress: () => undefined },
      );
      const error = JSON.parse((result.content as Array<{ text: string }>)[0].text).error;
      expect(error.code).toBe('approval_required');
      expect(messages.length).toBeGreaterThanOrEqual(1);
      expect(messages[0]).toMatchObject({ level: 'info', logger: 'steward.approvals', data: { budgetMs: 1000 } });
      expect((messages[0].data as { message: string }).message).toContain(error.details.proposalId);
    } finally {
      await mcp.close();
    }
  });
});
