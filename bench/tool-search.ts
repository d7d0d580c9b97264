/**
 * `npm run bench:search`: tool and route search, in process (no database, no server).
 *   - quality: recall@5 and MRR on the dev set, on the paraphrase set's tuning and held-out splits,
 *     on the requests written blind (search-eval.ts: TOOL_SEARCH_BLIND_FILE) and on the route paraphrases;
 *   - latency: p50/p95 of one search as platform_search_tools runs it (the request embedded, then searched by
 *     words and meaning, with why lines), of the search by words alone over the catalogue as it is and padded
 *     to 500 tools, and of one route search;
 *   - context budget: bytes of the default MCP tools/list per toolset and in total, against 40 KB.
 * Writes bench/results/<yyyy-mm-dd>-search.json and prints Markdown tables.
 * Knobs: --rounds / BENCH_SEARCH_ROUNDS (passes over every query for timing: 20), --out / BENCH_OUT_DIR.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { allRoutes, allTools } from '../modules/catalogue';
import { meaningOf } from '../modules/platform/search-meaning';
import { RouteSearchIndex, ToolSearchIndex } from '../modules/platform/tool-search';
import { routeKey } from '../modules/routes';
import type { AnyTool } from '../modules/tool';
import { measureListing, type ListingSize } from './listing-size';
import {
  evaluateCases, evaluateRouteSearch, readCases, splitParaphrases, ROUTE_SEARCH_PARAPHRASE_FILE, TOOL_SEARCH_EVAL_FILE,
  TOOL_SEARCH_BLIND_FILE, TOOL_SEARCH_PARAPHRASE_FILE, type SearchCase, type SearchEvalResult,
} from './search-eval';
import { summarise, type LatencySummary } from './stats';

const SCALE_TARGET = 500;

function config() {
  const { values } = parseArgs({ options: { rounds: { type: 'string' }, out: { type: 'string' } } });
  const rounds = Number(values.rounds ?? process.env.BENCH_SEARCH_ROUNDS ?? 20);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a positive integer, not ${values.rounds}`);
  return { rounds, outDir: path.resolve(values.out ?? process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results')) };
}

/**
 * The catalogue padded to `target` tools with renamed copies in made-up modules: the index then has
 * the size and vocabulary spread of 500 tools, so its timings say what search costs at that size.
 */
function paddedCatalogue(tools: readonly AnyTool[], target: number): AnyTool[] {
  const padded = [...tools];
  for (let copy = 1; padded.length < target; copy += 1) {
    for (const tool of tools) {
      if (padded.length >= target) break;
      const module = `${tool.module}${copy}`;
      padded.push({ ...tool, module, name: tool.name.replace(tool.module, module) });
    }
  }
  return padded;
}

/** Times `run` once per query per round, after one unmeasured pass. */
function timeQueries(queries: readonly string[], rounds: number, run: (query: string) => unknown): LatencySummary {
  for (const query of queries) run(query);
  const durations: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const query of queries) {
      const started = performance.now();
      run(query);
      durations.push(performance.now() - started);
    }
  }
  return summarise(durations);
}

async function qualityOf(dev: SearchCase[], paraphrases: SearchCase[]) {
  const { tuning, heldOut } = splitParaphrases(paraphrases);
  const blind = readCases(TOOL_SEARCH_BLIND_FILE);
  const tools = allTools();
  return {
    dev: await evaluateCases(TOOL_SEARCH_EVAL_FILE, dev),
    paraphraseAll: await evaluateCases(`${TOOL_SEARCH_PARAPHRASE_FILE} (all)`, paraphrases),
    paraphraseTuning: await evaluateCases(`${TOOL_SEARCH_PARAPHRASE_FILE} (tuning: lines not divisible by 3)`, tuning),
    paraphraseHeldOut: await evaluateCases(`${TOOL_SEARCH_PARAPHRASE_FILE} (held out: every 3rd line)`, heldOut),
    blind: await evaluateCases(`${TOOL_SEARCH_BLIND_FILE} (written blind, never tuned on)`, blind),
    // The same splits by words alone: what the request's meaning adds.
    paraphraseHeldOutByWords: await evaluateCases(`${TOOL_SEARCH_PARAPHRASE_FILE} (held out, by words alone)`, heldOut, tools, true),
    blindByWords: await evaluateCases(`${TOOL_SEARCH_BLIND_FILE} (by words alone)`, blind, tools, true),
    routes: evaluateRouteSearch(ROUTE_SEARCH_PARAPHRASE_FILE),
  };
}

/** Times embedding a request and searching with its words and meaning, as platform_search_tools does. */
async function timeSearchesWithMeaning(queries: readonly string[], index: ToolSearchIndex, names: ReadonlySet<string>): Promise<LatencySummary> {
  const durations: number[] = [];
  await meaningOf('warm up');
  for (const query of queries) {
    const started = performance.now();
    index.searchWithReasons(query, names, 10, await meaningOf(query));
    durations.push(performance.now() - started);
  }
  return summarise(durations);
}

