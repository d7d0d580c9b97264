import fs from 'node:fs';
import path from 'node:path';
import type { Principal } from '../../core/principal';
import { ALL_SCOPES, type Scope } from '../../core/scopes';
import {
  evaluateCases, evaluateRouteSearch, readCases, splitParaphrases, ROUTE_SEARCH_PARAPHRASE_FILE, TOOL_SEARCH_BLIND_FILE, TOOL_SEARCH_PARAPHRASE_FILE,
} from '../../bench/search-eval';
import { DEFAULT_LISTING_BUDGET_BYTES, measureListing } from '../../bench/listing-size';
import { allModules, allTools, catalogue, findTool, permittedTools } from '../../modules/catalogue';
import { mcpToolsFor } from '../../modules/surfaces';
import { analyseQuery } from '../../modules/platform/search-language';
import { ToolSearchIndex, stem } from '../../modules/platform/tool-search';
import { inputSchemaOf, outputSchemaOf } from '../../modules/schema';
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

  // Someone at risk must reach the crisis tool first, never a tool that removes or revokes ("kill" a key).
  const crisisCases = answerable.filter((c) => c.expect[0] === 'people_analyze_counseling_referral');
  it('has crisis wording in the dev set', () => {
    expect(crisisCases.map((c) => c.q)).toEqual(expect.arrayContaining(['she wants to kill herself', 'thinking of ending their life']));
  });

  it.each(crisisCases.map((c) => [c.q]))('"%s" ranks the crisis tool first', (query) => {
    expect(index.search(query, everything, 5)[0]).toBe('people_analyze_counseling_referral');
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

  it('ranks every answerable dev query first or close to it (MRR)', async () => {
    expect((await evaluateCases('dev', answerable)).mrr).toBeGreaterThanOrEqual(0.95);
  });

  it('stems plurals and -ing forms', () => {
    expect(stem('notes')).toBe('note');
    expect(stem('birthdays')).toBe('birthday');
    expect(stem('families')).toBe('family');
    expect(stem('address')).toBe('address');
  });
});

describe('paraphrased requests', () => {
  const paraphrases = readCases(TOOL_SEARCH_PARAPHRASE_FILE);
  const { tuning, heldOut } = splitParaphrases(paraphrases);

  it('cover every module in a church office\'s own words, 150 or more, with a held-out third', () => {
    expect(paraphrases.length).toBeGreaterThanOrEqual(150);
    const modules = new Set(paraphrases.flatMap((c) => c.expect).map((name) => findTool(name)?.module));
    for (const module of allModules()) expect(modules).toContain(module);
    expect(heldOut.length).toBe(Math.floor(paraphrases.length / 3));
    expect(new Set(paraphrases.map((c) => c.q)).size).toBe(paraphrases.length);
  });

  // The invoke pairs are reached through the dashboard routes they call, which route search scores on its own.
  it('ask for every tool at least once, bar the dashboard-route invoke pairs', () => {
    const asked = new Set(paraphrases.flatMap((c) => c.expect));
    const unasked = allTools().map((tool) => tool.name).filter((name) => !asked.has(name) && !/_invoke_(dashboard_)?api_(read|write)$/.test(name));
    expect(unasked).toEqual([]);
  });

  it('name tools that exist (a renamed tool must be renamed here too)', () => {
    const missing = paraphrases.flatMap((c) => c.expect).filter((name) => !known.has(name));
    expect(missing).toEqual([]);
  });

  // Thresholds on the tuning split only: the held-out split is reported by the bench, never tuned against.
  it('finds the tuning split\'s tools: recall@5 and MRR', async () => {
    // A little below today's figures (0.992, 0.903 by words and meaning), so a new module's tools do not fail this by a hair.
    const result = await evaluateCases('tuning', tuning);
    expect(result.recallAt5).toBeGreaterThanOrEqual(0.98);
    expect(result.mrr).toBeGreaterThanOrEqual(0.89);
  });

  // Floors, not targets: they catch a change that loses the tools' examples or their weight (either
  // would drop these sets well below), while nothing is ever tuned by looking at their misses.
  it('still finds the tools of requests nobody tuned for (held-out split, and the requests written blind)', async () => {
    // Today, with 16 modules and about 500 tools: held out 0.933 / 0.819, blind 0.953 / 0.892 (at 366 tools
    // the held-out split scored 0.953 / 0.859). Without the examples the held-out MRR was 0.79.
    // With mediahub (17 modules, 17 more tools and 8 more held-out requests): held out 0.926 / 0.812; of its
    // 202 requests, one of mediahub's own and one another module's (shifted by term weights, no mediahub tool in
    // its top 5) newly miss, so the recall floor moves from 0.93 to 0.92 rather than tuning against the split.
    // With all 19 modules (people's data quality, dashboard, portal and search; grow, mediahub, live; about 780
    // tools, 242 held-out requests): held out 0.915 / 0.798, blind 0.947 / 0.886. The people dashboard tools
    // named by the spec (the `_api` forms beside the curated tools) compete with their neighbours. The
    // Ranking by each tool's closest phrasing as well as its whole text (tool-search.ts, weight chosen on the
    // tuning split and the blind set) took the held-out split from 0.915 / 0.798 to 0.950 / 0.806 (242 requests);
    // the newer modules' tools then got examples written blind. With automations, song files, per-time rotas,
    // test emails and the AI studio (682 tools, 255 held-out requests, 13 of them new): held out 0.929 / 0.822,
    // blind 0.960 / 0.888. The new tools' own held-out requests miss more often than the old ones; the issue's
    // 0.95 is not met. The floors sit just under today's figures so a further loss shows.
    // Then every tool was asked for: 333 requests written blind for the 111 tools no request named (3 each,
    // appended, so one of each tool's lands in the held-out split), and about 2,000 examples written blind
    // across the catalogue. Held out, 366 requests: 0.929 / 0.799 (the first 255: 0.941 / 0.837, up from
    // 0.933 / 0.822; the 111 new: 0.901 / 0.713, the tools nobody had asked for being the harder ones);
    // blind 0.953 / 0.883. The MRR floor moves from 0.81 to 0.79 because the split gained harder requests.
    // Then search read requests by their meaning as well as their words (a sentence embedding of the request
    // against each tool's phrasings, fused by rank; weight chosen on the tuning split): held out 0.952 / 0.832,
    // blind 0.973 / 0.880. The recall floor is now the 0.95.
    const heldOutResult = await evaluateCases('held out', heldOut);
    expect(heldOutResult.recallAt5).toBeGreaterThanOrEqual(0.95);
    expect(heldOutResult.mrr).toBeGreaterThanOrEqual(0.82);
    const blind = readCases(TOOL_SEARCH_BLIND_FILE);
    expect(blind.length).toBeGreaterThanOrEqual(150);
    expect(blind.flatMap((c) => c.expect).filter((name) => !known.has(name))).toEqual([]);
    const blindResult = await evaluateCases('blind', blind);
    expect(blindResult.recallAt5).toBeGreaterThanOrEqual(0.965);
    expect(blindResult.mrr).toBeGreaterThanOrEqual(0.87);
  });

  // If the vectors were missing, stale or ignored, search would fall back to words alone and lose this.
  it('finds more of the held-out tools with the request\'s meaning than by its words alone', async () => {
    const withMeaning = await evaluateCases('held out', heldOut);
    const byWords = await evaluateCases('held out, words only', heldOut, allTools(), true);
    expect(withMeaning.hitsAt5).toBeGreaterThan(byWords.hitsAt5);
    expect(withMeaning.mrr).toBeGreaterThan(byWords.mrr);
  });

  it('finds dashboard routes from paraphrases too', () => {
    const result = evaluateRouteSearch(ROUTE_SEARCH_PARAPHRASE_FILE);
    expect(result.counted).toBeGreaterThanOrEqual(15);
    expect(result.recallAt5).toBeGreaterThanOrEqual(0.9);
  });
});

