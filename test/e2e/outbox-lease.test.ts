import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { createOutreachSender, type OutreachSender, type SendOutcome } from '../../modules/people/activities/outreach-sender';
import { createOutbox } from '../../activities/outbox';
import { NotDeliveredError, type MessageProvider } from '../../activities/provider-kit';
import { SmtpEmailProvider, smtpErrorProvesNotAccepted } from '../../activities/providers';
import { withTenantTransaction, withTransaction } from '../../db/pool';
import { suppressAddress } from '../../modules/channels/audience/services';
import { closeOutreach, createOutreachItem, markOutreachApproved } from '../../modules/people/outreach';
import { createOrganisation } from '../../modules/platform/orgs';
import { createMember } from '../../modules/platform/users';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { FakeProvider, sleep, until } from '../helpers/fake-provider';

function expectInProgress(result: PromiseSettledResult<SendOutcome>): void {
  expect(result.status).toBe('rejected');
  const failure = (result as PromiseRejectedResult).reason;
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: 'send_in_progress', nonRetryable: false });
  expect(Number(failure.nextRetryDelay)).toBeGreaterThan(0);
}

/**
 * The outbox claim at the service level, with fake providers standing in for
 * SMTP (not idempotent) and the HTTP API (idempotent), and several senders
 * standing in for several workers sharing one database.
 */
