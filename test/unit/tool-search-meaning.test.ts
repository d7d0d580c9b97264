import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readCases, splitParaphrases, TOOL_SEARCH_PARAPHRASE_FILE } from '../../bench/search-eval';
import { allTools } from '../../modules/catalogue';
import {
  bundledPhrasingVectors, phrasingKey, quantise, readPhrasingVectors, similarity, writePhrasingVectors,
} from '../../modules/platform/phrasing-vectors';
import { meaningOf, meaningsOf } from '../../modules/platform/search-meaning';
import { meaningPhrasingsOf, ToolSearchIndex } from '../../modules/platform/tool-search';

const tools = allTools();
const everything = new Set(tools.map((tool) => tool.name));

describe('phrasing vectors', () => {
  it('hold a vector for every phrasing of every tool (run `npm run schemas:write` after changing titles, examples or descriptions)', () => {
    const vectors = bundledPhrasingVectors();
    const missing = tools.flatMap((tool) => meaningPhrasingsOf(tool).filter((text) => !vectors.has(phrasingKey(text))).map((text) => `${tool.name}: ${text}`));
    expect(missing).toEqual([]);
  });

  it('are the model\'s own embeddings of those texts', async () => {
    const sample = [tools[0], tools[Math.floor(tools.length / 2)], tools[tools.length - 1]].flatMap(meaningPhrasingsOf).slice(0, 12);
    const fresh = await meaningsOf(sample);
    expect(fresh).toHaveLength(sample.length);
    sample.forEach((text, i) => expect(similarity(fresh![i], bundledPhrasingVectors().get(phrasingKey(text))!)).toBeGreaterThan(0.99));
  });

  it('round-trip through the file, sorted, and lose almost nothing to 8 bits', async () => {
    const [a, b] = (await meaningsOf(['who is on the flower rota this week', 'buy flowers for the harvest festival']))!;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-')), 'v.bin');
    writePhrasingVectors(new Map([[phrasingKey('b'), quantise(b)], [phrasingKey('a'), quantise(a)]]), file);
    const read = readPhrasingVectors(file);
    expect(read.size).toBe(2);
    let exact = 0;
    for (let i = 0; i < a.length; i++) exact += a[i] * b[i];
    expect(Math.abs(similarity(a, read.get(phrasingKey('b'))!) - exact)).toBeLessThan(0.01);
    expect(similarity(a, read.get(phrasingKey('a'))!)).toBeGreaterThan(0.99);
    fs.writeFileSync(file, fs.readFileSync(file).subarray(0, 100));
    expect(() => readPhrasingVectors(file)).toThrow(/truncated/);
  });
});

describe('search by words and meaning', () => {
  const index = new ToolSearchIndex(tools);

  it('never finds what the words found nothing for, and keeps to the tools the caller may use', async () => {
    expect(index.search('zzqxj vvbnm', everything, 5, await meaningOf('zzqxj vvbnm'))).toEqual([]);
    const readers = new Set(tools.filter((tool) => tool.scope === 'people:read').map((tool) => tool.name));
    const hits = index.search('add a note to a contact', readers, 10, await meaningOf('add a note to a contact'));
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((name) => readers.has(name))).toBe(true);
  });

  it('says which phrasing a tool was close to exactly when meaning moved it up', async () => {
    const requests = splitParaphrases(readCases(TOOL_SEARCH_PARAPHRASE_FILE)).tuning.slice(0, 40).map((c) => c.q);
    let promoted = 0;
    for (const request of requests) {
      const byWords = index.search(request, everything, everything.size);
      const hits = index.searchWithReasons(request, everything, 10, await meaningOf(request));
      hits.forEach((hit, rank) => {
        const movedUp = rank < byWords.indexOf(hit.name);
        expect(hit.why.includes('; close in meaning to "')).toBe(movedUp);
        if (movedUp) promoted += 1;
      });
    }
    expect(promoted).toBeGreaterThan(0);
  });
});
