import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { interpretRequest } from '../semantic/interpret';
import { nameSimilarity } from '../semantic/similar';

/**
 * Search that understands meaning, over MCP: a request read into rules over real fields, previewed and
 * saved bound to its preview; free text by Postgres full-text search without a provider (and said so)
 * and by meaning with a local OpenAI-compatible embeddings server; restricted notes never feeding a
 * caller without people:safeguarding (not even the text sent to the provider); similar contacts.
 */

// Synonyms share a dimension, so "music" finds the choir and "plants" the gardener.
function bagOfWords(text: string): number[] {
  const words = text.toLowerCase().split(/[^a-z]+/);
  const groups = [['choir', 'singing', 'music', 'sing'], ['garden', 'gardening', 'plants', 'flowers'], ['football', 'sport'], ['baby', 'newborn']];
  return groups.map((group) => words.filter((word) => group.includes(word)).length + 0.01);
}

/** The last Christmas season the interpreter means (15–31 December). */
function christmasDay(): string {
  const now = new Date();
  const year = now.getUTCMonth() === 11 && now.getUTCDate() >= 15 ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
  return `${year}-12-24`;
}

describe('people: search that understands meaning', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let safeguarding: McpClient;
  let provider: http.Server;
  let providerUrl: string;
  const received: string[][] = [];
  const saved = { ...process.env };
  const ids: Record<string, string> = {};

  async function person(key: string, fields: Record<string, unknown>, extra: { firstVisit?: string } = {}): Promise<string> {
    const made = await mcpCall(mcp, 'people_create_contact', fields);
    ids[key] = made.contact.id;
    if (extra.firstVisit) await harness.pool.query('UPDATE contacts SET first_visit_date = $2 WHERE id = $1', [made.contact.id, extra.firstVisit]);
    return made.contact.id;
  }

  beforeAll(async () => {
    delete process.env.MEDIA_AI_API_URL;
    provider = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => { raw += chunk; });
      req.on('end', () => {
        const body = JSON.parse(raw || '{}');
        res.writeHead(200, { 'content-type': 'application/json' });
        received.push(body.input);
        res.end(JSON.stringify({ data: (body.input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: bagOfWords(text) })) }));
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
    // Its own stack: the embeddings provider is set in this suite's environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Meaning Chapel' });
    mcp = await harness.mcpClient((await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff')).apiKey);
    safeguarding = await harness.mcpClient((await harness.createKey(org.orgId, ['people:read', 'people:write', 'people:safeguarding'], 'staff', { safeguarding: true })).apiKey);

    const christmas = christmasDay();
    // Alice: a young family, came at Christmas, not back → in the segment.
    await person('alice', { firstName: 'Alice', lastName: 'Young', membershipStatus: 'first_time_visitor', dateOfBirth: '1992-03-04' }, { firstVisit: christmas });
    await person('alfie', { firstName: 'Alfie', lastName: 'Young', dateOfBirth: '2021-05-06' });
    await mcpCall(mcp, 'people_add_family_relationship', { contactId: ids.alice, relatedContactId: ids.alfie, relationship: 'son' });
    // Bob: same, but came back.
    await person('bob', { firstName: 'Bob', lastName: 'Back', membershipStatus: 'returning_visitor' }, { firstVisit: christmas });
    await person('bea', { firstName: 'Bea', lastName: 'Back', dateOfBirth: '2022-01-01' });
    await mcpCall(mcp, 'people_add_family_relationship', { contactId: ids.bob, relatedContactId: ids.bea, relationship: 'daughter' });
    // Carl: came at Christmas, not back, but his youngest is a teenager.
    await person('carl', { firstName: 'Carl', lastName: 'Older', membershipStatus: 'first_time_visitor' }, { firstVisit: christmas });
    await person('cleo', { firstName: 'Cleo', lastName: 'Older', dateOfBirth: `${new Date().getUTCFullYear() - 15}-01-01` });
    await mcpCall(mcp, 'people_add_family_relationship', { contactId: ids.carl, relatedContactId: ids.cleo, relationship: 'daughter' });
    // Dina: a young family, not back, but came in the summer.
    await person('dina', { firstName: 'Dina', lastName: 'Summer', membershipStatus: 'first_time_visitor' }, { firstVisit: `${christmas.slice(0, 4)}-07-01` });
    await person('dan', { firstName: 'Dan', lastName: 'Summer', dateOfBirth: '2023-02-02' });
    await mcpCall(mcp, 'people_add_family_relationship', { contactId: ids.dina, relatedContactId: ids.dan, relationship: 'son' });

    // Free text: a team note, a restricted note and an interest.
    await mcpCall(mcp, 'people_add_note', { contactId: ids.alice, content: 'Alice loves singing in the choir' });
    await mcpCall(safeguarding, 'people_add_note', { contactId: ids.bob, content: 'Bob told us in confidence he misses the choir ZEBRAQUIET', privacy: 'private' });
    await mcpCall(safeguarding, 'people_add_note', { contactId: ids.carl, content: 'Carl choir ZEBRAQUIET concern', confidentialityLevel: 'amber' });
    await harness.pool.query(`UPDATE contacts SET custom_fields = '{"interests": "gardening and flowers"}' WHERE id = $1`, [ids.dina]);
  });

  afterAll(async () => {
    await mcp?.close();
    await safeguarding?.close();
    await harness?.close();
    provider?.closeAllConnections();
    await new Promise((resolve) => provider?.close(resolve));
    process.env = saved;
  });

  it('reads the words into rules, each with its phrase and meaning (pure)', () => {
    const reading = interpretRequest("Young families who came at Christmas and haven't been back", new Date('2026-11-28T12:00:00Z'));
    expect(reading.rules).toEqual({ match: 'all', rules: [
      { field: 'membershipStatus', operator: 'equals', value: 'first_time_visitor' },
      { field: 'youngestInHouseholdAge', operator: 'less_than', value: 12 },
      { field: 'firstVisitDate', operator: 'between', value: ['2025-12-15', '2025-12-31'] },
    ] });
    expect(reading.readings.map((r) => r.phrase)).toEqual(["haven't been back", 'young families', 'came at christmas']);
    expect(reading.freeText).toBeNull();
    expect(interpretRequest('retired people who love gardening').freeText).toBe('gardening');
    expect(nameSimilarity('Jon Smith', 'John Smith')).toBeGreaterThan(0.5);
    expect(nameSimilarity('Jon Smith', 'Mary Jones')).toBeLessThan(0.2);
  });

  it('a semantic segment is previewed, then saved with exactly the previewed rules', async () => {
    const preview = await mcpCall(mcp, 'people_build_semantic_segment', { request: "young families who came at Christmas and haven't been back" });
    expect(preview).toMatchObject({ stage: 'preview', matchCount: 1, segment: null, leftOut: null });
    expect(preview.sample.map((c: any) => c.contactId)).toEqual([ids.alice]);
    expect(preview.readings).toHaveLength(3);
    expect(await harness.pool.query('SELECT count(*)::int AS n FROM segments WHERE org_id = $1', [org.orgId]).then((r) => r.rows[0].n)).toBe(0);

    // Saving takes the preview's rules, whatever else changes meanwhile; the name is the caller's.
    const saving = await mcpCall(mcp, 'people_build_semantic_segment', { previewId: preview.previewId, name: 'Christmas follow-up' });
    expect(saving).toMatchObject({ stage: 'saved', alreadySaved: false, rules: preview.rules, segment: { name: 'Christmas follow-up', memberCount: 1 } });
    const members = await mcpCall(mcp, 'people_list_segment_contacts_api', { segmentId: saving.segment.id });
    expect(members.contacts.map((c: any) => c.contactId)).toEqual([ids.alice]);
    const again = await mcpCall(mcp, 'people_build_semantic_segment', { previewId: preview.previewId, name: 'Another name' });
    expect(again).toMatchObject({ alreadySaved: true, segment: { id: saving.segment.id } });

    expect((await mcpRefusal(mcp, 'people_build_semantic_segment', { previewId: preview.previewId })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'people_build_semantic_segment', { request: 'qwerty zxcvb' })).code).toBe('validation_failed');
    const other = await harness.createOrg({ name: 'Other Chapel' });
    const foreign = await harness.mcpClient(other.apiKey);
    expect((await mcpRefusal(foreign, 'people_build_semantic_segment', { previewId: preview.previewId, name: 'Stolen' })).code).toBe('not_found');
    await foreign.close();
  });

  it('without a provider, free text is matched by Postgres full-text search, says so, and restricted notes count only with people:safeguarding', async () => {
    const plain = await mcpCall(mcp, 'people_semantic_search_contacts', { query: 'people in the choir' });
    expect(plain.freeTextSearch).toMatchObject({ method: 'full_text', includesRestrictedNotes: false });
    expect(plain.freeTextSearch.note).toMatch(/MEDIA_AI_API_URL/);
    expect(plain.contacts.map((c: any) => c.contactId)).toEqual([ids.alice]);
    const secret = await mcpCall(mcp, 'people_semantic_search_contacts', { query: 'zebraquiet' });
    expect(secret.total).toBe(0);

    const held = await mcpCall(safeguarding, 'people_semantic_search_contacts', { query: 'people in the choir' });
    expect(held.freeTextSearch.includesRestrictedNotes).toBe(true);
    expect(held.contacts.map((c: any) => c.contactId).sort()).toEqual([ids.alice, ids.bob, ids.carl].sort());

    // The same search as a dashboard route through people_invoke_api_read: the same answer, restricted notes by the caller's rights.
    const routed = await mcpCall(mcp, 'people_invoke_api_read', { path: '/api/people/semantic-search', query: { query: 'people in the choir' } });
    expect(routed.route).toBe('GET /api/people/semantic-search');
    expect(routed.result).toEqual(plain);
    const routedHeld = await mcpCall(safeguarding, 'people_invoke_api_read', { path: '/api/people/semantic-search', query: { query: 'people in the choir', limit: '2' } });
    expect(routedHeld.result).toMatchObject({ total: 3, freeTextSearch: { includesRestrictedNotes: true } });
    expect(routedHeld.result.contacts).toHaveLength(2);
    expect((await mcpRefusal(mcp, 'people_invoke_api_read', { path: '/api/people/semantic-search', query: { query: 'x' } })).code).toBe('validation_failed');
    const openapi = await (await fetch(`${harness.url}/api/openapi.json`)).json() as { paths: Record<string, any> };
    expect(Object.keys(openapi.paths['/api/people/semantic-search'])).toEqual(['get']);

    const rulesAndWords = await mcpCall(mcp, 'people_semantic_search_contacts', { query: 'first-time visitors who like gardening' });
    expect(rulesAndWords.interpretation.freeText).toBe('gardening');
    expect(rulesAndWords.contacts.map((c: any) => c.contactId)).toEqual([ids.dina]);
    expect(received).toEqual([]);
  });

  it('with an embeddings provider, free text is matched by meaning; restricted text never reaches the provider for a caller without people:safeguarding', async () => {
    process.env.MEDIA_AI_API_URL = providerUrl;
    process.env.MEDIA_AI_EMBEDDING_MODEL = 'embed-test';
    try {
      const music = await mcpCall(mcp, 'people_semantic_search_contacts', { query: 'who likes music' });
      expect(music.freeTextSearch).toMatchObject({ method: 'embeddings', includesRestrictedNotes: false });
      expect(music.contacts.map((c: any) => c.contactId)).toEqual([ids.alice]);
      expect(received.flat().some((text) => text.includes('ZEBRAQUIET'))).toBe(false);
      expect(music.freeTextSearch.embeddedNow).toBe(2);
      // The job fills the cache (each reader from its own text); a search then embeds only its query.
      expect(await harness.runJob('people.semantic_embeddings', { orgId: org.orgId })).toEqual({ organisations: 1, embedded: 6 });
      expect(received.filter((batch) => batch.some((text) => text.includes('ZEBRAQUIET')))).toHaveLength(1);
      const plants = await mcpCall(mcp, 'people_semantic_search_contacts', { query: 'anyone into plants' });
      expect(plants.contacts.map((c: any) => c.contactId)).toEqual([ids.dina]);
      expect(plants.freeTextSearch.embeddedNow).toBe(0);

      const before = received.length;
      const held = await mcpCall(safeguarding, 'people_semantic_search_contacts', { query: 'who likes music' });
      expect(received.length).toBe(before + 1);
      expect(held.contacts.map((c: any) => c.contactId).sort()).toEqual([ids.alice, ids.bob, ids.carl].sort());
      const cached = await harness.pool.query("SELECT reader, count(*)::int AS n FROM contact_text_embeddings WHERE org_id = $1 GROUP BY reader ORDER BY reader", [org.orgId]);
      expect(cached.rows).toEqual([{ reader: 'all', n: 4 }, { reader: 'open', n: 2 }]);
    } finally {
      delete process.env.MEDIA_AI_API_URL;
    }
  });

  it('lists likely duplicates and namesakes of one contact, with reasons and confidence', async () => {
    const jon = await person('jon', { firstName: 'Jon', lastName: 'Smith', email: 'jon.smith@example.org', dateOfBirth: '1980-01-01' });
    const john = await person('john', { firstName: 'John', lastName: 'Smith', dateOfBirth: '1980-01-01', addressPostcode: undefined });
    const other = await person('jon2', { firstName: 'Jon', lastName: 'Smith', email: 'different@example.org', dateOfBirth: '1955-07-07' });
    await person('mary', { firstName: 'Mary', lastName: 'Jones', email: 'mary@example.org' });
    const answer = await mcpCall(mcp, 'people_list_similar_contacts', { contactId: jon });
    const byId = new Map(answer.similar.map((s: any) => [s.contactId, s]));
    expect(byId.get(john)).toMatchObject({ kind: 'likely_duplicate', reasons: expect.arrayContaining(['same date of birth']) });
    expect(byId.get(other)).toMatchObject({ kind: 'namesake', conflicts: ['different dates of birth', 'different emails'] });
    expect(byId.has(ids.mary)).toBe(false);
    const foreign = await harness.createOrg({ name: 'Far Chapel' });
    const far = await harness.mcpClient(foreign.apiKey);
    expect((await mcpRefusal(far, 'people_list_similar_contacts', { contactId: jon })).code).toBe('not_found');
    await far.close();
  });
});