describe('outbox lease', () => {
  let db: TestDatabase;
  let orgId: string;
  let userId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ orgId, userId } = await withTransaction(db.pool, async (tx) => {
      const org = await createOrganisation(tx, { name: 'Lease Chapel' });
      const owner = await createMember(tx, { orgId: org.id, email: `owner-${org.id}@test.local`, role: 'owner' });
      return { orgId: org.id, userId: owner.userId };
    }));
  });

  afterAll(async () => {
    await db?.drop();
  });

  /** An approved email to a new contact. */
  async function approvedItem(): Promise<{ itemId: string; contactId: string }> {
    return withTransaction(db.pool, async (tx) => {
      const contactId = randomUUID();
      await tx.query('INSERT INTO contacts (id, org_id, first_name, email) VALUES ($1, $2, $3, $4)', [contactId, orgId, 'Lena', `lena-${contactId}@example.org`]);
      const item = await createOutreachItem(tx, orgId, { id: randomUUID(), contactId, channel: 'email', subject: 'Hello', body: 'Thinking of you', source: 'manual' });
      await markOutreachApproved(tx, orgId, item.id, item.contentVersion, userId);
      return { itemId: item.id, contactId };
    });
  }

  function senderFor(provider: MessageProvider, timeoutMs = 2000): OutreachSender {
    return createOutreachSender({ pool: db.pool, outbox: createOutbox({ pool: db.pool, providerFor: () => provider, sendTimeoutMs: () => timeoutMs }) });
  }

  async function outbox(itemId: string) {
    return (await db.pool.query('SELECT status, attempts, claimed_until, reviewed_by_user_id FROM outbox_messages WHERE outreach_id = $1', [itemId])).rows[0];
  }

  async function usage(itemId: string): Promise<number> {
    return (await db.pool.query('SELECT count(*)::int AS n FROM usage_events WHERE idempotency_key = $1', [`outreach-${itemId}`])).rows[0].n;
  }

  /** The outbox's moves of an item in the audit trail, oldest first: the verb, the status it moved from and to, and who it was for. */
  async function trail(itemId: string): Promise<Array<{ verb: string; from: unknown; to: unknown; outcome: string; actor: string; onBehalfOf: string | null }>> {
    const { rows } = await db.pool.query(`SELECT action, changes, outcome, actor_kind, on_behalf_of_user_id FROM audit_events
      WHERE org_id = $1 AND tool = 'job:outbox' AND target_type = 'outreach' AND target_id = $2 ORDER BY seq`, [orgId, itemId]);
    return rows.map((row) => ({
      verb: row.action.replace('people.outreach.', ''), from: row.changes?.fields?.status?.before, to: row.changes?.fields?.status?.after,
      outcome: row.outcome, actor: row.actor_kind, onBehalfOf: row.on_behalf_of_user_id,
    }));
  }

  /** What a worker that died mid-call leaves behind: its lease runs out with the row still 'sending'. */
  async function expireLease(itemId: string): Promise<void> {
    await db.pool.query("UPDATE outbox_messages SET claimed_until = now() - interval '1 second' WHERE outreach_id = $1 AND status = 'sending'", [itemId]);
  }

  /**
   * A send whose provider call never answers (held) and whose worker is taken to have died: its lease is run out,
   * so the next attempt finds the row still 'sending'. Gives back the stuck attempt (wrapped, so awaiting this does not
   * wait for it), which settles once the provider opens or its call times out.
   */
  async function sendThatDies(itemId: string, provider: FakeProvider, timeoutMs?: number): Promise<{ attempt: Promise<SendOutcome> }> {
    provider.hold = true;
    const stuck = senderFor(provider, timeoutMs).send(orgId, itemId);
    await until(() => provider.calls.length === 1);
    await expireLease(itemId);
    return { attempt: stuck };
  }

  it('lets only one of many concurrent attempts call the provider; the others are told to retry after the lease', async () => {
    const { itemId } = await approvedItem();
    const provider = new FakeProvider(false);
    provider.hold = true;
    // Eight "workers" try at the same moment.
    const attempts = Array.from({ length: 8 }, () => senderFor(provider).send(orgId, itemId));
    await until(() => provider.calls.length === 1);
    await sleep(300);
    // More attempts while the first is inside the provider call.
    const late = await Promise.allSettled([senderFor(provider).send(orgId, itemId), senderFor(provider).send(orgId, itemId)]);
    late.forEach(expectInProgress);
    expect(await outbox(itemId)).toMatchObject({ status: 'sending', attempts: 1 });
    // Cancelling is refused while the attempt holds the row.
    await expect(withTransaction(db.pool, (tx) => closeOutreach(tx, orgId, itemId, 'cancelled', userId, null))).rejects.toMatchObject({ code: 'conflict' });

    provider.open();
    const settled = await Promise.allSettled(attempts);
    const sent = settled.filter((r) => r.status === 'fulfilled');
    expect(sent).toHaveLength(1);
    expect((sent[0] as PromiseFulfilledResult<SendOutcome>).value.status).toBe('sent');
    settled.filter((r) => r.status === 'rejected').forEach(expectInProgress);
    expect(provider.calls).toHaveLength(1);
    expect(provider.maxInside).toBe(1);

    // A retry after the send finds it done and calls nothing.
    expect((await senderFor(provider).send(orgId, itemId)).status).toBe('sent');
    expect(provider.calls).toHaveLength(1);
    expect(await outbox(itemId)).toMatchObject({ status: 'sent', attempts: 1, claimed_until: null });
    expect(await usage(itemId)).toBe(1);
  });

  it('does not call a non-idempotent provider again after an attempt died; a person releases it and it goes once more with the same key', async () => {
    const { itemId } = await approvedItem();
    const provider = new FakeProvider(false);
    const { attempt: dead } = await sendThatDies(itemId, provider);

    const parked = await senderFor(provider).send(orgId, itemId);
    expect(parked.status).toBe('needs_review');
    expect(parked.item).toMatchObject({ status: 'approved', sendError: { code: 'needs_review' } });
    expect(parked.item.sendError!.message).toContain('may already have been delivered');
    expect((await senderFor(provider).send(orgId, itemId)).status).toBe('needs_review');
    expect(provider.calls).toHaveLength(1);
    expect(await outbox(itemId)).toMatchObject({ status: 'needs_review', attempts: 1 });

    // The stuck call gives up at its timeout; it leaves the row to the person.
    await expect(dead).resolves.toMatchObject({ status: 'needs_review' });
    expect(await outbox(itemId)).toMatchObject({ status: 'needs_review' });

    const sender = senderFor(provider);
    const released = await sender.releaseForResend(orgId, itemId, userId);
    expect(released.sendError).toBeNull();
    provider.open();
    expect((await sender.send(orgId, itemId)).status).toBe('sent');
    expect(provider.calls).toHaveLength(2);
    expect(provider.calls[1].idempotencyKey).toBe(provider.calls[0].idempotencyKey);
    expect(await outbox(itemId)).toMatchObject({ status: 'sent', attempts: 2, reviewed_by_user_id: userId });
    expect(await usage(itemId)).toBe(1);
    // Each move once: claimed, held once its lease ran out (the dead attempt giving up later moves nothing), released for
    // the person who decided, claimed again from pending, sent.
    const system = { actor: 'system', onBehalfOf: null };
    expect(await trail(itemId)).toEqual([
      { verb: 'attempt', from: null, to: 'sending', outcome: 'success', ...system },
      { verb: 'hold', from: 'sending', to: 'needs_review', outcome: 'failed', ...system },
      { verb: 'release', from: 'needs_review', to: 'pending', outcome: 'success', actor: 'system', onBehalfOf: userId },
      { verb: 'attempt', from: 'pending', to: 'sending', outcome: 'success', ...system },
      { verb: 'send', from: 'sending', to: 'sent', outcome: 'success', ...system },
    ]);
  });

  it('records the send when a call the lease had given up on still gets its answer', async () => {
    const { itemId } = await approvedItem();
    const provider = new FakeProvider(false);
    const { attempt: slow } = await sendThatDies(itemId, provider, 5000);
    expect((await senderFor(provider).send(orgId, itemId)).status).toBe('needs_review');
    provider.open();
    // The provider did take it: that is recorded over needs_review, and nothing is sent again.
    expect((await slow).status).toBe('sent');
    expect(await outbox(itemId)).toMatchObject({ status: 'sent' });
    expect(provider.calls).toHaveLength(1);
  });

  it('calls an idempotent provider again after an attempt died, with the same key', async () => {
    const { itemId } = await approvedItem();
    const provider = new FakeProvider(true);
    const { attempt: dead } = await sendThatDies(itemId, provider);
    const retry = senderFor(provider).send(orgId, itemId);
    await until(() => provider.calls.length === 2);
    provider.open();
    expect((await retry).status).toBe('sent');
    expect(provider.calls.map((call) => call.idempotencyKey)).toEqual([`outreach-${itemId}`, `outreach-${itemId}`]);
    expect(await outbox(itemId)).toMatchObject({ status: 'sent', attempts: 2 });
    expect((await dead).status).toBe('sent');
    expect(await usage(itemId)).toBe(1);
  });

  it('keeps a hand-over in flight when the attempt finishing it is refused: that refusal proves nothing about the first call', async () => {
    const { itemId } = await approvedItem();
    const provider = new FakeProvider(true);
    const { attempt: dead } = await sendThatDies(itemId, provider);
    // The first call's answer never came; the attempt finishing it is told the provider is busy.
    provider.hold = false;
    provider.failWith = new NotDeliveredError('The messaging provider answered 503');
    await expect(senderFor(provider).send(orgId, itemId)).rejects.toBeInstanceOf(NotDeliveredError);
    const afterRefusal = await outbox(itemId);
    expect(afterRefusal).toMatchObject({ status: 'sending', attempts: 2 });
    expect(new Date(afterRefusal.claimed_until).getTime()).toBeLessThanOrEqual(Date.now());
    // The next attempt still finishes the same hand-over under the same key, and it is counted once.
    provider.failWith = null;
    expect((await senderFor(provider).send(orgId, itemId)).status).toBe('sent');
    expect(provider.calls.map((call) => call.idempotencyKey)).toEqual(Array(3).fill(`outreach-${itemId}`));
    provider.open();
    expect((await dead).status).toBe('sent');
    expect(await usage(itemId)).toBe(1);
    // The refused attempt gave its claim up with the hand-over still open (sending, lease ended), and the next one finished it.
    const moves = await trail(itemId);
    expect(moves.map(({ verb, from, to }) => [verb, from, to])).toEqual([
      ['attempt', null, 'sending'], ['attempt', 'sending', 'sending'], ['retry', 'sending', 'sending'], ['attempt', 'sending', 'sending'], ['send', 'sending', 'sent'],
    ]);
    const { rows } = await db.pool.query(`SELECT changes FROM audit_events WHERE org_id = $1 AND target_id = $2 AND action = 'people.outreach.retry'`, [orgId, itemId]);
    expect(rows[0].changes.fields).toMatchObject({ error: { after: 'provider_error' }, leaseEnded: { after: true }, attempt: { after: 2 } });
  });

  it('parks a non-idempotent send whose outcome is unknown, and retries one that provably did not arrive', async () => {
    const unknown = await approvedItem();
    const provider = new FakeProvider(false);
    provider.failWith = new Error('Connection closed unexpectedly');
    expect((await senderFor(provider).send(orgId, unknown.itemId)).status).toBe('needs_review');
    expect((await senderFor(provider).send(orgId, unknown.itemId)).status).toBe('needs_review');
    expect(provider.calls).toHaveLength(1);

    const refused = await approvedItem();
    const definite = new FakeProvider(false);
    definite.failWith = new NotDeliveredError('The mail server did not take the message: 451 try later');
    await expect(senderFor(definite).send(orgId, refused.itemId)).rejects.toBeInstanceOf(NotDeliveredError);
    expect(await outbox(refused.itemId)).toMatchObject({ status: 'pending', attempts: 1 });
    definite.failWith = null;
    expect((await senderFor(definite).send(orgId, refused.itemId)).status).toBe('sent');
    expect(definite.calls).toHaveLength(2);
    // The attempt that provably did not arrive gave its claim back to pending, recorded as a failed attempt to retry.
    expect((await trail(refused.itemId)).map(({ verb, from, to, outcome }) => ({ verb, from, to, outcome }))).toEqual([
      { verb: 'attempt', from: null, to: 'sending', outcome: 'success' },
      { verb: 'retry', from: 'sending', to: 'pending', outcome: 'failed' },
      { verb: 'attempt', from: 'pending', to: 'sending', outcome: 'success' },
      { verb: 'send', from: 'sending', to: 'sent', outcome: 'success' },
    ]);
    expect((await trail(unknown.itemId)).map(({ verb }) => verb)).toEqual(['attempt', 'hold']);
  });

  it('re-checks consent and approval on every attempt, not only the first', async () => {
    const { itemId, contactId } = await approvedItem();
    const provider = new FakeProvider(false);
    provider.failWith = new NotDeliveredError('The mail server did not take the message: 421 busy');
    await expect(senderFor(provider).send(orgId, itemId)).rejects.toBeInstanceOf(NotDeliveredError);
    expect(await outbox(itemId)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await usage(itemId)).toBe(1);

    // Unsubscribed after the outbox row exists (the channels module's suppression list, which the dispatch check reads):
    // the next attempt is refused and calls nothing.
    provider.failWith = null;
    const { email } = (await db.pool.query('SELECT email FROM contacts WHERE id = $1', [contactId])).rows[0];
    await withTenantTransaction(db.pool, orgId, (tx) => suppressAddress(tx, orgId, { channel: 'email', address: email, reason: 'unsubscribe', source: 'test' }));
    const refused = await senderFor(provider).send(orgId, itemId);
    expect(refused).toMatchObject({ status: 'refused', error: { code: 'suppressed' } });
    expect(refused.item.sendError).toMatchObject({ code: 'suppressed' });
    expect(provider.calls).toHaveLength(1);

    // Cancelled meanwhile: not sent either.
    await withTransaction(db.pool, (tx) => closeOutreach(tx, orgId, itemId, 'cancelled', userId, 'No longer needed'));
    await db.pool.query("UPDATE contacts SET status = 'non_subscribed' WHERE id = $1", [contactId]);
    expect((await senderFor(provider).send(orgId, itemId)).status).toBe('not_approved');
    expect(provider.calls).toHaveLength(1);
  });

  it('classifies SMTP failures: refused or before the data proves nothing arrived, a dropped connection does not', async () => {
    expect(smtpErrorProvesNotAccepted({ code: 'EMESSAGE', responseCode: 451 })).toBe(true);
    expect(smtpErrorProvesNotAccepted({ code: 'EENVELOPE' })).toBe(true);
    expect(smtpErrorProvesNotAccepted({ code: 'ESOCKET', originalCode: 'ECONNREFUSED' })).toBe(true);
    expect(smtpErrorProvesNotAccepted({ code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT' })).toBe(true);
    expect(smtpErrorProvesNotAccepted({ code: 'ETIMEDOUT', timeoutType: 'SOCKET_TIMEOUT' })).toBe(false);
    expect(smtpErrorProvesNotAccepted({ code: 'ECONNECTION', command: 'CONN' })).toBe(false);
    expect(smtpErrorProvesNotAccepted(new Error('Message sending aborted'))).toBe(false);

    // A real connection refused: nothing was sent.
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const smtp = new SmtpEmailProvider({ host: '127.0.0.1', port, secure: false, from: 'Steward <office@lease.example>', rejectUnauthorized: false });
    expect(smtp.idempotent).toBe(false);
    await expect(smtp.send({ idempotencyKey: 'outreach-x', channel: 'email', to: 'a@example.org', subject: 'Hi', body: 'Hello' }))
      .rejects.toBeInstanceOf(NotDeliveredError);
  });
});
