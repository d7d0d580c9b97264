import { CALL_PROGRESS_CHANNEL, CallProgressFeed, relayedOf } from '../../temporal/call-progress-relay';
import { watchCallProgress, type CallProgress } from '../../temporal/call-progress';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { eventually } from '../helpers/sandbox-stack';

/**
 * What an API accepts from the progress channel: only a report shaped as the relay sends it (any
 * process may NOTIFY on the channel), with figures that are numbers and a line of bounded length.
 */
describe('relayed call progress', () => {
  it('reads a report as the relay sends it', () => {
    expect(relayedOf(JSON.stringify({ workflowId: 'w-1', done: 200, total: 400, message: 'Imported 200 of 400 rows' })))
      .toEqual({ workflowId: 'w-1', done: 200, total: 400, message: 'Imported 200 of 400 rows' });
    expect(relayedOf(JSON.stringify({ workflowId: 'w-1', done: 3 }))).toEqual({ workflowId: 'w-1', done: 3 });
  });

  it('ignores what is not a report', () => {
    for (const payload of [undefined, '', 'not json', 'null', '[]', '{"done":1}', '{"workflowId":"w","done":"1"}', '{"workflowId":7,"done":1}']) {
      expect(relayedOf(payload)).toBeUndefined();
    }
  });

  it('drops a total that is not a number and cuts an overlong line', () => {
    const relayed = relayedOf(JSON.stringify({ workflowId: 'w', done: 1, total: 'many', message: 'x'.repeat(1000) }));
    expect(relayed).toEqual({ workflowId: 'w', done: 1, message: 'x'.repeat(200) });
  });
});

/**
 * The relay over a real Postgres: a report sent while a caller in this process waits reaches that
 * call's listener only; waiters share one listening connection, closed when the last one stops.
 */
describe('call progress through Postgres', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  const listeningConnections = () => db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN steward_call_progress%'",
  ).then((r) => r.rows[0]!.n);

  it('hands a relayed report to the waiting call only, over one shared connection closed by the last waiter', async () => {
    const feed = new CallProgressFeed(db.pool);
    const mine: CallProgress[] = [];
    const theirs: CallProgress[] = [];
    const stopMine = watchCallProgress('call-mine', (p) => mine.push(p));
    const stopTheirs = watchCallProgress('call-theirs', (p) => theirs.push(p));
    const first = await feed.watch();
    const second = await feed.watch();
    expect(await listeningConnections()).toBe(1);

    // As a worker in another process sends it (no listener of that process hears the call).
    await db.pool.query('SELECT pg_notify($1, $2)', [CALL_PROGRESS_CHANNEL, JSON.stringify({ workflowId: 'call-mine', done: 5, total: 10, message: 'Imported 5 of 10 rows' })]);
    await db.pool.query('SELECT pg_notify($1, $2)', [CALL_PROGRESS_CHANNEL, 'not a report']);
    await eventually(async () => mine.length, (n) => n === 1);
    expect(mine).toEqual([{ done: 5, total: 10, message: 'Imported 5 of 10 rows' }]);
    expect(theirs).toEqual([]);

    first();
    expect(await listeningConnections()).toBe(1);
    second();
    expect(await eventually(listeningConnections, (n) => n === 0)).toBe(0);
    stopMine();
    stopTheirs();
  });
});
