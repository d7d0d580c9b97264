import { randomUUID } from 'node:crypto';
import { Harness, type TestOrg } from '../helpers/harness';

describe('idempotency keys', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Idempotent Church' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  const newKey = () => `test-${randomUUID()}`;
  const countByEmail = async (email: string) =>
    (await harness.pool.query('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND email = $2', [org.orgId, email])).rows[0].n as number;
  const usageCount = async () =>
    (await harness.pool.query("SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'contacts'", [org.orgId])).rows[0].n as number;

  describe('keys belong to the credential that used them', () => {
    it("another credential replaying a key gets a conflict, never the first caller's result", async () => {
      const contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Red', lastName: 'Note' })).contact.id;
      await harness.call(org.apiKey, 'people_add_note', { contactId, content: 'Safeguarding detail', confidentialityLevel: 'red' });
      const key = newKey();
      const owner = await harness.invoke(org.apiKey, 'people_list_notes', { contactId }, { 'Idempotency-Key': key });
      expect(owner.body.result.notes).toHaveLength(1);
      const reader = await harness.createKey(org.orgId, ['people:read']);
      const replay = await harness.invoke(reader.apiKey, 'people_list_notes', { contactId }, { 'Idempotency-Key': key });
      expect(replay.status).toBe(409);
      expect(replay.body.error?.code).toBe('idempotency_conflict');
      expect(JSON.stringify(replay.body)).not.toContain('Safeguarding detail');
    });

    it('a second credential holding exactly the same scopes still cannot replay the first one\'s key', async () => {
      // Same scopes, same arguments: only the binding to the credential itself tells these two apart.
      const contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Twin', lastName: 'Scopes' })).contact.id;
      await harness.call(org.apiKey, 'people_add_note', { contactId, content: 'Held by the first key only', confidentialityLevel: 'red' });
      const scopes = ['people:read', 'people:safeguarding'] as const;
      const first = await harness.createKey(org.orgId, [...scopes], 'staff', { safeguarding: true });
      const second = await harness.createKey(org.orgId, [...scopes], 'staff', { safeguarding: true });
      const key = newKey();
      const original = await harness.invoke(first.apiKey, 'people_list_notes', { contactId }, { 'Idempotency-Key': key });
      expect(original.body.result.notes).toHaveLength(1);
      const replay = await harness.invoke(second.apiKey, 'people_list_notes', { contactId }, { 'Idempotency-Key': key });
      expect(replay.status).toBe(409);
      expect(replay.body.error?.code).toBe('idempotency_conflict');
      expect(JSON.stringify(replay.body)).not.toContain('Held by the first key only');
    });

    it('on an approval-gated tool, another credential using the same key gets a conflict, never a second proposal', async () => {
      // Raising an agent to auto is gated whatever the credential: the call becomes a proposal.
      const args = { agent: 'grow', autonomy: 'auto' };
      const key = newKey();
      const first = await harness.invoke(org.apiKey, 'platform_set_agent_autonomy', args, { 'Idempotency-Key': key });
      expect(first.body.error?.code).toBe('approval_required');
      const again = await harness.invoke(org.apiKey, 'platform_set_agent_autonomy', args, { 'Idempotency-Key': key });
      expect(again.body.error?.details?.proposalId).toBe(first.body.error?.details?.proposalId);
      const admin = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'admin');
      const replay = await harness.invoke(admin.apiKey, 'platform_set_agent_autonomy', args, { 'Idempotency-Key': key });
      expect(replay.status).toBe(409);
      expect(replay.body.error?.code).toBe('idempotency_conflict');
      const proposals = await harness.pool.query("SELECT count(*)::int AS n FROM proposals WHERE org_id = $1 AND tool = 'platform_set_agent_autonomy'", [org.orgId]);
      expect(proposals.rows[0].n).toBe(1);
    });

    it('refuses a replay once the credential has lost a permission it held', async () => {
      const contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Lost', lastName: 'Scope' })).contact.id;
      await harness.call(org.apiKey, 'people_add_note', { contactId, content: 'Restricted detail', confidentialityLevel: 'red' });
      const holder = await harness.createKey(org.orgId, ['people:read', 'people:safeguarding'], 'staff', { safeguarding: true });
      const key = newKey();
      const first = await harness.invoke(holder.apiKey, 'people_list_notes', { contactId }, { 'Idempotency-Key': key });
      expect(first.body.result.notes).toHaveLength(1);
      await harness.pool.query('UPDATE memberships SET safeguarding = false WHERE user_id = $1', [holder.userId]);
      const replay = await harness.invoke(holder.apiKey, 'people_list_notes', { contactId }, { 'Idempotency-Key': key });
      expect(replay.status).toBe(409);
      expect(JSON.stringify(replay.body)).not.toContain('Restricted detail');
    });

    it('refuses keys in the namespace of internal calls', async () => {
      const { status, body } = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'reserved@example.org' }, { 'Idempotency-Key': 'proposal-123' });
      expect(status).toBe(400);
      expect(body.error?.issues).toEqual([{ path: 'Idempotency-Key', message: 'reserved prefix' }]);
      expect(await countByEmail('reserved@example.org')).toBe(0);
    });
  });

  describe('over the HTTP bridge (Idempotency-Key header)', () => {
    it('the same key twice runs the operation once and returns the first result', async () => {
      const key = newKey();
      const usageBefore = await usageCount();
      const first = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'once@example.org', firstName: 'Once' }, { 'Idempotency-Key': key });
      const second = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'once@example.org', firstName: 'Once' }, { 'Idempotency-Key': key });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body.result.contact.id).toBe(first.body.result.contact.id);
      expect(second.body).toEqual(first.body);
      expect(await countByEmail('once@example.org')).toBe(1);
      expect(await usageCount()).toBe(usageBefore + 1);
      // The replay did not report its own first run as a duplicate either.
      expect(second.body.result.likelyDuplicates).toEqual([]);
    });

    it('argument key order does not matter', async () => {
      const key = newKey();
      const first = await harness.invoke(org.apiKey, 'people_create_contact', { firstName: 'Order', lastName: 'Test', email: 'order@example.org' }, { 'Idempotency-Key': key });
      const second = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'order@example.org', lastName: 'Test', firstName: 'Order' }, { 'Idempotency-Key': key });
      expect(second.status).toBe(200);
      expect(second.body.result.contact.id).toBe(first.body.result.contact.id);
      expect(await countByEmail('order@example.org')).toBe(1);
    });

    it('without a key, the same call twice runs twice', async () => {
      await harness.call(org.apiKey, 'people_create_contact', { email: 'twice@example.org' });
      await harness.call(org.apiKey, 'people_create_contact', { email: 'twice@example.org' });
      expect(await countByEmail('twice@example.org')).toBe(2);
    });

    it('the same key with different arguments is refused with 409 idempotency_conflict', async () => {
      const key = newKey();
      const first = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'conflict-a@example.org' }, { 'Idempotency-Key': key });
      expect(first.status).toBe(200);
      const usageBefore = await usageCount();
      const second = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'conflict-b@example.org' }, { 'Idempotency-Key': key });
      expect(second.status).toBe(409);
      expect(second.body.ok).toBe(false);
      expect(second.body.error!.code).toBe('idempotency_conflict');
      expect(await countByEmail('conflict-a@example.org')).toBe(1);
      expect(await countByEmail('conflict-b@example.org')).toBe(0);
      expect(await usageCount()).toBe(usageBefore);
    });

    it('the same key on a different tool is a conflict too', async () => {
      const key = newKey();
      const { contact } = (await harness.invoke(org.apiKey, 'people_create_contact', { email: 'cross-tool@example.org' }, { 'Idempotency-Key': key })).body.result;
      const second = await harness.invoke(org.apiKey, 'people_get_contact', { contactId: contact.id }, { 'Idempotency-Key': key });
      expect(second.status).toBe(409);
      expect(second.body.error!.code).toBe('idempotency_conflict');
    });

    it('concurrent requests with one key run the operation once', async () => {
      const key = newKey();
      const responses = await Promise.all(Array.from({ length: 5 }, () =>
        harness.invoke(org.apiKey, 'people_create_contact', { email: 'race@example.org' }, { 'Idempotency-Key': key })));
      for (const response of responses) expect(response.status).toBe(200);
      expect(new Set(responses.map((r) => r.body.result.contact.id)).size).toBe(1);
      expect(await countByEmail('race@example.org')).toBe(1);
    });

    it('replaying the key of a failed call returns the same error without running again', async () => {
      const key = newKey();
      const missing = randomUUID();
      const first = await harness.invoke(org.apiKey, 'people_add_note', { contactId: missing, content: 'x' }, { 'Idempotency-Key': key });
      expect(first.status).toBe(404);
      const second = await harness.invoke(org.apiKey, 'people_add_note', { contactId: missing, content: 'x' }, { 'Idempotency-Key': key });
      expect(second.status).toBe(404);
      expect(second.body).toEqual(first.body);
    });

    it.each([
      ['spaces', 'has spaces'],
      ['a slash', 'a/b'],
      ['too long', 'k'.repeat(129)],
      ['non-ASCII', 'clé-😀'],
    ])('refuses a key with %s, writing nothing', async (_label, key) => {
      // Header values travel as bytes; a UTF-8 key arrives as its latin1 reading.
      const email = `badkey-${randomUUID()}@example.org`;
      const response = await fetch(`${harness.url}/api/agent/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${org.apiKey}`, 'idempotency-key': Buffer.from(key).toString('latin1') },
        body: JSON.stringify({ tool: 'people_create_contact', arguments: { email } }),
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as any;
      expect(body.ok).toBe(false);
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.issues.map((i: any) => i.path)).toContain('Idempotency-Key');
      expect(await countByEmail(email)).toBe(0);
    });

    it('accepts a key of exactly 128 allowed characters', async () => {
      const key = `${'a'.repeat(100)}.b_c:d-${randomUUID().replace(/-/g, '').slice(0, 21)}`;
      expect(key).toHaveLength(128);
      const response = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'longkey@example.org' }, { 'Idempotency-Key': key });
      expect(response.status).toBe(200);
    });
  });

  describe('over MCP (tools/call _meta.idempotencyKey)', () => {
    it('the same key twice runs once; other arguments are refused', async () => {
      const mcp = await harness.mcpClient(org.apiKey);
      try {
        const key = newKey();
        const call = (email: string) => mcp.callTool({ name: 'people_create_contact', arguments: { email }, _meta: { idempotencyKey: key } });
        const first = await call('mcp-once@example.org');
        const second = await call('mcp-once@example.org');
        expect(first.isError).toBeFalsy();
        expect(second.isError).toBeFalsy();
        expect((second.structuredContent as any).contact.id).toBe((first.structuredContent as any).contact.id);
        expect(await countByEmail('mcp-once@example.org')).toBe(1);

        const conflict = await call('mcp-other@example.org');
        expect(conflict.isError).toBe(true);
        expect(JSON.parse((conflict.content as any)[0].text).error.code).toBe('idempotency_conflict');
        expect(await countByEmail('mcp-other@example.org')).toBe(0);

        const bad = await mcp.callTool({ name: 'people_create_contact', arguments: { email: 'mcp-bad@example.org' }, _meta: { idempotencyKey: 'no spaces allowed' } });
        expect(bad.isError).toBe(true);
        expect(JSON.parse((bad.content as any)[0].text).error.code).toBe('validation_failed');
        expect(await countByEmail('mcp-bad@example.org')).toBe(0);
      } finally {
        await mcp.close();
      }
    });

    it('a key used over the bridge is honoured over MCP (one call, whatever the surface)', async () => {
      const key = newKey();
      const viaBridge = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'both@example.org' }, { 'Idempotency-Key': key });
      const mcp = await harness.mcpClient(org.apiKey);
      try {
        const viaMcp = await mcp.callTool({ name: 'people_create_contact', arguments: { email: 'both@example.org' }, _meta: { idempotencyKey: key } });
        expect((viaMcp.structuredContent as any).contact.id).toBe(viaBridge.body.result.contact.id);
        expect(await countByEmail('both@example.org')).toBe(1);
      } finally {
        await mcp.close();
      }
    });
  });
});
