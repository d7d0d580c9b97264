import { randomUUID } from 'node:crypto';
import { withTransaction } from '../../../db/pool';
import { mergeContacts } from '../merge';
import { mergeContactsTool } from '../tools/outreach';
import { createOrganisation } from '../../platform/orgs';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database';

/** A merge moves everything that hangs off the duplicate, and its record reveals nothing about restricted notes. */
describe('merging duplicate contacts', () => {
  let db: TestDatabase;
  let orgId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    orgId = (await withTransaction(db.pool, (c) => createOrganisation(c, { name: 'Merge Church' }))).id;
  });

  afterAll(async () => {
    await db?.drop();
  });

  const q = (sql: string, params: unknown[] = []) => db.pool.query(sql, params);

  async function contact(firstName: string): Promise<string> {
    const id = randomUUID();
    await q('INSERT INTO contacts (id, org_id, first_name, last_name) VALUES ($1, $2, $3, \'Merge\')', [id, orgId, firstName]);
    return id;
  }

  async function link(a: string, b: string, relationship: string, inverse: string): Promise<void> {
    await q('INSERT INTO family_relationships (org_id, contact_id, related_contact_id, relationship) VALUES ($1, $2, $3, $4), ($1, $3, $2, $5)',
      [orgId, a, b, relationship, inverse]);
  }

  async function group(name: string, members: string[]): Promise<string> {
    const id = randomUUID();
    await q('INSERT INTO crm_groups (id, org_id, name) VALUES ($1, $2, $3)', [id, orgId, name]);
    for (const member of members) await q('INSERT INTO crm_group_members (id, org_id, group_id, contact_id) VALUES ($1, $2, $3, $4)', [randomUUID(), orgId, id, member]);
    return id;
  }

  async function segment(name: string, members: Array<[string, 'rule' | 'manual']>): Promise<string> {
    const id = randomUUID();
    await q('INSERT INTO segments (id, org_id, name, rules, member_count) VALUES ($1, $2, $3, \'{"match":"all","rules":[]}\', $4)', [id, orgId, name, members.length]);
    for (const [member, source] of members) await q('INSERT INTO segment_members (org_id, segment_id, contact_id, source) VALUES ($1, $2, $3, $4)', [orgId, id, member, source]);
    return id;
  }

  async function note(contactId: string, privacy: string, level: string): Promise<void> {
    const id = randomUUID();
    await q('INSERT INTO notes (id, org_id, contact_id, content, privacy, confidentiality_level) VALUES ($1, $2, $3, \'A note\', $4, $5)', [id, orgId, contactId, privacy, level]);
    await q('INSERT INTO timeline_entries (id, org_id, contact_id, kind, source_kind, source_id, summary) VALUES ($1, $2, $3, \'note_added\', \'note\', $4, \'Note\')',
      [randomUUID(), orgId, contactId, id]);
  }

  it('moves family links both ways, groups, hand-added segments, follow-ups and consent history; drops self and duplicate links', async () => {
    const [keep, dup, sister, friend, other] = [await contact('Kay'), await contact('Kay'), await contact('Sis'), await contact('Fred'), await contact('Olly')];
    await link(dup, sister, 'sister', 'sister');
    await link(dup, keep, 'spouse', 'spouse'); // would become a self-link
    await link(keep, friend, 'friend', 'friend');
    await link(dup, friend, 'friend', 'friend'); // the kept contact already has it
    await link(sister, other, 'sibling', 'sibling'); // untouched
    const onlyDup = await group('Choir', [dup]);
    const both = await group('Welcome team', [keep, dup]);
    const manualDup = await segment('Hand-picked', [[dup, 'manual']]);
    const promoted = await segment('Regulars', [[keep, 'rule'], [dup, 'manual']]);
    const ruleOnly = await segment('Rule only', [[keep, 'rule'], [dup, 'rule']]);
    const task = randomUUID();
    await q('INSERT INTO follow_up_tasks (id, org_id, contact_id, title) VALUES ($1, $2, $3, \'Call back\')', [task, orgId, dup]);
    await q('INSERT INTO contact_status_events (org_id, contact_id, from_status, to_status) VALUES ($1, $2, \'subscribed\', \'unsubscribed\')', [orgId, dup]);

    const result = await withTransaction(db.pool, (c) => mergeContacts(c, orgId, keep, dup, null));
    expect(result.keptContactId).toBe(keep);

    const links = (await q('SELECT contact_id, related_contact_id, relationship FROM family_relationships WHERE org_id = $1 ORDER BY relationship', [orgId])).rows;
    expect(links).toEqual(expect.arrayContaining([
      { contact_id: keep, related_contact_id: sister, relationship: 'sister' },
      { contact_id: sister, related_contact_id: keep, relationship: 'sister' },
      { contact_id: keep, related_contact_id: friend, relationship: 'friend' },
      { contact_id: friend, related_contact_id: keep, relationship: 'friend' },
    ]));
    expect(links).toHaveLength(6);
    expect(links.some((l) => l.contact_id === dup || l.related_contact_id === dup)).toBe(false);
    expect(links.some((l) => l.contact_id === l.related_contact_id)).toBe(false);

    const groups = (await q('SELECT group_id, contact_id FROM crm_group_members WHERE org_id = $1', [orgId])).rows;
    expect(groups).toEqual(expect.arrayContaining([{ group_id: onlyDup, contact_id: keep }, { group_id: both, contact_id: keep }]));
    expect(groups).toHaveLength(2);

    const members = (await q('SELECT segment_id, contact_id, source FROM segment_members WHERE org_id = $1', [orgId])).rows;
    expect(members).toEqual(expect.arrayContaining([
      { segment_id: manualDup, contact_id: keep, source: 'manual' },
      { segment_id: promoted, contact_id: keep, source: 'manual' },
      { segment_id: ruleOnly, contact_id: keep, source: 'rule' },
    ]));
    expect(members).toHaveLength(3);
    const counts = Object.fromEntries((await q('SELECT id, member_count FROM segments WHERE org_id = $1', [orgId])).rows.map((r) => [r.id, r.member_count]));
    expect(counts).toEqual({ [manualDup]: 1, [promoted]: 1, [ruleOnly]: 1 });

    expect((await q('SELECT contact_id FROM follow_up_tasks WHERE id = $1', [task])).rows[0].contact_id).toBe(keep);
    expect((await q('SELECT contact_id FROM contact_status_events WHERE org_id = $1', [orgId])).rows.map((r) => r.contact_id)).toEqual([keep]);
  });

  it('counts only notes visible without safeguarding, and its timeline entry names no counts', async () => {
    const [keep, dup] = [await contact('Ned'), await contact('Ned')];
    await note(dup, 'team', 'green');
    await note(dup, 'private', 'green');
    await note(dup, 'team', 'amber');
    await note(dup, 'team', 'red');

    const result = await withTransaction(db.pool, (c) => mergeContacts(c, orgId, keep, dup, null));
    expect(result.moved).toMatchObject({ notes: 1, timelineEntries: 1 });
    // All four moved all the same.
    expect((await q('SELECT count(*)::int AS n FROM notes WHERE contact_id = $1', [keep])).rows[0].n).toBe(4);
    expect((await q('SELECT count(*)::int AS n FROM timeline_entries WHERE contact_id = $1', [keep])).rows[0].n).toBe(4);

    const [entry] = mergeContactsTool.timeline!({ keepContactId: keep, mergeContactId: dup }, { merge: result });
    expect(entry.contactId).toBe(keep);
    expect(entry.summary).not.toMatch(/\d/);
  });
});
