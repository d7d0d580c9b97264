import { randomUUID } from 'node:crypto';
import { Harness, type TestOrg } from '../helpers/harness';

/** Everything organisation `orgId` owns, row by row, for a before/after comparison. */
async function snapshotOf(harness: Harness, orgId: string) {
  const q = async (sql: string) => (await harness.pool.query(sql, [orgId])).rows;
  return {
    contacts: await q('SELECT * FROM contacts WHERE org_id = $1 ORDER BY id'),
    notes: await q('SELECT * FROM notes WHERE org_id = $1 ORDER BY id'),
    timeline: await q('SELECT * FROM timeline_entries WHERE org_id = $1 ORDER BY id'),
    usage: await q('SELECT * FROM usage_events WHERE org_id = $1 ORDER BY id'),
    results: await q('SELECT workflow_id, tool, result FROM tool_call_results WHERE org_id = $1 ORDER BY workflow_id'),
  };
}

/** An error body with the id it mentions blanked, so a foreign id and a missing one compare equal. */
function anonymised(error: unknown, id: string) {
  return JSON.parse(JSON.stringify(error).split(id).join('<id>'));
}

describe('two organisations: B can neither see nor change A', () => {
  let harness: Harness;
  let a: TestOrg;
  let b: TestOrg;
  let contactId: string;
  let deletedContactId: string;

  beforeAll(async () => {
    harness = await Harness.start();
    a = await harness.createOrg({ name: 'Church A' });
    b = await harness.createOrg({ name: 'Church B' });
    const created = await harness.call(a.apiKey, 'people_create_contact', {
      firstName: 'Alice', lastName: 'Anderson', email: 'alice@a.example', phone: '+44 7700 900001', status: 'subscribed', membershipStatus: 'member',
    });
    contactId = created.contact.id;
    await harness.call(a.apiKey, 'people_add_note', { contactId, content: 'Team note about Alice', followUpDate: '2031-01-01' });
    await harness.call(a.apiKey, 'people_add_note', { contactId, content: 'Red note about Alice', confidentialityLevel: 'red' });
    const soft = await harness.call(a.apiKey, 'people_create_contact', { firstName: 'Sam', lastName: 'Softdeleted', email: 'sam@a.example' });
    deletedContactId = soft.contact.id;
    await harness.call(a.apiKey, 'people_add_note', { contactId: deletedContactId, content: 'Note about Sam' });
    await harness.call(a.apiKey, 'people_delete_contact', { contactId: deletedContactId });
  });

  afterAll(async () => {
    await harness?.close();
  });

  const byContact = (id: () => string) => [
    ['people_get_contact', () => ({ contactId: id() })],
    ['people_update_contact', () => ({ contactId: id(), firstName: 'Mallory', email: 'mallory@b.example' })],
    ['people_update_contact (clear a field)', () => ({ contactId: id(), phone: null })],
    ['people_delete_contact', () => ({ contactId: id() })],
    ['people_delete_contact (permanent)', () => ({ contactId: id(), permanent: true })],
    ['people_add_note', () => ({ contactId: id(), content: 'Planted by B', privacy: 'public' })],
    ['people_list_notes', () => ({ contactId: id() })],
    ['people_list_care_timeline', () => ({ contactId: id() })],
  ] as Array<[string, () => Record<string, unknown>]>;

  describe.each([
    ['a live contact', () => contactId],
    ['a soft-deleted contact', () => deletedContactId],
  ])('on A\'s %s', (_label, id) => {
    it.each(byContact(id))('%s with B\'s key is not_found and changes nothing', async (label, args) => {
      const tool = label.split(' ')[0];
      const before = await snapshotOf(harness, a.orgId);
      const response = await harness.invoke(b.apiKey, tool, args());
      expect(response.status).toBe(404);
      expect(response.body.ok).toBe(false);
      expect(response.body.error!.code).toBe('not_found');
      expect(JSON.stringify(response.body)).not.toMatch(/Alice|Anderson|alice@a\.example|Sam|Softdeleted/);
      expect(await snapshotOf(harness, a.orgId)).toEqual(before);

      // A foreign id behaves exactly like one that never existed.
      const missing = randomUUID();
      const control = await harness.invoke(b.apiKey, tool, { ...args(), contactId: missing });
      expect(control.status).toBe(response.status);
      expect(anonymised(control.body, missing)).toEqual(anonymised(response.body, id()));
    });

    it('through platform_execute_workflow_tool too', async () => {
      const before = await snapshotOf(harness, a.orgId);
      for (const [label, args] of byContact(id)) {
        const response = await harness.invoke(b.apiKey, 'platform_execute_workflow_tool', { toolName: label.split(' ')[0], arguments: args() });
        expect(response.status).toBe(404);
        expect(response.body.error!.code).toBe('not_found');
      }
      expect(await snapshotOf(harness, a.orgId)).toEqual(before);
    });
  });

  it('people_search_contacts with B\'s key finds none of A\'s people', async () => {
    for (const query of ['alice', 'Anderson', 'alice@a.example', '7700 900001', 'sam']) {
      const out = await harness.call(b.apiKey, 'people_search_contacts', { query });
      expect(out.contacts).toEqual([]);
      expect(out.count).toBe(0);
    }
    // Control: A finds Alice with the same query.
    const own = await harness.call(a.apiKey, 'people_search_contacts', { query: 'alice' });
    expect(own.contacts.map((c: any) => c.id)).toEqual([contactId]);
  });

  it('people_search_contacts with B\'s key and filters only (no text) finds none of A\'s people', async () => {
    const filtered = await harness.call(b.apiKey, 'people_search_contacts', { status: 'subscribed', membershipStatus: 'member' });
    expect(filtered.contacts).toEqual([]);
    expect(filtered.count).toBe(0);
  });

  it('people_list_contacts with B\'s key lists none of A\'s people', async () => {
    const out = await harness.call(b.apiKey, 'people_list_contacts', {});
    expect(out.contacts).toEqual([]);
    const filtered = await harness.call(b.apiKey, 'people_list_contacts', { membershipStatus: 'member' });
    expect(filtered).toMatchObject({ contacts: [], total: 0 });
    const own = await harness.call(a.apiKey, 'people_list_contacts', { membershipStatus: 'member' });
    expect(own.total).toBe(1);
  });

  it('B\'s duplicate check never reports A\'s contacts', async () => {
    const out = await harness.call(b.apiKey, 'people_create_contact', { firstName: 'Alice', lastName: 'Anderson', email: 'alice@a.example', phone: '+44 7700 900001' });
    expect(out.likelyDuplicates).toEqual([]);
    expect(out.contact.id).not.toBe(contactId);
    // B's own contact, in B's organisation; A's Alice untouched.
    const rows = await harness.pool.query('SELECT org_id FROM contacts WHERE id = $1', [out.contact.id]);
    expect(rows.rows[0].org_id).toBe(b.orgId);
    await harness.call(b.apiKey, 'people_delete_contact', { contactId: out.contact.id, permanent: true });
  });

  it('platform_overview and platform_usage with B\'s key count only B', async () => {
    const overview = await harness.call(b.apiKey, 'platform_overview', {});
    expect(overview.organisation.id).toBe(b.orgId);
    expect(overview.organisation.name).toBe('Church B');
    expect(overview.contacts.total).toBe(0);
    expect(overview.contacts.byStatus).toEqual({});
    expect(overview.openFollowUps).toBe(0);
    const usage = await harness.call(b.apiKey, 'platform_usage', {});
    expect(usage.features.find((f: any) => f.feature === 'contacts').used).toBe(0);
    // Control: A sees its own.
    const own = await harness.call(a.apiKey, 'platform_overview', {});
    expect(own.contacts.total).toBe(1);
    expect(own.openFollowUps).toBe(1);
  });

  it('the same idempotency key in two organisations means two different calls', async () => {
    const key = `shared-${randomUUID()}`;
    const args = { tool: 'people_create_contact', arguments: { email: 'same-key@example.org' } };
    const post = (apiKey: string) => fetch(`${harness.url}/api/agent/invoke`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'idempotency-key': key }, body: JSON.stringify(args),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const fromA = await post(a.apiKey);
    const fromB = await post(b.apiKey);
    expect(fromA.status).toBe(200);
    expect(fromB.status).toBe(200);
    expect(fromB.body.result.contact.id).not.toBe(fromA.body.result.contact.id);
    const owners = await harness.pool.query('SELECT id, org_id FROM contacts WHERE email = $1 ORDER BY org_id', ['same-key@example.org']);
    expect(owners.rows.map((r) => r.org_id).sort()).toEqual([a.orgId, b.orgId].sort());
  });

  it('over MCP too: B cannot read A\'s contact or notes', async () => {
    const mcp = await harness.mcpClient(b.apiKey);
    try {
      for (const name of ['people_get_contact', 'people_list_notes', 'people_list_care_timeline']) {
        const result = await mcp.callTool({ name, arguments: { contactId } });
        expect(result.isError).toBe(true);
        expect(JSON.parse((result.content as any)[0].text).error.code).toBe('not_found');
      }
    } finally {
      await mcp.close();
    }
  });

  it('A\'s data is intact after everything B tried', async () => {
    const contact = await harness.call(a.apiKey, 'people_get_contact', { contactId });
    expect(contact.contact).toMatchObject({ firstName: 'Alice', email: 'alice@a.example', phone: '+44 7700 900001' });
    const notes = await harness.call(a.apiKey, 'people_list_notes', { contactId });
    expect(notes.notes.map((n: any) => n.content)).toEqual(['Red note about Alice', 'Team note about Alice']);
    const timeline = await harness.call(a.apiKey, 'people_list_care_timeline', { contactId });
    expect(timeline.entries.map((e: any) => e.kind)).toEqual(['note_added', 'note_added', 'contact_created']);
    const soft = await harness.pool.query('SELECT deleted_at FROM contacts WHERE id = $1', [deletedContactId]);
    expect(soft.rows).toHaveLength(1);
    const samNotes = await harness.pool.query('SELECT count(*)::int AS n FROM notes WHERE contact_id = $1', [deletedContactId]);
    expect(samNotes.rows[0].n).toBe(1);
    const planted = await harness.pool.query("SELECT count(*)::int AS n FROM notes WHERE content = 'Planted by B'");
    expect(planted.rows[0].n).toBe(0);
  });
});