describe('reading a request', () => {
  const termsOf = (text: string) => [...analyseQuery(text).weights.keys()];

  it('maps the office\'s nouns to the product\'s, remembering what was said', () => {
    const query = analyseQuery('take the newcomer label off Emma');
    expect(query.weights.get('tag')).toBeLessThan(1);
    expect(query.origins.get('tag')).toBe('label');
    expect(termsOf('the Sunday offering')).toEqual(expect.arrayContaining(['donation', 'gift']));
    expect(termsOf('who lives under the same roof')).toContain('household');
    expect(termsOf("who is Ben's wife")).toEqual(expect.arrayContaining(['family', 'relationship']));
    expect(termsOf("kids' church this week")).toContain('check-in');
    expect(termsOf('the tea rota')).toContain('schedule');
  });

  it('normalises everyday verbs, phrases included', () => {
    expect(termsOf('get rid of the old list')).toEqual(expect.arrayContaining(['delete', 'remove']));
    expect(termsOf('wipe the record')).toContain('delete');
    expect(termsOf('turn down the message')).toEqual(expect.arrayContaining(['decline', 'reject']));
    expect(termsOf('amend her address')).toContain('update');
    expect(termsOf('the fund was finalised')).toContain('commit');
    expect(termsOf('take the newcomer label off Emma')).toEqual(expect.arrayContaining(['remove', 'tag']));
    expect(termsOf('sign Rachel up to the welcome team')).toContain('join');
  });

  it('keeps the words as written at full weight and drops filler', () => {
    const query = analyseQuery('can you show me the tags please');
    expect(query.weights.get('tag')).toBe(1);
    for (const filler of ['can', 'you', 'show', 'me', 'please']) expect(query.weights.has(filler)).toBe(false);
  });

  it('tells a question from an order', () => {
    expect(analyseQuery('which teams do we have').intent).toBe('read');
    expect(analyseQuery('start a new hospitality team').intent).toBe('write');
    expect(analyseQuery('get rid of the drama team').operations).toContain('remove');
    expect(analyseQuery('birthdays').intent).toBeUndefined();
    // "record" after a possessive is the person's record, not the verb.
    expect(termsOf("pull up Margaret's record")).toEqual(expect.arrayContaining(['get', 'contact']));
    expect(termsOf("pull up Margaret's record")).not.toContain('record');
    expect(termsOf('record a tithe from Sarah')).toContain('record');
  });
});

