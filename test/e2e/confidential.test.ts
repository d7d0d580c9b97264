import { randomUUID } from 'node:crypto';
import { ALL_SCOPES, type Scope } from '../../core/scopes';
import { Harness, type TestOrg } from '../helpers/harness';

const WITHOUT_SAFEGUARDING = ALL_SCOPES.filter((s) => s !== 'people:safeguarding') as Scope[];

describe('private and confidential notes need people:safeguarding', () => {
  let harness: Harness;
  let org: TestOrg;
  let plain: string; // every scope except people:safeguarding
  let reader: string; // people:read only
  let guardian: string; // people:read + people:safeguarding
  let contactId: string;
  const ids: Record<string, string> = {};

  const NOTES = [
    ['team', { privacy: 'team', confidentialityLevel: 'green', content: 'Team green note' }],
    ['public', { privacy: 'public', confidentialityLevel: 'green', content: 'Public green note' }],
    ['default', { content: 'Default note' }],
    ['private', { privacy: 'private', confidentialityLevel: 'green', content: 'Private note about a family matter' }],
    ['amber', { privacy: 'team', confidentialityLevel: 'amber', content: 'Amber note about health' }],
    ['red', { privacy: 'public', confidentialityLevel: 'red', content: 'Red note about a safeguarding concern' }],
  ] as const;
  const RESTRICTED = ['private', 'amber', 'red'];
  const OPEN = ['team', 'public', 'default'];

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Careful Church' });
    plain = (await harness.createKey(org.orgId, WITHOUT_SAFEGUARDING, 'admin')).apiKey;
    reader = (await harness.createKey(org.orgId, ['people:read'])).apiKey;
    guardian = (await harness.createKey(org.orgId, ['people:read', 'people:safeguarding'], 'staff', { safeguarding: true })).apiKey;
    contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Pat', lastName: 'Pastoral' })).contact.id;
    for (const [label, note] of NOTES) {
      ids[label] = (await harness.call(org.apiKey, 'people_add_note', { contactId, ...note })).note.id;
    }
  });

  afterAll(async () => {
    await harness?.close();
  });

  const restrictedIds = () => RESTRICTED.map((l) => ids[l]);
  const openIds = () => OPEN.map((l) => ids[l]);

  it('stored the notes with the privacy and confidentiality asked for (and team/green by default)', async () => {
    const { rows } = await harness.pool.query('SELECT id, privacy, confidentiality_level FROM notes WHERE contact_id = $1', [contactId]);
    const byId = Object.fromEntries(rows.map((r) => [r.id, [r.privacy, r.confidentiality_level]]));
    expect(byId[ids.default]).toEqual(['team', 'green']);
    expect(byId[ids.private]).toEqual(['private', 'green']);
    expect(byId[ids.amber]).toEqual(['team', 'amber']);
    expect(byId[ids.red]).toEqual(['public', 'red']);
  });

  describe.each([
    ['every scope but people:safeguarding', () => plain],
    ['people:read only', () => reader],
  ])('without people:safeguarding (%s)', (_label, key) => {
    it('people_list_notes hides private, amber and red notes and shows the rest', async () => {
      const { notes } = await harness.call(key(), 'people_list_notes', { contactId });
      const seen = notes.map((n: any) => n.id);
      expect(seen.sort()).toEqual(openIds().sort());
      const text = JSON.stringify(notes);
      expect(text).not.toMatch(/Private note|Amber note|Red note/);
    });

    it('people_list_care_timeline hides entries from private, amber and red notes', async () => {
      const { entries } = await harness.call(key(), 'people_list_care_timeline', { contactId });
      const noteSources = entries.filter((e: any) => e.sourceKind === 'note').map((e: any) => e.sourceId);
      expect(noteSources.sort()).toEqual(openIds().sort());
      expect(entries.some((e: any) => e.kind === 'contact_created')).toBe(true);
      expect(JSON.stringify(entries)).not.toMatch(/Private note|Amber note|Red note/);
    });

    it('a small limit never lets a restricted note in', async () => {
      const { notes } = await harness.call(key(), 'people_list_notes', { contactId, limit: 1 });
      expect(notes).toHaveLength(1);
      expect(restrictedIds()).not.toContain(notes[0].id);
    });
  });

  it('the same paths through platform_execute_workflow_tool hide them too', async () => {
    const notes = await harness.call(plain, 'platform_execute_workflow_tool', { toolName: 'people_list_notes', arguments: { contactId } });
    expect(notes.notes.map((n: any) => n.id).sort()).toEqual(openIds().sort());
    const timeline = await harness.call(plain, 'platform_execute_workflow_tool', { toolName: 'people_list_care_timeline', arguments: { contactId } });
    expect(JSON.stringify(timeline)).not.toMatch(/Private note|Amber note|Red note/);
  });

  it('the same paths over MCP hide them too', async () => {
    const mcp = await harness.mcpClient(plain);
    try {
      for (const name of ['people_list_notes', 'people_list_care_timeline']) {
        const result = await mcp.callTool({ name, arguments: { contactId } });
        expect(result.isError).toBeFalsy();
        expect(JSON.stringify(result)).not.toMatch(/Private note|Amber note|Red note/);
        expect(JSON.stringify(result)).toContain('Team green note');
      }
    } finally {
      await mcp.close();
    }
  });

  describe.each([
    ['people:read + people:safeguarding', () => guardian],
    ['every scope', () => org.apiKey],
  ])('with people:safeguarding (%s)', (_label, key) => {
    it('people_list_notes shows every note, newest first', async () => {
      const { notes } = await harness.call(key(), 'people_list_notes', { contactId });
      expect(notes.map((n: any) => n.id)).toEqual(NOTES.map(([label]) => ids[label]).reverse());
      expect(notes.find((n: any) => n.id === ids.red)).toMatchObject({ privacy: 'public', confidentialityLevel: 'red', content: 'Red note about a safeguarding concern' });
    });

    it('people_list_care_timeline shows entries from every note', async () => {
      const { entries } = await harness.call(key(), 'people_list_care_timeline', { contactId });
      const noteSources = entries.filter((e: any) => e.sourceKind === 'note').map((e: any) => e.sourceId);
      expect(noteSources.sort()).toEqual([...openIds(), ...restrictedIds()].sort());
      expect(entries.find((e: any) => e.sourceId === ids.amber).summary).toBe('Amber note about health');
    });
  });

  it('permanent delete erases the person, every note and their timeline', async () => {
    const other = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Keep', lastName: 'Me' })).contact.id;
    await harness.call(org.apiKey, 'people_add_note', { contactId: other, content: 'A note that must survive' });

    const result = await harness.call(org.apiKey, 'people_delete_contact', { contactId, permanent: true });
    expect(result).toEqual({ contactId, deleted: 'permanent', erasedNotes: NOTES.length });
    const q = async (sql: string, id: string) => (await harness.pool.query(sql, [id])).rows[0].n as number;
    expect(await q('SELECT count(*)::int AS n FROM contacts WHERE id = $1', contactId)).toBe(0);
    expect(await q('SELECT count(*)::int AS n FROM notes WHERE contact_id = $1', contactId)).toBe(0);
    expect(await q('SELECT count(*)::int AS n FROM timeline_entries WHERE contact_id = $1', contactId)).toBe(0);
    const contents = await harness.pool.query('SELECT count(*)::int AS n FROM notes WHERE content = ANY($1)', [NOTES.map(([, n]) => n.content)]);
    expect(contents.rows[0].n).toBe(0);
    // Nothing else was touched.
    expect(await q('SELECT count(*)::int AS n FROM notes WHERE contact_id = $1', other)).toBe(1);

    for (const tool of ['people_list_notes', 'people_list_care_timeline', 'people_get_contact']) {
      const response = await harness.invoke(org.apiKey, tool, { contactId });
      expect(response.status).toBe(404);
    }
  });

  it('permanent delete also erases a soft-deleted person\'s notes', async () => {
    const id = (await harness.call(org.apiKey, 'people_create_contact', { email: 'soft-then-hard@example.org' })).contact.id;
    await harness.call(org.apiKey, 'people_add_note', { contactId: id, content: 'Red before deletion', confidentialityLevel: 'red' });
    await harness.call(org.apiKey, 'people_delete_contact', { contactId: id });
    const result = await harness.call(org.apiKey, 'people_delete_contact', { contactId: id, permanent: true });
    expect(result).toMatchObject({ deleted: 'permanent', erasedNotes: 1 });
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM notes WHERE contact_id = $1', [id])).rows[0].n).toBe(0);
  });

  describe('keys never carry more than their holder may have', () => {
    it('refuses people:safeguarding on a key for a member without safeguarding permission', async () => {
      for (const role of ['volunteer', 'staff', 'admin'] as const) {
        await expect(harness.createKey(org.orgId, ['people:read', 'people:safeguarding'], role)).rejects.toMatchObject({ code: 'forbidden' });
      }
      await expect(harness.createKey(org.orgId, ['people:read', 'people:safeguarding'], 'volunteer', { safeguarding: true })).rejects.toMatchObject({ code: 'forbidden' });
    });

    it('drops people:safeguarding from existing keys as soon as the member loses the permission', async () => {
      const person = (await harness.call(org.apiKey, 'people_create_contact', { email: 'flag-change@example.org' })).contact.id;
      const red = (await harness.call(org.apiKey, 'people_add_note', { contactId: person, content: 'Red concern', confidentialityLevel: 'red' })).note.id;
      const holder = await harness.createKey(org.orgId, ['people:read', 'people:safeguarding'], 'staff', { safeguarding: true });
      const before = await harness.call(holder.apiKey, 'people_list_notes', { contactId: person });
      expect(before.notes.map((n: any) => n.id)).toEqual([red]);
      await harness.pool.query('UPDATE memberships SET safeguarding = false WHERE user_id = $1', [holder.userId]);
      const after = await harness.call(holder.apiKey, 'people_list_notes', { contactId: person });
      expect(after.notes).toEqual([]);
      const session = await harness.call(holder.apiKey, 'platform_session_tools', {}).catch(() => undefined);
      expect(session).toBeUndefined(); // the key never held platform:read
    });
  });

  it('permanent erasure needs an owner or admin holding people:safeguarding, and refusals erase nothing', async () => {
    const person = (await harness.call(org.apiKey, 'people_create_contact', { email: 'not-erasable@example.org' })).contact.id;
    await harness.call(org.apiKey, 'people_add_note', { contactId: person, content: 'Red concern', confidentialityLevel: 'red' });
    const volunteer = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'volunteer');
    for (const key of [plain, volunteer.apiKey]) {
      const { status, body } = await harness.invoke(key, 'people_delete_contact', { contactId: person, permanent: true });
      expect(status).toBe(403);
      expect(body.error?.code).toBe('forbidden');
    }
    const left = await harness.pool.query('SELECT count(*)::int AS n FROM notes WHERE contact_id = $1', [person]);
    expect(left.rows[0].n).toBe(1);
  });

  it('erasure also removes stored results of earlier writes about the person', async () => {
    const id = (await harness.call(org.apiKey, 'people_create_contact', { email: 'erase-results@example.org' })).contact.id;
    await harness.call(org.apiKey, 'people_add_note', { contactId: id, content: 'Stored in a write result' });
    const mentions = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM tool_call_results WHERE strpos(result::text, $1) > 0', [id])).rows[0].n as number;
    expect(await mentions()).toBe(2);
    await harness.call(org.apiKey, 'people_delete_contact', { contactId: id, permanent: true });
    const notesLeft = await harness.pool.query("SELECT count(*)::int AS n FROM tool_call_results WHERE strpos(result::text, 'Stored in a write result') > 0");
    expect(notesLeft.rows[0].n).toBe(0);
    expect(await mentions()).toBe(1); // only the erasure's own result, which holds just the id
  });

  it('erasure also removes duplicates merged into the person and what decided proposals said about them', async () => {
    const kept = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Mara', lastName: 'Merged', email: 'mara@example.org' })).contact.id;
    const dup = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Mara', lastName: 'Merged', email: 'mara.old@example.org' })).contact.id;
    await harness.pool.query('UPDATE contacts SET deleted_at = now() WHERE id = $1', [dup]);
    await harness.pool.query('INSERT INTO contact_merges (id, org_id, kept_contact_id, merged_contact_id) VALUES ($1, $2, $3, $4)', [randomUUID(), org.orgId, kept, dup]);
    const proposal = randomUUID();
    await harness.pool.query(`INSERT INTO proposals (id, org_id, tool, args, args_hash, summary, status, expires_at)
      VALUES ($1, $2, 'people_merge_data_quality_contacts', $3, 'h', 'Merge Mara Merged', 'approved', now() + interval '1 day')`,
    [proposal, org.orgId, JSON.stringify({ keepContactId: kept, mergeContactId: dup })]);

    await harness.call(org.apiKey, 'people_delete_contact', { contactId: kept, permanent: true });
    const left = await harness.pool.query('SELECT count(*)::int AS n FROM contacts WHERE id = ANY($1)', [[kept, dup]]);
    expect(left.rows[0].n).toBe(0);
    const row = await harness.pool.query('SELECT summary, args FROM proposals WHERE id = $1', [proposal]);
    expect(row.rows[0]).toEqual({ summary: "Erased at the person's request", args: {} });
  });
});
