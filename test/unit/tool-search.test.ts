import fs from 'node:fs';
import path from 'node:path';
import type { Principal } from '../../core/principal';
import { ALL_SCOPES, type Scope } from '../../core/scopes';
import { allTools, findTool, permittedTools } from '../../modules/catalogue';
import { ToolSearchIndex, stem } from '../../modules/platform/tool-search';
import type { ToolContext } from '../../modules/tool';

interface EvalCase { q: string; expect: string[] }

// The project's own evaluation queries, inside the repository (the bench scores the same file).
const EVAL_FILE = path.resolve(__dirname, '../../bench/data/tool-search-dev.jsonl');
const cases: EvalCase[] = fs.readFileSync(EVAL_FILE, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as EvalCase);
const known = new Set(allTools().map((t) => t.name));
const answerable = cases.filter((c) => c.expect.every((name) => known.has(name)));
const everything = new Set(known);

describe('tool search', () => {
  const index = new ToolSearchIndex(allTools());

  it('has answerable queries in the dev set', () => {
    expect(answerable.length).toBeGreaterThanOrEqual(8);
  });

  it.each([
    ['overview of the organisation', 'platform_overview'],
    ['usage against our allowance', 'platform_usage'],
    ['input schema of a tool', 'platform_inspect_tools'],
    ['create a new contact', 'people_create_contact'],
    ['find a person by name or email', 'people_search_contacts'],
    ["edit a contact's details", 'people_update_contact'],
    ['soft delete a contact', 'people_delete_contact'],
    ['add a note to a contact', 'people_add_note'],
    ["list a contact's notes", 'people_list_notes'],
    ['care timeline for a contact', 'people_list_care_timeline'],
  ])('"%s" ranks %s first', (query, expected) => {
    const dev = answerable.find((c) => c.q === query);
    expect(dev?.expect).toEqual([expected]);
    expect(index.search(query, everything, 5)[0]).toBe(expected);
  });

  it('finds the expected tool in the top 3 for every answerable dev query', () => {
    const misses = answerable
      .filter((c) => !c.expect.some((name) => index.search(c.q, everything, 3).includes(name)))
      .map((c) => c.q);
    expect(misses).toEqual([]);
  });

  it('returns names only, best first, no more than the limit, no duplicates', () => {
    const hits = index.search('contact', everything, 3);
    expect(hits).toHaveLength(3);
    expect(new Set(hits).size).toBe(3);
    for (const name of hits) expect(known.has(name)).toBe(true);
  });

  it('returns nothing for gibberish or stop words only', () => {
    expect(index.search('zzqxj vvbnm', everything, 5)).toEqual([]);
    expect(index.search('the of and', everything, 5)).toEqual([]);
  });

  it('filters out tools the caller may not use', () => {
    const platformOnly = new Set(permittedTools(['platform:read']).map((t) => t.name));
    const hits = index.search('create a new contact', platformOnly, 10);
    expect(hits.every((name) => name.startsWith('platform_'))).toBe(true);
    expect(hits).not.toContain('people_create_contact');

    const readers = new Set(permittedTools(['people:read']).map((t) => t.name));
    const readerHits = index.search('add a note to a contact', readers, 10);
    expect(readerHits).not.toContain('people_add_note');
    expect(readerHits.every((name) => findTool(name)!.scope === 'people:read')).toBe(true);
    expect(index.search('add a note to a contact', new Set(), 10)).toEqual([]);
  });

  it('stems plurals and -ing forms', () => {
    expect(stem('notes')).toBe('note');
    expect(stem('birthdays')).toBe('birthday');
    expect(stem('families')).toBe('family');
    expect(stem('address')).toBe('address');
  });
});

describe('platform_search_tools (the tool)', () => {
  const tool = findTool('platform_search_tools')!;

  function ctxWith(scopes: Scope[]): ToolContext {
    const principal: Principal = {
      orgId: '00000000-0000-0000-0000-000000000001', userId: '00000000-0000-0000-0000-000000000002', role: 'staff', scopes,
      intent: null, credentialId: '00000000-0000-0000-0000-000000000003', credentialKind: 'api_key',
    };
    return {
      db: { query: () => { throw new Error('search must not touch the database'); } } as unknown as ToolContext['db'],
      principal,
      org: { id: principal.orgId, name: 'Test', country: 'GB', dateFormat: 'DMY', planCode: 'starter' },
      workflowId: 'test',
    };
  }

  it('ranks the expected tool first for a caller holding every scope', async () => {
    const out = (await tool.run(ctxWith([...ALL_SCOPES]), tool.input.parse({ query: 'care timeline for a contact' }))) as { tools: string[] };
    expect(out.tools[0]).toBe('people_list_care_timeline');
    expect(tool.output.safeParse(out).success).toBe(true);
  });

  it('never returns tools outside the caller\'s scopes', async () => {
    const out = (await tool.run(ctxWith(['platform:read', 'people:read']), tool.input.parse({ query: 'create a new contact', limit: 25 }))) as { tools: string[] };
    expect(out.tools.length).toBeGreaterThan(0);
    expect(out.tools).not.toContain('people_create_contact');
    for (const name of out.tools) expect(['platform:read', 'people:read']).toContain(findTool(name)!.scope);
  });

  it('honours the limit', async () => {
    const out = (await tool.run(ctxWith([...ALL_SCOPES]), tool.input.parse({ query: 'contact', limit: 2 }))) as { tools: string[] };
    expect(out.tools).toHaveLength(2);
  });
});
