import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall as call, mcpRefusal as refusal } from '../../../test/helpers/mcp-calls';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';
import { fund, gift, giver } from './gift-aid-fixtures';

/**
 * Giving statements by email over MCP, against a real SMTP server: each giver with an address gets
 * exactly one email, a second run sends nothing twice, a giver without an address is listed, and
 * after a mail server outage a resend sends what failed, once.
 */
/** The message's text, with quoted-printable soft breaks and escapes undone (escapes are UTF-8 bytes). */
function decoded(raw: string): string {
  const bytes = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

describe('giving statements by email', () => {
  let harness: Harness;
  let smtp: TestSmtpServer;
  let org: TestOrg;
  let mcp: McpClient;
  const people: Record<string, string> = {};
  const saved = { ...process.env };

  const mailTo = (email: string) => smtp.delivered.filter((mail) => mail.to.includes(email));
  const emailSends = async () => (await harness.pool.query(
    "SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'email_sends'", [org.orgId])).rows[0].n as number;
  const setEmail = (contactId: string, email: string) => harness.pool.query('UPDATE contacts SET email = $2 WHERE id = $1', [contactId, email]);

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    process.env.SMTP_FROM = 'Steward <statements@st-bede.example>';
    // Its own stack: the worker sends through the SMTP server this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Bede & Friends' });
    mcp = await harness.mcpClient(org.apiKey);
    const general = await fund(harness.pool, org.orgId, 'General');
    const roof = await fund(harness.pool, org.orgId, 'Roof Appeal');
    people.ann = await giver(harness.pool, org.orgId, { firstName: 'Ann', lastName: 'Able' });
    people.ben = await giver(harness.pool, org.orgId, { firstName: 'Ben', lastName: 'Baker' });
    people.cal = await giver(harness.pool, org.orgId, { firstName: 'Cal', lastName: 'Noaddress' });
    await setEmail(people.ann, 'ann@example.org');
    await setEmail(people.ben, 'ben@example.org');
    await gift(harness.pool, org.orgId, { contactId: people.ann, parts: [{ fundId: general, amount: 12_345 }], receivedOn: '2025-05-01' });
    await gift(harness.pool, org.orgId, { contactId: people.ann, parts: [{ fundId: roof, amount: 2_000 }], receivedOn: '2025-06-01' });
    await gift(harness.pool, org.orgId, { contactId: people.ben, parts: [{ fundId: general, amount: 500 }], receivedOn: '2025-07-01' });
    await gift(harness.pool, org.orgId, { contactId: people.cal, parts: [{ fundId: general, amount: 999 }], receivedOn: '2025-07-02' });
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await smtp?.close();
    process.env = saved;
  });

  let runId: string;

  it('emails each giver with an address exactly once, with their gifts and total; lists the giver without one', async () => {
    const generated = await call(mcp, 'giving_generate_statements', { taxYear: '2025-26', delivery: 'email' });
    runId = generated.run.id;
    expect(generated.run).toMatchObject({ delivery: 'email', statementCount: 3 });
    expect(generated.givers.withoutEmail).toEqual([people.cal]);
    expect(generated.unchanged).toEqual([]);

    expect(mailTo('ann@example.org')).toHaveLength(1);
    expect(mailTo('ben@example.org')).toHaveLength(1);
    expect(smtp.delivered).toHaveLength(2);
    const ann = decoded(mailTo('ann@example.org')[0].raw);
    expect(ann).toContain('St Bede & Friends');
    expect(ann).toContain('tax year 2025-26');
    expect(ann).toMatch(/2025-05-01 {2}General {2}£123\.45/);
    expect(ann).toMatch(/2025-06-01 {2}Roof Appeal {2}£20\.00/);
    expect(ann).toContain('Total: £143.45');
    expect(ann).not.toContain('Gift Aid claimed');
    // The HTML alternative, with the organisation's name escaped.
    expect(ann).toContain('Content-Type: text/html');
    expect(ann).toContain('<strong>St Bede &amp; Friends</strong>');
    expect(decoded(mailTo('ben@example.org')[0].raw)).toContain('Total: £5.00');

    const annStatement = generated.statements.find((s: any) => s.contactId === people.ann);
    expect(mailTo('ann@example.org')[0].idempotencyKey).toBe(`giving-statement-${annStatement.id}`);
    const got = await call(mcp, 'giving_get_statement', { statementId: annStatement.id });
    expect(got.statement.delivery).toMatchObject({ status: 'sent', error: null, sentAt: expect.any(String) });
    const listed = await call(mcp, 'giving_list_statements', { runId });
    const byContact = Object.fromEntries(listed.statements.map((s: any) => [s.contactId, s.delivery.status]));
    expect(byContact).toEqual({ [people.ann]: 'sent', [people.ben]: 'sent', [people.cal]: 'no_email' });
    expect(await emailSends()).toBe(2);
  });

  it('generating again for the same period, or resending the run, sends nothing twice', async () => {
    // A gift's Gift Aid status moving on is not in the email, so the statement is unchanged.
    await harness.pool.query("UPDATE giving_donations SET gift_aid_status = 'in_claim' WHERE contact_id = $1", [people.ann]);
    const again = await call(mcp, 'giving_generate_statements', { taxYear: '2025-26', delivery: 'email' });
    expect(again.statements).toEqual([]);
    expect(again.unchanged.map((s: any) => [s.contactId, s.delivery.status, s.runId]).sort()).toEqual([
      [people.ann, 'sent', runId], [people.ben, 'sent', runId], [people.cal, 'no_email', runId],
    ].sort());
    expect(again.givers.withoutEmail).toEqual([people.cal]);
    const resent = await call(mcp, 'giving_resend_statements', { runId });
    expect(resent.statements).toHaveLength(3);
    expect(smtp.delivered).toHaveLength(2);
    expect(await emailSends()).toBe(2);
    const rows = await harness.pool.query("SELECT count(*)::int AS n FROM outbox_messages WHERE org_id = $1 AND source_kind = 'giving.statement'", [org.orgId]);
    expect(rows.rows[0].n).toBe(2);
  });

  it('a giver given an address later gets theirs on a resend, once', async () => {
    await setEmail(people.cal, 'cal@example.org');
    const cal = (await call(mcp, 'giving_list_statements', { runId, contactId: people.cal })).statements[0];
    await call(mcp, 'giving_resend_statements', { statementId: cal.id });
    await call(mcp, 'giving_resend_statements', { statementId: cal.id });
    expect(mailTo('cal@example.org')).toHaveLength(1);
    expect(decoded(mailTo('cal@example.org')[0].raw)).toContain('Total: £9.99');
    expect(await emailSends()).toBe(3);
  });

  it('a giver whose gifts changed since gets a new statement, emailed once', async () => {
    const general = (await harness.pool.query("SELECT id FROM giving_funds WHERE org_id = $1 AND name = 'General'", [org.orgId])).rows[0].id;
    await gift(harness.pool, org.orgId, { contactId: people.ben, parts: [{ fundId: general, amount: 250 }], receivedOn: '2025-08-01' });
    const again = await call(mcp, 'giving_generate_statements', { taxYear: '2025-26', delivery: 'email' });
    expect(again.statements.map((s: any) => s.contactId)).toEqual([people.ben]);
    expect(again.unchanged.map((s: any) => s.contactId).sort()).toEqual([people.ann, people.cal].sort());
    expect(mailTo('ben@example.org')).toHaveLength(2);
    expect(decoded(mailTo('ben@example.org')[1].raw)).toContain('Total: £7.50');
    expect(mailTo('ann@example.org')).toHaveLength(1);
    expect(await emailSends()).toBe(4);
  });

  it('a mail server outage leaves statements failed with the reason; a resend sends each once, never to an erased giver', async () => {
    const port = process.env.SMTP_PORT;
    const closed = await startSmtpServer();
    const deadPort = closed.port;
    await closed.close();
    process.env.SMTP_PORT = String(deadPort);
    let outage;
    try {
      outage = await call(mcp, 'giving_generate_statements', { periodStart: '2025-05-01', periodEnd: '2025-07-01', delivery: 'email' });
    } finally {
      process.env.SMTP_PORT = port;
    }
    expect(outage.statements.map((s: any) => s.contactId).sort()).toEqual([people.ann, people.ben].sort());
    const failed = (await call(mcp, 'giving_list_statements', { runId: outage.run.id })).statements;
    for (const statement of failed) expect(statement.delivery).toMatchObject({ status: 'failed', error: { code: 'send_failed' }, sentAt: null });
    expect(smtp.delivered).toHaveLength(4);

    // Ben is erased before the resend: his statement is never emailed.
    await harness.pool.query('UPDATE contacts SET deleted_at = now() WHERE id = $1', [people.ben]);
    const resent = await call(mcp, 'giving_resend_statements', { runId: outage.run.id });
    expect(resent.statements.every((s: any) => s.delivery.status === 'failed')).toBe(true);
    await call(mcp, 'giving_resend_statements', { runId: outage.run.id });
    expect(mailTo('ann@example.org')).toHaveLength(2);
    expect(mailTo('ben@example.org')).toHaveLength(2);
    const after = Object.fromEntries((await call(mcp, 'giving_list_statements', { runId: outage.run.id })).statements
      .map((s: any) => [s.contactId, [s.delivery.status, s.delivery.error?.code ?? null]]));
    expect(after).toEqual({ [people.ann]: ['sent', null], [people.ben]: ['failed', 'contact_erased'] });
    // Each email counted once: the failed attempt's row was counted when made, the resend added none.
    expect(await emailSends()).toBe(6);
    const failedOnly = await call(mcp, 'giving_list_statements', { deliveryStatus: 'failed' });
    expect(failedOnly.statements.map((s: any) => s.contactId)).toEqual([people.ben]);
  });

  it("another organisation's statement and run ids are not found, and nothing is sent", async () => {
    const other = await harness.createOrg({ name: 'Elsewhere' });
    const theirs = await harness.mcpClient(other.apiKey);
    try {
      const statement = (await call(mcp, 'giving_list_statements', { runId })).statements[0].id;
      for (const args of [{ runId }, { statementId: statement }]) {
        expect(await refusal(theirs, 'giving_resend_statements', args)).toMatchObject({ code: 'not_found' });
      }
      expect(await refusal(theirs, 'giving_get_statement', { statementId: statement })).toMatchObject({ code: 'not_found' });
      expect(await refusal(theirs, 'giving_generate_statements', { taxYear: '2025-26', contactIds: [people.ann], delivery: 'email' })).toMatchObject({ code: 'not_found' });
      expect(smtp.delivered).toHaveLength(5);
    } finally {
      await theirs.close();
    }
  });

  it('refuses both or neither of runId and statementId', async () => {
    expect(await refusal(mcp, 'giving_resend_statements', {})).toMatchObject({ code: 'validation_failed' });
    expect(await refusal(mcp, 'giving_resend_statements', { runId, statementId: runId })).toMatchObject({ code: 'validation_failed' });
  });
});
