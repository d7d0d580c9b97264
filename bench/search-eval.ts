import fs from 'node:fs';
import path from 'node:path';
import { allTools } from '../modules/catalogue';
import { ToolSearchIndex } from '../modules/platform/tool-search';

/**
 * The project's evaluation queries for tool search, kept in the repository so a clone on its own can
 * run the tests and the bench: one JSON object a line, `{"q": query, "expect": [tool names]}`.
 */
export const TOOL_SEARCH_EVAL_FILE = path.join(__dirname, 'data', 'tool-search-dev.jsonl');

export interface SearchCase {
  q: string;
  expect: string[];
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
      return { q: parsed.q, expect: parsed.expect.map(String) };
    });
}

const round = (value: number) => Math.round(value * 10000) / 10000;

/**
 * Scores the catalogue's tool search with every tool allowed. A query counts
 * only when all its expected tools exist in the catalogue; the rest are
 * reported as skipped. recall@5 = share of expected tools in the top 5 (averaged);
 * MRR = mean of 1/rank of the first expected tool over the full ranking (0 if absent).
 */
export function evaluateToolSearch(file: string): SearchEvalResult {
  const tools = allTools();
  const names = new Set(tools.map((tool) => tool.name));
  const index = new ToolSearchIndex(tools);
  const cases: SearchCaseResult[] = [];
  const skippedCases: SearchEvalResult['skippedCases'] = [];
  const all = readCases(file);
  for (const { q, expect } of all) {
    const missing = expect.filter((name) => !names.has(name));
    if (missing.length > 0) {
      skippedCases.push({ q, missing });
      continue;
    }
    const ranking = index.search(q, names, names.size);
    const top5 = ranking.slice(0, 5);
    const ranks = expect.map((name) => ranking.indexOf(name)).filter((i) => i >= 0);
    cases.push({
      q,
      expect,
      top5,
      firstRank: ranks.length ? Math.min(...ranks) + 1 : null,
      recallAt5: expect.filter((name) => top5.includes(name)).length / expect.length,
    });
  }
  const counted = cases.length;
  return {
    dataset: file,
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
