import { withTransaction } from '../../../db/pool';
import { mergeContacts } from '../../people/merge';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { publicPost, viewerToken } from './stack';

/**
 * Merging two contacts reaches every live column that names one (chat messages, poll votes, prayer
 * requests, viewer sessions): rows move to the kept contact. Erasure deletes what the person wrote
 * (chat, prayer requests) and unlinks their votes and sessions, which stay counted anonymously.
 * The viewer page has no sign-in yet, so the rows are linked to the contacts here in SQL.
 */
describe('live rows under merge and erasure', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Merge Live' });
  });

  afterAll(async () => harness?.close());

  const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);
  const TABLES = ['live_chat', 'live_poll_votes', 'live_prayer_requests', 'live_viewer_sessions'];
  const countFor = async (contactId: string) => {
    const counts: Record<string, number> = {};
    for (const table of TABLES) counts[table] = (await harness.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE contact_id = $1`, [contactId])).rows[0].n;
    return counts;
  };

  it('moves a duplicate\'s viewer records to the kept contact; erasure removes what they wrote', async () => {
    const keep = (await call('people_create_contact', { firstName: 'Lydia', lastName: 'Kept' })).contact.id;
    const dup = (await call('people_create_contact', { firstName: 'Lydia', lastName: 'Kept' })).contact.id;
    const { stream } = await call('live_schedule_stream', { title: 'Merge stream', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 60 });
    const { poll } = await call('live_create_poll', { streamId: stream.id, question: 'Merge?', options: ['Yes', 'No'], anonymous: false });
    const base = `${harness.url}/live/api/${org.orgId}/${stream.id}`;
    for (const [who, token] of [[keep, viewerToken('keep')], [dup, viewerToken('dup')]] as const) {
      expect((await publicPost(base, '/chat', { viewerToken: token, name: 'Lydia', body: `Hello from ${token}` })).status).toBe(200);
      expect((await publicPost(base, '/prayer', { viewerToken: token, body: `Prayer from ${token}` })).status).toBe(200);
      expect((await publicPost(base, `/polls/${poll.id}/vote`, { viewerToken: token, optionId: 'o1' })).status).toBe(200);
      expect((await publicPost(base, '/session', { viewerToken: token })).status).toBe(200);
      for (const table of TABLES) {
        await harness.pool.query(`UPDATE ${table} SET contact_id = $1 WHERE viewer_key = (SELECT viewer_key FROM live_chat WHERE body = $2)`, [who, `Hello from ${token}`]);
      }
    }
    const one = { live_chat: 1, live_poll_votes: 1, live_prayer_requests: 1, live_viewer_sessions: 1 };
    expect(await countFor(dup)).toEqual(one);

    await withTransaction(harness.pool, (db) => mergeContacts(db, org.orgId, keep, dup, null));
    expect(await countFor(dup)).toEqual({ live_chat: 0, live_poll_votes: 0, live_prayer_requests: 0, live_viewer_sessions: 0 });
    expect(await countFor(keep)).toEqual({ live_chat: 2, live_poll_votes: 2, live_prayer_requests: 2, live_viewer_sessions: 2 });

    await call('people_delete_contact', { contactId: keep, permanent: true });
    expect(await countFor(keep)).toEqual({ live_chat: 0, live_poll_votes: 0, live_prayer_requests: 0, live_viewer_sessions: 0 });
    // What they wrote is gone; their votes and sessions still count, unlinked.
    expect((await call('live_list_chat', { streamId: stream.id, includeHidden: true })).messages).toEqual([]);
    expect((await call('live_list_prayer_requests', { streamId: stream.id })).requests).toEqual([]);
    expect((await call('live_get_poll_results', { pollId: poll.id })).polls[0].totalVotes).toBe(2);
    expect((await call('live_get_viewer_stats', { streamId: stream.id })).raw.sessions).toBe(2);
  });
});
