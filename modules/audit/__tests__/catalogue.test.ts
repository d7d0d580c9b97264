import fs from 'node:fs';
import path from 'node:path';
import { proposalActionWorkflowId } from '../../../core/approvals';
import type { ToolPlan } from '../../../core/tool-plan';
import { allTools } from '../../catalogue';
import { actionOf, auditEventOf, operationOf } from '../record';

const ORG = '8d1c3f2e-1111-4a4a-9b9b-0123456789ab';
const planOf = (name: string, module: string, args: Record<string, unknown>, effect: ToolPlan['policy']['effect']): ToolPlan => ({
  tool: name, module, args, argsHash: 'x',
  principal: { orgId: ORG, userId: 'b7e1d2c3-2222-4b4b-8c8c-0123456789ab', role: 'owner', scopes: ['giving:write', 'audit:read'], intent: null, credentialId: 'c1a2b3c4-3333-4c4c-9d9d-0123456789ab', credentialKind: 'api_key' },
  policy: { effect, meter: null, timeline: false, followUp: null },
});

/**
 * Every write tool leaves an audit event, proven from the one path every tool call takes rather
 * than by calling ~400 tools: the kernel's activity runs a read in a read-only transaction and
 * everything else in a write transaction that inserts the event after the tool's work and before
 * the commit (a replay returns the stored result of the call that wrote it, event included), and
 * for every write tool of the catalogue the event derives without error, named module.noun.verb.
 * audit.test.ts shows the events a sample of real calls leave (contacts, gifts, refunds, exports).
 */
describe('every write tool leaves an audit event', () => {
  const source = fs.readFileSync(path.join(__dirname, '../../../activities/tool-activities.ts'), 'utf8');
  const start = source.indexOf('function runToolOnce(');
  const body = source.slice(start, source.indexOf('\n  return {', start));

  it('the kernel has two paths only: reads read-only, every other effect writes its event in the call\'s transaction', () => {
    expect(start).toBeGreaterThan(0);
    const readBranch = body.indexOf("if (tool.effect === 'read') {");
    const writeTx = body.indexOf('return withCallTransaction(pool, plan, async (db, org) => {', readBranch);
    expect(readBranch).toBeGreaterThan(0);
    expect(writeTx).toBeGreaterThan(readBranch);
    const write = body.slice(writeTx);
    // Inside the write transaction: the only early return is the stored result of a call already committed (with its event).
    const returns = [...write.matchAll(/\breturn\b[^;]*;/g)].map((match) => match[0]);
    expect(returns).toEqual(['return withCallTransaction(pool, plan, async (db, org) => {\n        const done = await queryOne<{ result: unknown }>(db, \'SELECT result FROM tool_call_results WHERE workflow_id = $1\', [workflowId]);', 'return done.result;', 'return result;'].map((text) => expect.stringContaining(text.split('\n')[0]!)) as never);
    const run = write.indexOf('await runInside(');
    const insert = write.indexOf('await insertAuditEvent(db, auditEventOf(plan, tool, workflowId, result, before));');
    expect(run).toBeGreaterThan(0);
    expect(insert).toBeGreaterThan(run);
    expect(insert).toBeLessThan(write.lastIndexOf('return result;'));
  });

  const writes = allTools().filter((tool) => tool.effect !== 'read');
  it('covers the write tools of every module', () => {
    expect(writes.length).toBeGreaterThan(100);
    expect(new Set(writes.map((tool) => tool.module)).size).toBeGreaterThan(8);
  });

  it.each(writes.map((tool) => [tool.name, tool] as const))('%s: its event derives as module.noun.verb', (_name, tool) => {
    // The generic derivation (a declared ToolAudit reads the tool's real output: audit.test.ts runs one).
    const generic = { ...tool, audit: undefined };
    const event = auditEventOf(planOf(tool.name, tool.module, {}, tool.effect), generic, 'call-x', null, null);
    expect(event.action).toBe(actionOf(tool.name, tool.module));
    expect(event.action.startsWith(`${tool.module}.`)).toBe(true);
    expect(event.operation).toBe(operationOf(tool.name, tool.module));
    expect(event).toMatchObject({ orgId: ORG, tool: tool.name, outcome: 'success', actorKind: 'agent', approvalId: null });
  });

  it('names the approval an approved proposal carried out', () => {
    const proposalId = '0f0e0d0c-4444-4d4d-8e8e-0123456789ab';
    const tool = writes.find((candidate) => candidate.name === 'giving_refund_donation')!;
    const event = auditEventOf(planOf(tool.name, tool.module, { donationId: proposalId, reason: 'x' }, 'write'), tool, proposalActionWorkflowId(ORG, proposalId),
      { refunds: [{ amount: 700 }], donation: { refunded: 700, refundable: 300, currency: 'GBP' } }, { refunded: 0, refundable: 1000 });
    expect(event.approvalId).toBe(proposalId);
    expect(event).toMatchObject({ targetType: 'donation', targetId: proposalId, category: 'finance', amountMinor: 700, currency: 'GBP' });
    expect(event.changes?.fields.refunded).toEqual({ before: 0, after: 700 });
  });

  it('keeps secrets and message bodies by reference only', () => {
    const tool = writes.find((candidate) => candidate.name === 'people_create_contact')!;
    const event = auditEventOf(planOf(tool.name, tool.module, { firstName: 'Ann', body: 'private words', apiKey: 'sk_live_secret' }, 'write'), tool, 'call-y', null, null);
    const text = JSON.stringify(event.changes);
    expect(text).toContain('Ann');
    expect(text).not.toContain('private words');
    expect(text).not.toContain('sk_live_secret');
    expect(event.changes?.fields.body?.after).toEqual({ ref: expect.stringMatching(/^sha256:[0-9a-f]{32}$/) });
  });
});