describe('why a tool came up', () => {
  const index = new ToolSearchIndex(allTools());

  it('gives one line per hit naming a matched word and what was said for it', () => {
    const hits = index.searchWithReasons('take the newcomer label off Emma', everything, 5);
    expect(hits[0].name).toBe('people_remove_contact_tags');
    for (const hit of hits) {
      expect(hit.why).toMatch(/^matched /);
      expect(hit.why).not.toContain('\n');
      expect(hit.why.length).toBeLessThanOrEqual(300);
    }
    expect(hits[0].why).toContain('tag (for "label")');
    expect(hits[0].why).toContain('remove (for "take … off")');
  });

  it('ranks the same with or without reasons', () => {
    const query = 'stop the standing order';
    expect(index.searchWithReasons(query, everything, 10).map((hit) => hit.name)).toEqual(index.search(query, everything, 10));
  });
});

describe('tool examples', () => {
  // Examples feed only the search index (never tools/list or the discovery documents), so a tool may carry
  // a dozen: each is another way a church office asks for it.
  it('are short requests, at most a dozen per tool', () => {
    for (const tool of allTools()) {
      for (const example of tool.examples ?? []) {
        expect(example.trim()).toBe(example);
        expect(example.length).toBeGreaterThan(5);
        expect(example.length).toBeLessThanOrEqual(120);
      }
      expect((tool.examples ?? []).length).toBeLessThanOrEqual(12);
      expect(new Set(tool.examples ?? []).size).toBe((tool.examples ?? []).length);
    }
  });

  it('feed the search index only: no example reaches tools/list', () => {
    const listing = JSON.stringify(mcpToolsFor(ALL_SCOPES, 'all'));
    // Long examples only: a short one ("welfare checks due") may stand in a description by its own right.
    const examples = allTools().flatMap((tool) => tool.examples ?? []).filter((example) => example.length >= 40);
    expect(examples.length).toBeGreaterThan(1000);
    expect(examples.filter((example) => listing.includes(JSON.stringify(example).slice(1, -1)))).toEqual([]);
  });
});

describe('context budget: the default MCP tools/list', () => {
  const listing = measureListing('default');

  it('is measured per toolset, and the parts add up', () => {
    expect(listing.byToolset.map((row) => row.toolset).sort()).toEqual([...new Set(allTools().filter((t) => t.listed).map((t) => t.module))].sort());
    const tools = listing.byToolset.reduce((sum, row) => sum + row.tools, 0);
    expect(tools).toBe(listing.total.tools);
    expect(listing.byToolset.reduce((sum, row) => sum + row.bytes, 0)).toBeLessThanOrEqual(listing.total.bytes);
  });

  // tools/list carries no output schemas, and each module lists only its few everyday tools by default.
  it(`stays within ${DEFAULT_LISTING_BUDGET_BYTES / 1024} KB however many modules exist`, () => {
    expect(listing.total.bytes).toBeLessThanOrEqual(DEFAULT_LISTING_BUDGET_BYTES);
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
      catalogue: catalogue(),
    };
  }

  it('ranks the expected tool first for a caller holding every scope, with why for each hit', async () => {
    const out = (await tool.run(ctxWith([...ALL_SCOPES]), tool.input.parse({ query: 'care timeline for a contact' }))) as { tools: string[]; results: Array<{ name: string; why: string }> };
    expect(out.tools[0]).toBe('people_list_care_timeline');
    expect(out.results.map((hit) => hit.name)).toEqual(out.tools);
    expect(out.results[0].why).toContain('timeline');
    expect(tool.output.safeParse(out).success).toBe(true);
  });

  it('never returns tools outside the caller\'s scopes', async () => {
    const out = (await tool.run(ctxWith(['platform:read', 'people:read']), tool.input.parse({ query: 'create a new contact', limit: 25 }))) as { tools: string[] };
    expect(out.tools.length).toBeGreaterThan(0);
    expect(out.tools).not.toContain('people_create_contact');
    for (const name of out.tools) expect(['platform:read', 'people:read']).toContain(findTool(name)!.scope);
  });

  it('platform_inspect_tools gives input and output schemas on demand', async () => {
    const inspect = findTool('platform_inspect_tools')!;
    const out = (await inspect.run(ctxWith([...ALL_SCOPES]), inspect.input.parse({ names: ['people_get_contact'] }))) as { tools: Array<{ inputSchema: unknown; outputSchema: unknown }> };
    expect(out.tools[0].inputSchema).toEqual(inputSchemaOf(findTool('people_get_contact')!));
    expect(out.tools[0].outputSchema).toEqual(outputSchemaOf(findTool('people_get_contact')!));
    expect(inspect.output.safeParse(out).success).toBe(true);
  });

  it('honours the limit', async () => {
    const out = (await tool.run(ctxWith([...ALL_SCOPES]), tool.input.parse({ query: 'contact', limit: 2 }))) as { tools: string[] };
    expect(out.tools).toHaveLength(2);
  });
});