async function latencyOf(queries: string[], rounds: number) {
  const tools = allTools();
  const padded = paddedCatalogue(tools, SCALE_TARGET);
  const index = new ToolSearchIndex(tools);
  const paddedIndex = new ToolSearchIndex(padded);
  const names = new Set(tools.map((tool) => tool.name));
  const paddedNames = new Set(padded.map((tool) => tool.name));
  const routes = allRoutes();
  const routeIndex = new RouteSearchIndex(routes);
  const keys = new Set(routes.map(routeKey));
  return {
    queries: queries.length,
    rounds,
    toolsWithMeaning: { catalogue: tools.length, ...(await timeSearchesWithMeaning(queries, index, names)) },
    tools: { catalogue: tools.length, ...timeQueries(queries, rounds, (q) => index.searchWithReasons(q, names, 10)) },
    toolsAt500: { catalogue: padded.length, ...timeQueries(queries, rounds, (q) => paddedIndex.searchWithReasons(q, paddedNames, 10)) },
    routes: { catalogue: routes.length, ...timeQueries(queries, rounds, (q) => routeIndex.searchWithReasons(q, keys, 10)) },
  };
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

function qualityTable(quality: Record<string, SearchEvalResult>): string[] {
  const lines = ['| set | requests counted | recall@5 | MRR |', '| --- | ---: | ---: | ---: |'];
  for (const [name, result] of Object.entries(quality)) {
    lines.push(`| ${name} | ${result.counted}${result.skipped ? ` (+${result.skipped} naming absent tools)` : ''} | ${result.recallAt5.toFixed(3)} | ${result.mrr.toFixed(3)} |`);
  }
  return lines;
}

function latencyTable(latency: Awaited<ReturnType<typeof latencyOf>>): string[] {
  const lines = ['| search | catalogue | samples | p50 ms | p95 ms | p99 ms |', '| --- | ---: | ---: | ---: | ---: | ---: |'];
  const rows = { 'tools, words and meaning (request embedded)': latency.toolsWithMeaning, 'tools, words only': latency.tools, 'tools at 500, words only': latency.toolsAt500, routes: latency.routes };
  for (const [name, row] of Object.entries(rows)) {
    lines.push(`| ${name} | ${row.catalogue} | ${row.samples} | ${row.p50} | ${row.p95} | ${row.p99} |`);
  }
  return lines;
}

function listingTable(listing: ListingSize): string[] {
  const lines = ['| toolset | listed tools | KB | descriptions KB | input schemas KB | output schemas KB |', '| --- | ---: | ---: | ---: | ---: | ---: |'];
  for (const row of listing.byToolset) {
    lines.push(`| ${row.toolset} | ${row.tools} | ${kb(row.bytes)} | ${kb(row.descriptionBytes)} | ${kb(row.inputSchemaBytes)} | ${kb(row.outputSchemaBytes)} |`);
  }
  const verdict = listing.total.bytes <= listing.budgetBytes ? 'within' : 'OVER';
  lines.push(`| **total** | ${listing.total.tools} | ${kb(listing.total.bytes)} (${verdict} the ${kb(listing.budgetBytes)} KB budget) | | | |`);
  return lines;
}

function misses(result: SearchEvalResult): string[] {
  return result.cases.filter((c) => c.recallAt5 < 1).map((c) => `- "${c.q}": expected ${c.expect.join(' or ')}, top 5 ${c.top5.join(', ') || '(none)'}`);
}

async function main() {
  const { rounds, outDir } = config();
  const dev = readCases(TOOL_SEARCH_EVAL_FILE);
  const paraphrases = readCases(TOOL_SEARCH_PARAPHRASE_FILE);
  const quality = await qualityOf(dev, paraphrases);
  const latency = await latencyOf([...dev, ...paraphrases].map((c) => c.q), rounds);
  const listing = { default: measureListing('default'), all: measureListing('all') };
  const report = { date: new Date().toISOString(), quality, latency, listing };

  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${report.date.slice(0, 10)}-search.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  const lines = [
    '### Tool search quality', ...qualityTable(quality), '',
    '### Search latency (in process, one search with why lines, limit 10)', ...latencyTable(latency), '',
    '### Default MCP tools/list (every scope)', ...listingTable(listing.default), '',
    `Every tool (toolsets=all): ${listing.all.total.tools} tools, ${kb(listing.all.total.bytes)} KB.`, '',
    '### Tuning-split requests not fully in the top 5', ...misses(quality.paraphraseTuning), '',
    `Written to ${path.relative(process.cwd(), file)}`,
  ];
  console.log(lines.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
