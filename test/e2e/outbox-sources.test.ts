import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createOutbox, outboxSourcesByKind, type Outbox } from '../../activities/outbox';
import type { OutboxOutcome } from '../../modules/outbox-source';
import { createOutboxActivities } from '../../activities/outbox-activities';
import type { MessageProvider } from '../../activities/provider-kit';
import { StewardError } from '../../core/errors';
import { queryOne, withTransaction } from '../../db/pool';
import { MODULES } from '../../modules';
import { defineOutboxSource, type OutboxDraft } from '../../modules/outbox-source';
import { OUTREACH_SOURCE_KIND } from '../../modules/people/outreach-delivery';
import { createOutreachItem, markOutreachApproved } from '../../modules/people/outreach';
import { createOrganisation } from '../../modules/platform/orgs';
import { createMember } from '../../modules/platform/users';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { FakeProvider, sleep, until } from '../helpers/fake-provider';

/**
 * A second kind of record through the same outbox: a made-up "notice" with its
 * own table, registered only here. Nothing in the outbox knows about outreach,
 * so a notice gets the same lease, idempotency key and single usage record.
 */
const NOTICE_KIND = 'test.notice';

interface NoticeDraft extends OutboxDraft {
  email: string;
}

const noticeSource = defineOutboxSource<NoticeDraft>({
  kind: NOTICE_KIND,
  keyOf: (id) => `notice-${id}`,
  usageTool: 'test_send_notice',
  meterFor: () => 'email_sends',
  async lock(db, orgId, id) {
    const row = await queryOne<{ status: string; email: string; subject: string; body: string }>(db,
      'SELECT status, email, subject, body FROM test_notices WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
    if (!row) throw new StewardError('not_found', `Notice ${id} was not found`);
    if (row.status === 'delivered') return { kind: 'delivered' };
    if (row.status !== 'approved') return { kind: 'not_ready' };
    return { kind: 'ready', draft: { channel: 'email', subject: row.subject, body: row.body, email: row.email } };
  },
  async recipient(_db, _orgId, draft) {
    return draft.email.endsWith('@blocked.example') ? { refused: { code: 'blocked', message: 'This address takes no notices' } } : { to: draft.email };
  },
  async delivered(db, orgId, id) {
    await db.query("UPDATE test_notices SET status = 'delivered', problem = NULL WHERE org_id = $1 AND id = $2", [orgId, id]);
  },
  async undelivered(db, orgId, id, problem) {
    await db.query('UPDATE test_notices SET problem = $3 WHERE org_id = $1 AND id = $2', [orgId, id, problem.code]);
  },
  async released(db, orgId, id) {
    await db.query('UPDATE test_notices SET problem = NULL WHERE org_id = $1 AND id = $2', [orgId, id]);
  },
});

describe('outbox with a second, non-outreach source', () => {
  let db: TestDatabase;
  let orgId: string;
  let userId: string;
  const registered = MODULES.flatMap((module) => module.outboxSources ?? []);

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE test_notices (
      id uuid PRIMARY KEY, org_id uuid NOT NULL, status text NOT NULL, email text NOT NULL, subject text NOT NULL, body text NOT NULL, problem text)`);
    ({ orgId, userId } = await withTransaction(db.pool, async (tx) => {
      const org = await createOrganisation(tx, { name: 'Notice Chapel' });
      const owner = await createMember(tx, { orgId: org.id, email: `owner-${org.id}@test.local`, role: 'owner' });
      return { orgId: org.id, userId: owner.userId };
    }));
  });

  afterAll(async () => {
    await db?.drop();
  });

  async function approvedNotice(id = randomUUID(), email = `reader-${id}@example.org`): Promise<string> {
    await db.pool.query("INSERT INTO test_notices (id, org_id, status, email, subject, body) VALUES ($1, $2, 'approved', $3, 'Rota', 'You are on the rota')", [id, orgId, email]);
    return id;
  }

  function outboxFor(provider: MessageProvider, timeoutMs = 2000): Outbox {
    return createOutbox({ pool: db.pool, providerFor: () => provider, sendTimeoutMs: () => timeoutMs, sources: [...registered, noticeSource] });
  }

  const send = (provider: MessageProvider, id: string) => outboxFor(provider).send(NOTICE_KIND, orgId, id);

  async function row(id: string) {
    return (await db.pool.query(`SELECT source_kind, status, attempts, idempotency_key, outreach_id, reviewed_by_user_id FROM outbox_messages
      WHERE org_id = $1 AND source_kind = $2 AND source_id = $3`, [orgId, NOTICE_KIND, id])).rows[0];
  }

  async function usage(id: string) {
    return (await db.pool.query('SELECT feature, units, tool FROM usage_events WHERE idempotency_key = $1', [`notice-${id}`])).rows;
  }

  async function notice(id: string) {
    return (await db.pool.query('SELECT status, problem FROM test_notices WHERE id = $1', [id])).rows[0];
  }

  it('finds sources through the registry: people declares its outreach delivery, and a kind is declared once', () => {
    expect(registered.map((source) => source.kind)).toContain(OUTREACH_SOURCE_KIND);
    expect(() => outboxSourcesByKind([noticeSource, noticeSource])).toThrow(/Two outbox sources/);
    expect(() => defineOutboxSource({ ...noticeSource, kind: 'Notice' })).toThrow(/<module>\.<record>/);
  });

  it('lets one of many concurrent attempts call the provider, and counts the notice once under its own key', async () => {
    const id = await approvedNotice();
    const provider = new FakeProvider(false);
    provider.hold = true;
    const attempts = Array.from({ length: 6 }, () => send(provider, id));
    await until(() => provider.calls.length === 1);
    await sleep(200);
    expect(await row(id)).toMatchObject({ source_kind: NOTICE_KIND, status: 'sending', attempts: 1, idempotency_key: `notice-${id}`, outreach_id: null });
    provider.open();
    const settled = await Promise.allSettled(attempts);
    const sent = settled.filter((result): result is PromiseFulfilledResult<OutboxOutcome> => result.status === 'fulfilled');
    expect(sent.map((result) => result.value)).toEqual([{ status: 'sent' }]);
    for (const result of settled.filter((r) => r.status === 'rejected')) {
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(ApplicationFailure);
      expect((result as PromiseRejectedResult).reason).toMatchObject({ type: 'send_in_progress' });
    }
    expect(provider.maxInside).toBe(1);
    expect(provider.calls.map((call) => call.idempotencyKey)).toEqual([`notice-${id}`]);
    expect(await notice(id)).toMatchObject({ status: 'delivered', problem: null });
    // A retry after it went finds it done and calls nothing.
    expect(await send(provider, id)).toEqual({ status: 'sent' });
    expect(provider.calls).toHaveLength(1);
    expect(await usage(id)).toEqual([{ feature: 'email_sends', units: 1, tool: 'test_send_notice' }]);
  });

  it('parks a send whose answer was lost for a person, and sends it again with the same key once released, still counted once', async () => {
    const id = await approvedNotice();
    const provider = new FakeProvider(false);
    provider.hold = true;
    const dead = outboxFor(provider, 300).send(NOTICE_KIND, orgId, id);
    await until(() => provider.calls.length === 1);
    await db.pool.query("UPDATE outbox_messages SET claimed_until = now() - interval '1 second' WHERE org_id = $1 AND source_id = $2 AND status = 'sending'", [orgId, id]);
    expect(await send(provider, id)).toEqual({ status: 'needs_review' });
    expect(await notice(id)).toMatchObject({ status: 'approved', problem: 'needs_review' });
    await expect(dead).resolves.toEqual({ status: 'needs_review' });
    expect(provider.calls).toHaveLength(1);

    expect(await outboxFor(provider).release(NOTICE_KIND, orgId, id, userId)).toBe(true);
    expect(await notice(id)).toMatchObject({ problem: null });
    provider.open();
    expect(await send(provider, id)).toEqual({ status: 'sent' });
    expect(provider.calls.map((call) => call.idempotencyKey)).toEqual([`notice-${id}`, `notice-${id}`]);
    expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2, reviewed_by_user_id: userId });
    expect(await usage(id)).toHaveLength(1);
  });

  it('calls an idempotent provider again after an attempt died, with the same key', async () => {
    const id = await approvedNotice();
    const provider = new FakeProvider(true);
    provider.hold = true;
    const dead = send(provider, id);
    await until(() => provider.calls.length === 1);
    await db.pool.query("UPDATE outbox_messages SET claimed_until = now() - interval '1 second' WHERE org_id = $1 AND source_id = $2 AND status = 'sending'", [orgId, id]);
    const retry = send(provider, id);
    await until(() => provider.calls.length === 2);
    provider.open();
    expect(await retry).toEqual({ status: 'sent' });
    expect(await dead).toEqual({ status: 'sent' });
    expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(await usage(id)).toHaveLength(1);
  });

  it('lets the source refuse or stop a send, and keeps a notice and an outreach item with the same id apart', async () => {
    const provider = new FakeProvider(false);
    const blocked = await approvedNotice(randomUUID(), 'someone@blocked.example');
    expect(await send(provider, blocked)).toEqual({ status: 'refused', error: { code: 'blocked', message: 'This address takes no notices' } });
    expect(await notice(blocked)).toMatchObject({ problem: 'blocked' });
    expect(await row(blocked)).toBeUndefined();

    const withdrawn = await approvedNotice();
    await db.pool.query("UPDATE test_notices SET status = 'withdrawn' WHERE id = $1", [withdrawn]);
    expect(await send(provider, withdrawn)).toEqual({ status: 'not_ready' });
    expect(provider.calls).toHaveLength(0);

    // One id, two kinds: each record has its own row, key and usage.
    const sharedId = randomUUID();
    await withTransaction(db.pool, async (tx) => {
      const contactId = randomUUID();
      await tx.query('INSERT INTO contacts (id, org_id, first_name, email) VALUES ($1, $2, $3, $4)', [contactId, orgId, 'Ada', `ada-${contactId}@example.org`]);
      const item = await createOutreachItem(tx, orgId, { id: sharedId, contactId, channel: 'email', subject: 'Hello', body: 'Thinking of you', source: 'manual' });
      await markOutreachApproved(tx, orgId, item.id, item.contentVersion, userId);
    });
    await approvedNotice(sharedId);
    expect(await outboxFor(provider).send(OUTREACH_SOURCE_KIND, orgId, sharedId)).toEqual({ status: 'sent' });
    expect(await send(provider, sharedId)).toEqual({ status: 'sent' });
    expect(provider.calls.map((call) => call.idempotencyKey)).toEqual([`outreach-${sharedId}`, `notice-${sharedId}`]);
    const rows = (await db.pool.query('SELECT source_kind, outreach_id FROM outbox_messages WHERE org_id = $1 AND source_id = $2 ORDER BY source_kind', [orgId, sharedId])).rows;
    expect(rows).toEqual([{ source_kind: OUTREACH_SOURCE_KIND, outreach_id: sharedId }, { source_kind: NOTICE_KIND, outreach_id: null }]);
  });

  it('is an activity any workflow can schedule: it heartbeats, and its failures are typed for the retry policy', async () => {
    const provider = new FakeProvider(true);
    const activities = createOutboxActivities({ outbox: createOutbox({ pool: db.pool, providerFor: () => provider, sources: [...registered, noticeSource] }) });
    const env = new MockActivityEnvironment();
    let beats = 0;
    env.on('heartbeat', () => (beats += 1));
    const id = await approvedNotice();
    provider.hold = true;
    const first = env.run(activities.sendOutboxMessage, NOTICE_KIND, orgId, id);
    await until(() => provider.calls.length === 1);
    await sleep(1200);
    expect(beats).toBeGreaterThan(0);
    // A second attempt meanwhile is told to come back once the lease has run out.
    await expect(new MockActivityEnvironment().run(activities.sendOutboxMessage, NOTICE_KIND, orgId, id))
      .rejects.toMatchObject({ type: 'send_in_progress', nonRetryable: false });
    provider.open();
    await expect(first).resolves.toEqual({ status: 'sent' });
    await expect(new MockActivityEnvironment().run(activities.sendOutboxMessage, NOTICE_KIND, orgId, randomUUID()))
      .rejects.toMatchObject({ type: 'not_found', nonRetryable: true });
  });

  it('refuses a kind no module declares', async () => {
    await expect(outboxFor(new FakeProvider(false)).send('test.unknown', orgId, randomUUID())).rejects.toMatchObject({ code: 'internal_error' });
  });
});
