import fs from 'node:fs';
import path from 'node:path';
import { allRoutes, allTools } from '../modules/catalogue';
import { meaningsOf } from '../modules/platform/search-meaning';
import { RouteSearchIndex, ToolSearchIndex } from '../modules/platform/tool-search';
import { routeKey, type AnyRoute } from '../modules/routes';
import type { AnyTool } from '../modules/tool';

/**
 * The project's evaluation queries for tool search, kept in the repository so a clone on its own can
 * run the tests and the bench: one JSON object a line, `{"q": query, "expect": [tool names]}`; with
 * `"anyOf": true` the request is ambiguous and any one of the expected tools answers it.
 */
export const TOOL_SEARCH_EVAL_FILE = path.join(__dirname, 'data', 'tool-search-dev.jsonl');

/**
 * Paraphrased requests in a church office's own words (other nouns, everyday verbs, relations by role,
 * effects without the tool's name), across every module. Split by line: see splitParaphrases.
 */
/** Paraphrased requests for dashboard API routes, scored by evaluateRouteSearch. */
export const ROUTE_SEARCH_PARAPHRASE_FILE = path.join(__dirname, 'data', 'route-search-paraphrase.jsonl');

export const TOOL_SEARCH_PARAPHRASE_FILE = path.join(__dirname, 'data', 'tool-search-paraphrase.jsonl');

/**
 * Requests written blind: from the tools' titles and first sentences only, by a writer who saw neither
 * the search code, its thesaurus, the tools' keywords and examples, nor the other request sets. Nothing
 * is tuned on it (no weight, thesaurus entry or example is chosen by looking at its misses), so it says
 * how search does on wording that nobody who built the index had seen. Never add its misses to tuning.
 */
export const TOOL_SEARCH_BLIND_FILE = path.join(__dirname, 'data', 'tool-search-blind.jsonl');

/**
 * Every third request (lines 3, 6, 9, …) is held out: the thesaurus, weights and tool examples are
 * tuned on the others only, so the held-out figures say how search does on wording nobody tuned for.
 * New requests are appended, so the split of earlier lines never changes.
 */
export function splitParaphrases(cases: readonly SearchCase[]): { tuning: SearchCase[]; heldOut: SearchCase[] } {
  return {
    tuning: cases.filter((_, index) => index % 3 !== 2),
    heldOut: cases.filter((_, index) => index % 3 === 2),
  };
}

export interface SearchCase {
  q: string;
  expect: string[];
  /** Any one of `expect` answers the request (it is ambiguous); otherwise it needs them all. */
  anyOf?: boolean;
}

export interface SearchCaseResult {
  q: string;
  expect: string[];
  top5: string[];
  /** 1-based rank of the first expected tool in the full ranking; null when not found. */
  firstRank: number | null;
  recallAt5: number;
}

export interface SearchEvalResult {
  dataset: string;
  queries: number;
  counted: number;
  skipped: number;
  recallAt5: number;
  mrr: number;
  /** Counted queries whose expected tools all appear in the top 5. */
  hitsAt5: number;
  cases: SearchCaseResult[];
  skippedCases: Array<{ q: string; missing: string[] }>;
}

export function readCases(file: string): SearchCase[] {
  return fs.readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line, index) => {
      const parsed = JSON.parse(line) as Partial<SearchCase>;
      if (typeof parsed.q !== 'string' || !Array.isArray(parsed.expect) || parsed.expect.length === 0) {
        throw new Error(`${file}:${index + 1}: expected {"q": string, "expect": [tool names]}`);
      }
      return { q: parsed.q, expect: parsed.expect.map(String), ...(parsed.anyOf === true ? { anyOf: true } : {}) };
    });
}

const round = (value: number) => Math.round(value * 10000) / 10000;

/**
 * Scores the catalogue's tool search with every tool allowed. A query counts
 * only when all its expected tools exist in the catalogue; the rest are
 * reported as skipped. recall@5 = share of expected tools in the top 5 (averaged; 1 or 0 for an
 * `anyOf` request, by whether any of them is there);
 * MRR = mean of 1/rank of the first expected tool over the full ranking (0 if absent).
 */
export function evaluateToolSearch(file: string): Promise<SearchEvalResult> {
  return evaluateCases(file, readCases(file));
}

/**
 * The same scores for a list of requests (a split of a file), named `dataset` in the result. Each request is
 * searched as platform_search_tools searches it: by its words and its meaning; `byWordsOnly` leaves meaning out.
 */
export async function evaluateCases(dataset: string, all: readonly SearchCase[], tools: readonly AnyTool[] = allTools(), byWordsOnly = false): Promise<SearchEvalResult> {
  const names = new Set(tools.map((tool) => tool.name));
  const index = new ToolSearchIndex(tools);
  if (!byWordsOnly) await embedRequests(all.map((c) => c.q));
  return scoreRankings(dataset, all, names, (q) => index.search(q, names, names.size, byWordsOnly ? undefined : requestMeanings.get(q)));
}

// Each request is embedded once per process however many sets and splits score it.
const requestMeanings = new Map<string, Float32Array>();

async function embedRequests(requests: readonly string[]): Promise<void> {
  const missing = [...new Set(requests)].filter((q) => !requestMeanings.has(q));
  const meanings = await meaningsOf(missing);
  if (!meanings) throw new Error('the sentence model could not be loaded, so search by meaning cannot be scored');
  missing.forEach((q, i) => requestMeanings.set(q, meanings[i]));
}

/** Route search scored the same way; `expect` holds route keys ("GET /api/people/tags"). */
export function evaluateRouteSearch(file: string, routes: readonly AnyRoute[] = allRoutes()): SearchEvalResult {
  const keys = new Set(routes.map(routeKey));
  const index = new RouteSearchIndex(routes);
  return scoreRankings(file, readCases(file), keys, (q) => index.search(q, keys, keys.size));
}

/** Scores one ranking per request; a request counts only when every item it expects exists. */
function scoreRankings(dataset: string, all: readonly SearchCase[], known: ReadonlySet<string>, rank: (q: string) => string[]): SearchEvalResult {
  const cases: SearchCaseResult[] = [];
  const skippedCases: SearchEvalResult['skippedCases'] = [];
  for (const { q, expect, anyOf } of all) {
    const missing = expect.filter((name) => !known.has(name));
    if (missing.length > 0) {
      skippedCases.push({ q, missing });
      continue;
    }
    const ranking = rank(q);
    const top5 = ranking.slice(0, 5);
    const ranks = expect.map((name) => ranking.indexOf(name)).filter((i) => i >= 0);
    cases.push({
      q,
      expect,
      top5,
      firstRank: ranks.length ? Math.min(...ranks) + 1 : null,
      recallAt5: anyOf ? Number(expect.some((name) => top5.includes(name))) : expect.filter((name) => top5.includes(name)).length / expect.length,
    });
  }
  const counted = cases.length;
  return {
    dataset,
    queries: all.length,
    counted,
    skipped: skippedCases.length,
    recallAt5: counted ? round(cases.reduce((s, c) => s + c.recallAt5, 0) / counted) : Number.NaN,
    mrr: counted ? round(cases.reduce((s, c) => s + (c.firstRank ? 1 / c.firstRank : 0), 0) / counted) : Number.NaN,
    hitsAt5: cases.filter((c) => c.recallAt5 === 1).length,
    cases,
    skippedCases,
  };
}
