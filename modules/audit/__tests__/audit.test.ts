import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ProposalDecisionResult } from '../../../core/approvals';
import { APP_ROLE, withTransaction } from '../../../db/pool';
import { actionHashOf } from '../../../kernel/proposals';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { insertContact, insertDonation, insertFund } from '../../giving/__tests__/pledges-recurring-fixtures';
import { closeOutreach } from '../../people/outreach';
import { purgeAuditEvents } from '../retention';

/**
 * The audit trail end to end: every write call leaves one chained event in its own transaction
 * (20 at once keep one valid chain), the application role can add events but never change or
 * remove one, tampering shows in audit_verify_chain, a donation's history explains an agent's
 * correction and a refund a person approved, erasure redacts and keeps the fact, exports need
 * approval and are audited themselves, and another organisation's events are invisible.
 */
describe('audit trail', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let agent: McpClient;
  let otherMcp: McpClient;
  let admin: { apiKey: string; userId: string };

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Audit Abbey' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    agent = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    admin = await harness.createKey(org.orgId, ['platform:read', 'platform:write', 'giving:read', 'giving:write', 'audit:read', 'audit:export'], 'admin');
  });

  afterAll(async () => {
    await agent?.close();
    await otherMcp?.close();
    await harness?.close();
  });

  const asApp = <T>(orgId: string, work: (db: { query: (sql: string, values?: unknown[]) => Promise<unknown> }) => Promise<T>) =>
    withTransaction(harness.pool, async (db) => {
      await db.query(`SET LOCAL ROLE ${APP_ROLE}`);
      await db.query("SELECT set_config('steward.org_id', $1, true)", [orgId]);
      return work(db);
    });

  it('writes one event per write call, and 20 concurrent calls keep one valid chain', async () => {
    const created = await Promise.all(Array.from({ length: 20 }, (_v, i) => mcpCall(agent, 'people_create_contact', { firstName: `Parallel${i}`, lastName: 'Writer' })));
    const ids = created.map((result) => result.contact.id as string);
    const { rows } = await harness.pool.query('SELECT seq, target_type, target_id, action, actor_kind, on_behalf_of_user_id, credential_hash, scopes FROM audit_events WHERE org_id = $1 AND tool = $2', [org.orgId, 'people_create_contact']);
    expect(rows).toHaveLength(20);
    expect(new Set(rows.map((row) => row.target_id))).toEqual(new Set(ids));
    expect(rows[0]).toMatchObject({ target_type: 'contact', action: 'people.contact.create', actor_kind: 'agent', on_behalf_of_user_id: org.ownerUserId });
    expect(rows[0].credential_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(rows[0].scopes).toContain('people:write');
    const seqs = (await harness.pool.query('SELECT seq FROM audit_events WHERE org_id = $1 ORDER BY seq', [org.orgId])).rows.map((row) => Number(row.seq));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_v, i) => i + 1));
    const check = await mcpCall(agent, 'audit_verify_chain', {});
    expect(check).toMatchObject({ ok: true, checked: seqs.length, headSeq: seqs.length, complete: true, problems: [] });
    // A read leaves no event.
    await mcpCall(agent, 'audit_list_events', { limit: 1 });
    expect(Number((await harness.pool.query('SELECT count(*) FROM audit_events WHERE org_id = $1', [org.orgId])).rows[0].count)).toBe(seqs.length);
  });

  it('lets the application role add events but never change or remove one', async () => {
    await asApp(org.orgId, (db) => db.query(`INSERT INTO audit_events (org_id, tool, workflow_id, action, operation) VALUES ($1, 'test_probe', 'probe-1', 'test.probe.insert', 'create')`, [org.orgId]));
    for (const sql of ['UPDATE audit_events SET outcome = \'failed\' WHERE org_id = $1', 'DELETE FROM audit_events WHERE org_id = $1', 'UPDATE audit_chain_heads SET seq = 0 WHERE org_id = $1']) {
      await expect(asApp(org.orgId, (db) => db.query(sql, [org.orgId]))).rejects.toMatchObject({ code: '42501' });
    }
    await expect(asApp(org.orgId, (db) => db.query('TRUNCATE audit_events'))).rejects.toMatchObject({ code: '42501' });
    // Even the owner changes nothing outside the redaction path: the trigger refuses.
    await expect(harness.pool.query("UPDATE audit_events SET outcome = 'failed' WHERE org_id = $1", [org.orgId])).rejects.toThrow(/append-only/);
    // The probe row joined the chain like any other.
    expect((await mcpCall(agent, 'audit_verify_chain', {})).ok).toBe(true);
  });

  it('explains a donation corrected by an agent and refunded with a person\'s approval', async () => {
    const fundId = await insertFund(harness.pool, org.orgId, 'General');
    const contactId = await insertContact(harness.pool, org.orgId, 'Rhoda');
    const { donationId } = await insertDonation(harness.pool, org.orgId, { contactId, designations: [{ fundId, amount: 5000 }] });

    await mcpCall(agent, 'giving_adjust_donation', { donationId, amount: -500, reason: 'Keyed £50 for £45' });
    const asked = await agent.callTool({ name: 'giving_refund_donation', arguments: { donationId, amount: 2000, reason: 'Gave twice by mistake', actionSummary: 'Refund £20 to Rhoda' }, _meta: { approvalWaitMs: 300 } }, CallToolResultSchema);
    const proposalId = JSON.parse((asked.content as Array<{ text: string }>)[0]!.text).error.details.proposalId as string;
    const decided = await harness.call(admin.apiKey, 'platform_approve_proposal', { proposalId });
    expect(decided.execution.status).toBe('succeeded');

    const history = await mcpCall(agent, 'audit_get_entity_history', { targetType: 'donation', targetId: donationId });
    expect(history.entries.map((entry: any) => entry.action)).toEqual(['giving.donation.adjust', 'giving.donation.refund']);
    const [adjust, refund] = history.entries;
    expect(adjust).toMatchObject({
      tool: 'giving_adjust_donation', outcome: 'success', approval: null,
      actor: { kind: 'agent', userId: org.ownerUserId, onBehalfOfUserId: org.ownerUserId, credentialKind: 'api_key' },
    });
    expect(adjust.changes).toEqual(expect.arrayContaining([{ field: 'amount', after: -500 }, { field: 'reason', after: 'Keyed £50 for £45' }]));
    expect(refund).toMatchObject({
      // An approved proposal's action runs under the approver's credential; the proposal names who asked for it.
      tool: 'giving_refund_donation', actor: { userId: admin.userId },
      approval: { id: proposalId, status: 'approved', proposedByUserId: org.ownerUserId, decidedByUserId: admin.userId },
    });
    expect(refund.changes).toEqual(expect.arrayContaining([{ field: 'refunded', before: 0, after: 2000 }, { field: 'refundable', before: 5000, after: 3000 }]));

    const event = await mcpCall(agent, 'audit_get_event', { eventId: refund.eventId });
    expect(event.event).toMatchObject({ amountMinor: 2000, currency: 'GBP', category: 'finance', approvalId: proposalId, target: { type: 'donation', id: donationId } });
    expect(event.chain.hash).toMatch(/^[0-9a-f]{64}$/);

    // Filters: action prefix, on-behalf-of, approvals only.
    const refunds = await mcpCall(agent, 'audit_list_events', { actionPrefix: 'giving.donation.', limit: 10 });
    expect(refunds.events.map((e: any) => e.action)).toEqual(['giving.donation.refund', 'giving.donation.adjust']);
    const approved = await mcpCall(agent, 'audit_list_agent_actions', { approvedOnly: true });
    expect(approved.events.map((e: any) => e.id)).toEqual([refund.eventId]);
    // Another organisation sees none of it: the id behaves as missing.
    const foreign = await otherMcp.callTool({ name: 'audit_get_event', arguments: { eventId: refund.eventId } }, CallToolResultSchema);
    expect(foreign.isError).toBe(true);
    expect(JSON.parse((foreign.content as Array<{ text: string }>)[0]!.text).error.code).toBe('not_found');
    expect((await mcpCall(otherMcp, 'audit_get_entity_history', { targetId: donationId })).entries).toEqual([]);
  });

  it('pages with a cursor and filters by outcome and time', async () => {
    const first = await mcpCall(agent, 'audit_list_events', { limit: 5 });
    const second = await mcpCall(agent, 'audit_list_events', { limit: 5, cursor: first.nextCursor });
    expect(first.events).toHaveLength(5);
    // Newest first in chain order, by number (seq 40 before seq 9).
    const all = await mcpCall(agent, 'audit_list_events', { limit: 100 });
    const seqs = all.events.map((e: any) => e.seq);
    expect(seqs.length).toBeGreaterThan(20);
    expect(seqs).toEqual([...seqs].sort((a: number, b: number) => b - a));
    expect(first.events[0].seq).toBe(seqs[0]);
    expect(second.events[0].seq).toBe(first.events[4].seq - 1);
    expect((await mcpCall(agent, 'audit_list_events', { outcome: 'failed' })).events).toEqual([]);
    expect((await mcpCall(agent, 'audit_list_events', { from: '2000-01-01T00:00:00Z', to: '2000-01-02T00:00:00Z' })).events).toEqual([]);
    const bad = await agent.callTool({ name: 'audit_list_events', arguments: { cursor: 'not-a-cursor' } }, CallToolResultSchema);
    expect(JSON.parse((bad.content as Array<{ text: string }>)[0]!.text).error.code).toBe('validation_failed');
  });

  it('erasure redacts the person in events and keeps the fact; the chain still verifies', async () => {
    const owner = await harness.createKey(org.orgId, ['people:read', 'people:write', 'people:safeguarding', 'audit:read'], 'owner', { safeguarding: true });
    const { contact } = await harness.call(owner.apiKey, 'people_create_contact', { firstName: 'Erin', lastName: 'Erasable', email: 'erin@example.org' });
    await harness.call(owner.apiKey, 'people_update_contact', { contactId: contact.id, lastName: 'Erased-Soon' });
    const before = await harness.call(owner.apiKey, 'audit_get_entity_history', { targetType: 'contact', targetId: contact.id });
    expect(JSON.stringify(before.entries)).toContain('Erased-Soon');
    await harness.call(owner.apiKey, 'people_delete_contact', { contactId: contact.id, permanent: true });
    const after = await harness.call(owner.apiKey, 'audit_get_entity_history', { targetType: 'contact', targetId: contact.id });
    const text = JSON.stringify(after.entries);
    expect(text).not.toContain('Erased-Soon');
    expect(text).not.toContain('erin@example.org');
    expect(after.entries.map((entry: any) => entry.action)).toEqual(['people.contact.create', 'people.contact.update', 'people.contact.delete']);
    expect(after.entries.slice(0, 2).every((entry: any) => entry.redacted && entry.changes.length === 0)).toBe(true);
    const event = await harness.call(owner.apiKey, 'audit_get_event', { eventId: after.entries[1].eventId });
    expect(event.event.changedFields).toEqual(expect.arrayContaining(['lastName']));
    expect((await harness.call(owner.apiKey, 'audit_verify_chain', {})).ok).toBe(true);
  });

  it('records reads of restricted pastoral notes as access events, and nothing for plain reads', async () => {
    const carer = await harness.createKey(org.orgId, ['people:read', 'people:write', 'people:safeguarding', 'audit:read'], 'admin', { safeguarding: true });
    const { contact } = await harness.call(carer.apiKey, 'people_create_contact', { firstName: 'Pat', lastName: 'Pastoral' });
    await harness.call(carer.apiKey, 'people_add_note', { contactId: contact.id, content: 'Plain hello at the door' });
    const count = async () => Number((await harness.pool.query("SELECT count(*) FROM audit_events WHERE org_id = $1 AND category = 'access'", [org.orgId])).rows[0].count);
    const before = await count();
    await harness.call(carer.apiKey, 'people_list_notes', { contactId: contact.id });
    expect(await count()).toBe(before);
    const { note } = await harness.call(carer.apiKey, 'people_add_note', { contactId: contact.id, content: 'Confided a private worry', confidentialityLevel: 'red' });
    await harness.call(carer.apiKey, 'people_list_notes', { contactId: contact.id });
    const { events } = await harness.call(carer.apiKey, 'audit_list_events', { category: 'access', targetId: contact.id });
    expect(events).toEqual([expect.objectContaining({ action: 'people.notes.list', operation: 'access', target: { type: 'contact', id: contact.id }, actor: expect.objectContaining({ userId: carer.userId }) })]);
    const event = await harness.call(carer.apiKey, 'audit_get_event', { eventId: events[0].id });
    expect(event.changes).toEqual([{ field: 'records', after: [note.id] }]);
    expect(JSON.stringify(event)).not.toContain('private worry');
  });

  it('exports need approval, are redacted and are audited themselves', async () => {
    const response = await harness.invoke(org.apiKey, 'audit_export_events', { actionPrefix: 'giving.', limit: 50 });
    expect(response.body.error).toMatchObject({ code: 'approval_required' });
    const proposalId = response.body.error!.details.proposalId as string;
    const decided = await harness.call(admin.apiKey, 'platform_approve_proposal', { proposalId });
    expect(decided.execution.status).toBe('succeeded');
    const exported = decided.execution.result.events as any[];
    expect(exported.map((e) => e.action)).toEqual(['giving.donation.refund', 'giving.donation.adjust']);
    expect(exported.every((e) => !('summary' in e))).toBe(true);
    const exports = await mcpCall(agent, 'audit_list_events', { category: 'export' });
    expect(exports.events).toEqual([expect.objectContaining({ action: 'audit.events.export', approvalId: proposalId, target: { type: 'export', id: 'audit_events' } })]);
  });

  it('shows tampering: a changed, removed or altered event breaks the chain', async () => {
    const tamperOrg = await harness.createOrg({ name: 'Tamper Test' });
    for (let i = 0; i < 4; i += 1) await harness.call(tamperOrg.apiKey, 'people_create_contact', { firstName: `T${i}`, lastName: 'Amper' });
    expect((await harness.call(tamperOrg.apiKey, 'audit_verify_chain', {})).ok).toBe(true);
    // Only a superuser bypassing the triggers can do this; the chain still tells.
    const bypass = (sql: string) => withTransaction(harness.pool, async (db) => {
      await db.query('SET LOCAL session_replication_role = replica');
      await db.query(sql, [tamperOrg.orgId]);
    });
    await bypass("UPDATE audit_events SET target_id = 'someone-else' WHERE org_id = $1 AND seq = 2");
    let check = await harness.call(tamperOrg.apiKey, 'audit_verify_chain', {});
    expect(check.problems).toEqual([expect.objectContaining({ seq: 2, problem: 'hash_mismatch' })]);
    await bypass("UPDATE audit_events SET action_summary = 'forged' WHERE org_id = $1 AND seq = 1");
    check = await harness.call(tamperOrg.apiKey, 'audit_verify_chain', {});
    expect(check.problems).toEqual(expect.arrayContaining([expect.objectContaining({ seq: 1, problem: 'personal_data_altered' })]));
    await bypass('DELETE FROM audit_events WHERE org_id = $1 AND seq = 3');
    check = await harness.call(tamperOrg.apiKey, 'audit_verify_chain', {});
    expect(check.problems).toEqual(expect.arrayContaining([expect.objectContaining({ seq: 4, problem: 'gap' })]));
    await bypass('DELETE FROM audit_events WHERE org_id = $1 AND seq = 4');
    check = await harness.call(tamperOrg.apiKey, 'audit_verify_chain', {});
    expect(check.problems).toEqual(expect.arrayContaining([expect.objectContaining({ seq: 3, problem: 'missing_after' })]));
  });

  it('keeps finance events six years plus the current one', async () => {
    const retentionOrg = await harness.createOrg({ name: 'Retention Test' });
    const insert = (category: string, at: string) => harness.pool.query(
      `INSERT INTO audit_events (org_id, tool, workflow_id, action, operation, category, created_at) VALUES ($1, 'test_probe', $2, 'test.probe.insert', 'create', $3, $4)`,
      [retentionOrg.orgId, `probe-${category}-${at}`, category, at]);
    await insert('general', '2019-06-01T12:00:00Z');
    await insert('finance', '2019-12-31T12:00:00Z');
    await insert('finance', '2020-01-01T12:00:00Z');
    await insert('general', '2022-06-01T12:00:00Z');
    await insert('general', '2023-01-02T12:00:00Z');
    await purgeAuditEvents(harness.pool, new Date('2026-11-28T00:00:00Z'));
    const { rows } = await harness.pool.query('SELECT category, created_at, redacted_at FROM audit_events WHERE org_id = $1 ORDER BY seq', [retentionOrg.orgId]);
    // Finance from 2020 on is kept (six whole years after it, plus 2026); the expired general event behind it is redacted, not removed.
    expect(rows.map((row) => `${row.category} ${row.created_at.toISOString().slice(0, 10)} ${row.redacted_at ? 'redacted' : 'kept'}`))
      .toEqual(['finance 2020-01-01 kept', 'general 2022-06-01 redacted', 'general 2023-01-02 kept']);
    // The oldest go first: what remains still verifies from its first event.
    expect((await harness.call(retentionOrg.apiKey, 'audit_verify_chain', {})).ok).toBe(true);
  });
  it('records writes refused at the door and writes that failed inside their workflow, with who tried and the error, and nothing for a refused read', async () => {
    const refusedOrg = await harness.createOrg({ name: 'Refusals Test' });
    const reader = await harness.createKey(refusedOrg.orgId, ['people:read'], 'staff');
    const readerMcp = await harness.mcpClient(reader.apiKey);
    try {
      // An API key over MCP: refused in-band by the tool caller.
      expect((await mcpRefusal(readerMcp, 'people_create_contact', { firstName: 'Nobody' })).code).toBe('insufficient_scope');
      // The invoke bridge: refused by the scope-challenge middleware before the caller.
      const bridged = await fetch(`${harness.url}/api/agent/invoke`, {
        method: 'POST', headers: { authorization: `Bearer ${reader.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tool: 'people_add_contact_tags', arguments: { contactId: '00000000-0000-4000-8000-000000000001', tagIds: [] } }),
      });
      expect(bridged.status).toBe(403);
      // A refused read leaves nothing (a read that succeeds leaves nothing either).
      expect((await mcpRefusal(readerMcp, 'giving_list_funds', {})).code).toBe('insufficient_scope');
      // A write that ran and failed: the owner's key, a contact that does not exist.
      const ghost = '00000000-0000-4000-8000-00000000beef';
      expect((await harness.invoke(refusedOrg.apiKey, 'people_update_contact', { contactId: ghost, firstName: 'Ghost' })).body).toMatchObject({ ok: false, error: { code: 'not_found' } });

      const denied = await harness.call(refusedOrg.apiKey, 'audit_list_events', { outcome: 'denied' });
      expect(denied.events.map((e: any) => e.tool).sort()).toEqual(['people_add_contact_tags', 'people_create_contact']);
      for (const event of denied.events) {
        expect(event).toMatchObject({ outcome: 'denied', errorCode: 'insufficient_scope', actor: { kind: 'agent', credentialId: reader.keyId, onBehalfOfUserId: reader.userId } });
        // Arguments of a refused call were never parsed: none is kept.
        expect(event.changedFields).toEqual(['error']);
      }
      const failed = await harness.call(refusedOrg.apiKey, 'audit_list_events', { outcome: 'failed' });
      expect(failed.events).toHaveLength(1);
      expect(failed.events[0]).toMatchObject({ tool: 'people_update_contact', errorCode: 'not_found', target: { type: 'contact', id: ghost } });
      expect(failed.events[0].changedFields).toEqual(expect.arrayContaining(['firstName', 'error']));
      expect((await harness.call(refusedOrg.apiKey, 'audit_list_events', { limit: 100 })).events).toHaveLength(3);
      // They joined the chain like every other event.
      expect((await harness.call(refusedOrg.apiKey, 'audit_verify_chain', {})).ok).toBe(true);
    } finally {
      await readerMcp.close();
    }
  });

  describe('proposal decisions', () => {
    let church: TestOrg;
    let mcp: McpClient;
    let decider: { apiKey: string; keyId: string; userId: string };

    beforeAll(async () => {
      church = await harness.createOrg({ name: 'Proposal Parish' });
      mcp = await harness.mcpClient(church.apiKey);
      decider = await harness.createKey(church.orgId, ['platform:read', 'platform:write', 'audit:read', 'audit:export'], 'admin');
    });

    afterAll(async () => {
      await mcp?.close();
    });

    const eventsOf = async (proposalId: string) => (await mcpCall(mcp, 'audit_list_events', { targetType: 'proposal', targetId: proposalId, limit: 100 })).events;

    it('records a proposal that expired as one system event, and the chain still verifies', async () => {
      const proposalId = randomUUID();
      const args = { donationId: randomUUID(), amount: 1500, reason: 'Gave twice' };
      const handle = await harness.temporal.workflow.start('proposalWorkflow', {
        taskQueue: harness.taskQueue,
        workflowId: `proposal-${proposalId}`,
        args: [{
          orgId: church.orgId, proposalId, ttlMs: 1000,
          create: {
            action: { tool: 'giving_refund_donation', args, argsHash: actionHashOf('giving_refund_donation', args) },
            summary: 'Refund £15', agent: null, proposedBy: { userId: church.ownerUserId, credentialId: null }, dedupeKey: null,
          },
        }],
      });
      expect(await handle.result() as ProposalDecisionResult).toEqual({ proposalId, status: 'expired', execution: null });

      const events = await eventsOf(proposalId);
      expect(events.map((event: any) => event.action)).toEqual(['platform.proposal.expire', 'platform.proposal.create']);
      expect(events[0]).toMatchObject({
        action: 'platform.proposal.expire', operation: 'decide', tool: 'job:proposal_expiry', workflowId: `proposal-${proposalId}`, outcome: 'success',
        actor: { kind: 'system', userId: null, onBehalfOfUserId: null, credentialId: null }, target: { type: 'proposal', id: proposalId },
        // A refund's decision is kept as long as the refund's own records would be.
        category: 'finance', amountMinor: 1500, approvalId: null, summary: 'Refund £15',
      });
      // The workflow inserted this one itself: its creation names the person its input named (no credential was passed).
      expect(events[1]).toMatchObject({
        operation: 'create', tool: 'giving_refund_donation', workflowId: `proposal-${proposalId}`, category: 'finance', amountMinor: 1500, summary: 'Refund £15',
        actor: { kind: 'agent', userId: church.ownerUserId, onBehalfOfUserId: church.ownerUserId, credentialId: null, credentialKind: null },
      });
      const { changes } = await mcpCall(mcp, 'audit_get_event', { eventId: events[0].id });
      expect(changes).toEqual(expect.arrayContaining([
        { field: 'status', before: 'pending', after: 'expired' }, { field: 'tool', after: 'giving_refund_donation' },
        { field: 'proposedByUserId', after: church.ownerUserId }, { field: 'agent', after: null },
        { field: 'argsHash', after: actionHashOf('giving_refund_donation', args) }, { field: 'reason', after: 'Not decided before it expired' },
      ]));
      expect(await mcpCall(mcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
    });

    it('records a person\'s approval and rejection with their credential, once each', async () => {
      const ask = async () => {
        const asked = await harness.invoke(church.apiKey, 'audit_export_events', { actionPrefix: 'platform.', limit: 10 });
        expect(asked.body.error).toMatchObject({ code: 'approval_required' });
        return asked.body.error!.details.proposalId as string;
      };
      const approvedId = await ask();
      const rejectedId = await ask();
      expect((await harness.call(decider.apiKey, 'platform_approve_proposal', { proposalId: approvedId })).execution.status).toBe('succeeded');
      await harness.call(decider.apiKey, 'platform_reject_proposal', { proposalId: rejectedId, reason: 'Not this week' });
      // Deciding again is refused and records nothing more.
      expect((await harness.invoke(decider.apiKey, 'platform_reject_proposal', { proposalId: approvedId })).body.error?.code).toBe('conflict');

      const actor = { kind: 'agent', userId: decider.userId, onBehalfOfUserId: decider.userId, credentialId: decider.keyId, credentialKind: 'api_key' };
      // Each proposal's events: its creation, then its decision.
      expect((await eventsOf(approvedId)).map((event: any) => event.action)).toEqual(['platform.proposal.approve', 'platform.proposal.create']);
      expect((await eventsOf(rejectedId)).map((event: any) => event.action)).toEqual(['platform.proposal.reject', 'platform.proposal.create']);
      const decisionsOf = async (proposalId: string) => (await eventsOf(proposalId)).filter((event: any) => event.operation === 'decide');
      const approved = await decisionsOf(approvedId);
      expect(approved).toEqual([expect.objectContaining({
        action: 'platform.proposal.approve', tool: 'platform_approve_proposal', workflowId: `proposal-${approvedId}`, actor: expect.objectContaining(actor), category: 'general',
      })]);
      expect(approved[0].scopes).toEqual(['audit:export', 'audit:read', 'platform:read', 'platform:write']);
      const rejected = await decisionsOf(rejectedId);
      expect(rejected).toEqual([expect.objectContaining({ action: 'platform.proposal.reject', tool: 'platform_reject_proposal', actor: expect.objectContaining(actor) })]);
      expect((await mcpCall(mcp, 'audit_get_event', { eventId: rejected[0].id })).changes).toEqual(expect.arrayContaining([
        { field: 'status', before: 'pending', after: 'rejected' }, { field: 'reason', after: 'Not this week' },
      ]));
      // The approved export's own event names the proposal it carried out; the decision carried none out.
      const carriedOut = (await mcpCall(mcp, 'audit_list_agent_actions', { approvedOnly: true })).events;
      expect(carriedOut.map((event: any) => [event.action, event.approvalId])).toEqual([['audit.events.export', approvedId]]);
      expect(await mcpCall(mcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
    });

    it('records a gated call becoming a proposal once, with the calling credential, however often the call is repeated', async () => {
      const proposer = await harness.createKey(church.orgId, ['audit:read', 'audit:export'], 'admin');
      const proposerMcp = await harness.mcpClient(proposer.apiKey);
      try {
        const args = { actionPrefix: 'people.', limit: 5 };
        const refusal = await mcpRefusal(proposerMcp, 'audit_export_events', args, { approvalWaitMs: 300 });
        expect(refusal.code).toBe('approval_required');
        const proposalId = refusal.details.proposalId as string;
        const events = await eventsOf(proposalId);
        expect(events).toEqual([expect.objectContaining({
          action: 'platform.proposal.create', operation: 'create', tool: 'audit_export_events', workflowId: `proposal-${proposalId}`, outcome: 'success',
          actor: expect.objectContaining({ kind: 'agent', userId: proposer.userId, onBehalfOfUserId: proposer.userId, credentialId: proposer.keyId, credentialKind: 'api_key' }),
          scopes: ['audit:export', 'audit:read'], target: { type: 'proposal', id: proposalId }, approvalId: null, category: 'general',
        })]);
        const { proposal } = await harness.call(decider.apiKey, 'platform_get_proposal', { proposalId });
        expect(events[0].summary).toBe(proposal.summary);
        const { changes } = await mcpCall(mcp, 'audit_get_event', { eventId: events[0].id });
        expect(changes).toEqual(expect.arrayContaining([
          { field: 'status', after: 'pending' }, { field: 'tool', after: 'audit_export_events' },
          { field: 'argsHash', after: actionHashOf('audit_export_events', proposal.action.arguments) },
          { field: 'proposedByUserId', after: proposer.userId }, { field: 'proposedByCredentialId', after: proposer.keyId },
          { field: 'agent', after: null }, { field: 'expiresAt', after: proposal.expiresAt },
        ]));

        // The same call with one idempotency key, twice over the bridge: one proposal, one creation.
        const again = async () => (await harness.invoke(proposer.apiKey, 'audit_export_events', args, { 'Idempotency-Key': `export-${proposalId}` })).body.error!.details.proposalId as string;
        const keyed = await again();
        expect(await again()).toBe(keyed);
        expect((await eventsOf(keyed)).map((event: any) => event.action)).toEqual(['platform.proposal.create']);

        await harness.call(decider.apiKey, 'platform_reject_proposal', { proposalId });
        await harness.call(decider.apiKey, 'platform_reject_proposal', { proposalId: keyed });
        expect((await eventsOf(proposalId)).map((event: any) => event.action)).toEqual(['platform.proposal.reject', 'platform.proposal.create']);
        expect(await mcpCall(mcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
      } finally {
        await proposerMcp.close();
      }
    });
  });

  describe('outreach decisions', () => {
    let parish: TestOrg;
    let mcp: McpClient;
    let editor: { apiKey: string; keyId: string; userId: string };
    let approver: { apiKey: string; keyId: string; userId: string };
    let editorMcp: McpClient;
    let approverMcp: McpClient;

    beforeAll(async () => {
      parish = await harness.createOrg({ name: 'Outreach Parish' });
      mcp = await harness.mcpClient(parish.apiKey);
      editor = await harness.createKey(parish.orgId, ['people:read', 'people:write'], 'staff');
      approver = await harness.createKey(parish.orgId, ['people:read', 'people:write', 'audit:read'], 'admin');
      editorMcp = await harness.mcpClient(editor.apiKey);
      approverMcp = await harness.mcpClient(approver.apiKey);
    });

    afterAll(async () => {
      await mcp?.close();
      await editorMcp?.close();
      await approverMcp?.close();
    });

    /** The decisions' events on an item (its outbox moves, job:outbox, are the outbox's), newest first. */
    const decisionsOf = async (outreachId: string) => (await mcpCall(mcp, 'audit_list_events', { targetType: 'outreach', targetId: outreachId, limit: 100 }))
      .events.filter((event: any) => event.tool !== 'job:outbox');
    const actorOf = (key: { keyId: string; userId: string }) => expect.objectContaining({
      kind: 'agent', userId: key.userId, onBehalfOfUserId: key.userId, credentialId: key.keyId, credentialKind: 'api_key',
    });

    it('records each edit, approval, decline and cancel once, by the deciding credential, naming the item and its contact', async () => {
      const { contact } = await mcpCall(mcp, 'people_create_contact', { firstName: 'Olwen', lastName: 'Outreach', email: 'olwen@example.org' });
      const queue = async () => (await mcpCall(mcp, 'people_create_outreach', { contactId: contact.id, channel: 'email', subject: 'Thinking of you', body: 'Hello Olwen, first draft' })).item;
      const first = await queue();
      const second = await queue();
      const third = await queue();

      // Edit: the changed fields with their previous values; the body by reference only, never its words.
      const newBody = 'Hello Olwen, we are holding you in our prayers this week';
      expect((await mcpCall(editorMcp, 'people_edit_outreach', { outreachId: first.id, body: newBody })).item.contentVersion).toBe(2);
      // The same content again changes nothing, and records nothing.
      expect((await mcpCall(editorMcp, 'people_edit_outreach', { outreachId: first.id, body: newBody })).item.contentVersion).toBe(2);
      const edits = await decisionsOf(first.id);
      expect(edits).toEqual([expect.objectContaining({
        action: 'people.outreach.edit', operation: 'update', tool: 'people_edit_outreach', workflowId: `outreach-${first.id}`, outcome: 'success',
        actor: actorOf(editor), scopes: ['people:read', 'people:write'], target: { type: 'outreach', id: first.id },
      })]);
      const edit = await mcpCall(mcp, 'audit_get_event', { eventId: edits[0].id });
      expect(edit.changes.map((change: any) => change.field).sort()).toEqual(['body', 'version']);
      expect(edit.changes).toEqual(expect.arrayContaining([{ field: 'version', before: 1, after: 2 }]));
      expect(edit.changes.find((change: any) => change.field === 'body')).toEqual({ field: 'body', before: { ref: expect.stringMatching(/^sha256:/) }, after: { ref: expect.stringMatching(/^sha256:/) } });
      expect(JSON.stringify(edit)).not.toContain('holding you');
      expect(JSON.stringify(edit)).not.toContain('first draft');

      // Approve (by another credential), decline with a reason, cancel.
      await mcpCall(approverMcp, 'people_approve_outreach', { outreachId: first.id, contentVersion: 2 });
      await mcpCall(approverMcp, 'people_decline_outreach', { outreachId: second.id, reason: 'Not the right moment' });
      await mcpCall(editorMcp, 'people_cancel_outreach', { outreachId: third.id });
      // The same person deciding the same again is answered with the item as it stands and records nothing more.
      expect((await mcpCall(approverMcp, 'people_decline_outreach', { outreachId: second.id })).item.status).toBe('declined');
      expect((await mcpCall(editorMcp, 'people_cancel_outreach', { outreachId: third.id })).item.status).toBe('cancelled');

      const approvals = await decisionsOf(first.id);
      expect(approvals.map((event: any) => event.action)).toEqual(['people.outreach.approve', 'people.outreach.edit']);
      expect(approvals[0]).toMatchObject({ operation: 'decide', tool: 'people_approve_outreach', workflowId: `outreach-${first.id}`, actor: actorOf(approver), scopes: ['audit:read', 'people:read', 'people:write'] });
      expect((await mcpCall(mcp, 'audit_get_event', { eventId: approvals[0].id })).changes).toEqual(expect.arrayContaining([
        { field: 'status', before: 'pending_review', after: 'approved' }, { field: 'version', after: 2 },
      ]));
      const declines = await decisionsOf(second.id);
      expect(declines).toEqual([expect.objectContaining({ action: 'people.outreach.decline', operation: 'decide', tool: 'people_decline_outreach', actor: actorOf(approver) })]);
      expect((await mcpCall(mcp, 'audit_get_event', { eventId: declines[0].id })).changes).toEqual(expect.arrayContaining([
        { field: 'status', before: 'pending_review', after: 'declined' }, { field: 'reason', after: 'Not the right moment' },
      ]));
      const cancels = await decisionsOf(third.id);
      expect(cancels).toEqual([expect.objectContaining({ action: 'people.outreach.cancel', tool: 'people_cancel_outreach', actor: actorOf(editor) })]);
      expect((await mcpCall(mcp, 'audit_get_event', { eventId: cancels[0].id })).changes).toEqual(expect.arrayContaining([{ field: 'status', before: 'pending_review', after: 'cancelled' }]));

      // A retried step (the activity again, after its transaction committed) finds its decision applied and records nothing more.
      const decisionCount = async () => Number((await harness.pool.query(
        "SELECT count(*) FROM audit_events WHERE org_id = $1 AND target_type = 'outreach' AND tool <> 'job:outbox'", [parish.orgId])).rows[0].count);
      expect(await decisionCount()).toBe(4);
      await withTransaction(harness.pool, (db) => closeOutreach(db, parish.orgId, third.id, 'cancelled', editor.userId, null));
      await withTransaction(harness.pool, (db) => closeOutreach(db, parish.orgId, second.id, 'declined', approver.userId, 'Not the right moment'));
      expect(await decisionCount()).toBe(4);
      expect(await mcpCall(mcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });

      // They name the contact: erasing Olwen redacts every one of them and keeps the fact.
      await mcpCall(mcp, 'people_delete_contact', { contactId: contact.id, permanent: true });
      const kept = [...await decisionsOf(first.id), ...await decisionsOf(second.id), ...await decisionsOf(third.id)];
      expect(kept).toHaveLength(4);
      expect(kept.every((event: any) => event.redacted)).toBe(true);
      expect(await mcpCall(mcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
    });
  });
});
