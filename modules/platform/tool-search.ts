import MiniSearch, { type SearchResult } from 'minisearch';
import { firstSentence, type AnyTool } from '../tool';
import { analyseQuery, operationOfName, processTerm, stem, tokenize, type AnalysedQuery } from './search-language';
import { bundledPhrasingVectors, phrasingKey, similarity, type PhrasingVectors, type StoredVector } from './phrasing-vectors';

export { stem };

/** A hit with the one line that says why it came up. */
export interface SearchHit {
  name: string;
  why: string;
}

interface ToolDocument {
  id: string;
  nameWords: string;
  title: string;
  keywords: string;
  examples: string;
  description: string;
  module: string;
  effect: string;
  /** The kind of change the name says (see operationOfName); empty for reads. */
  operation: string;
}

/** The name's words without the module prefix: in the name it would favour a whole module whenever its name is said ("people"). */
function nameWordsOf(tool: AnyTool): string {
  return tool.name.slice(tool.name.startsWith(`${tool.module}_`) ? tool.module.length + 1 : 0).replace(/_/g, ' ');
}

function documentOf(tool: AnyTool): ToolDocument {
  return {
    id: tool.name,
    nameWords: nameWordsOf(tool),
    title: tool.title,
    keywords: (tool.keywords ?? []).join(' '),
    examples: (tool.examples ?? []).join(' '),
    description: tool.description,
    module: tool.module,
    effect: tool.effect === 'read' ? 'read' : 'write',
    operation: operationOfName(nameWordsOf(tool)) ?? '',
  };
}

// Names and titles say what a tool does in a few words; descriptions are long and mention neighbours.
// Examples weigh as much as the title: each tool carries several requests in a church office's own words
// (other nouns, everyday verbs, relations by role), the closest text to how people actually ask.
const TOOL_FIELD_BOOST = { title: Number(process.env.FT ?? 3), nameWords: Number(process.env.FN ?? 2.5), keywords: Number(process.env.FK ?? 2), examples: Number(process.env.FE ?? 3), description: Number(process.env.FD ?? 0.6), module: 0.5 };
// For the why line only: a word found in the tool's own name, title or keywords explains a hit better than
// the same word in one of its example requests, which ranks well but says less to the person reading.
const TOOL_WHY_STRENGTH = { ...TOOL_FIELD_BOOST, examples: 1.5 };
const FIELD_LABELS: Record<string, string> = {
  nameWords: 'name', title: 'title', keywords: 'keywords', examples: 'examples', description: 'description',
  module: 'module', pathWords: 'path', summary: 'summary', method: 'method',
};

/** Index options shared by tools and routes; queries arrive already analysed (see searchOptionsFor). */
function indexOptions<T>(fields: string[], boost: Record<string, number>) {
  return {
    fields,
    storeFields: ['effect', 'operation'],
    tokenize,
    processTerm,
    searchOptions: {
      boost,
      prefix: (term: string) => term.length >= 5,
      fuzzy: false as const,
      combineWith: 'OR' as const,
    },
  } satisfies ConstructorParameters<typeof MiniSearch<T>>[0];
}

/** The analysed query's terms go to MiniSearch as they are, each weighted by where it came from. */
function searchOptionsFor(query: AnalysedQuery, allowed: ReadonlySet<string>) {
  return {
    tokenize: (text: string) => text.split(' '),
    processTerm: (term: string) => term,
    boostTerm: (term: string) => query.weights.get(term) ?? 1,
    boostDocument: (_id: unknown, _term: string, stored?: Record<string, unknown>) => intentBoost(query, stored?.effect) * operationBoost(query, stored?.operation),
    filter: (hit: SearchResult) => allowed.has(hit.id as string),
  };
}

// A question ("which teams do we have") wants a read tool; an order ("start a team") a write. A nudge, not a filter.
const INTENT_BOOST = 1.5;

function intentBoost(query: AnalysedQuery, effect: unknown): number {
  return query.intent !== undefined && query.intent === effect ? INTENT_BOOST : 1;
}

// Among tools on the same thing, the one whose verb is the change asked for ("take the label off" → remove).
const OPERATION_BOOST = 1.3;

function operationBoost(query: AnalysedQuery, operation: unknown): number {
  return typeof operation === 'string' && query.operations.has(operation) ? OPERATION_BOOST : 1;
}

function rankedHits(index: MiniSearch, text: string, allowed: ReadonlySet<string>, limit: number) {
  const query = analyseQuery(text);
  if (query.weights.size === 0) return { query, hits: [] as SearchResult[] };
  return { query, hits: index.search([...query.weights.keys()].join(' '), searchOptionsFor(query, allowed)).slice(0, limit) };
}

/** 'matched tag (for "label") in title, name; remove in name': the strongest three terms, in their two strongest fields. */
export function whyOf(hit: SearchResult, query: AnalysedQuery, boost: Record<string, number>): string {
  const strength = (field: string) => boost[field] ?? 0;
  const matched = Object.entries(hit.match)
    .map(([term, fields]) => ({ term, fields: [...fields].sort((a, b) => strength(b) - strength(a)), weight: query.weights.get(term) ?? PREFIX_MATCH_WEIGHT }))
    // Words found in a name or title explain a hit better than words found in its long description.
    .sort((a, b) => strength(b.fields[0]) * (0.6 + 0.4 * b.weight) - strength(a.fields[0]) * (0.6 + 0.4 * a.weight))
    .slice(0, 3);
  const parts = matched.map(({ term, fields }) => {
    const origin = query.origins.get(term);
    return `${term}${origin ? ` (for "${origin}")` : ''} in ${fields.slice(0, 2).map((field) => FIELD_LABELS[field] ?? field).join(', ')}`;
  });
  return `matched ${parts.join('; ')}`;
}

// A term MiniSearch matched by prefix is not in the query's weights; rank it below the words written.
const PREFIX_MATCH_WEIGHT = 0.5;

// How much the single closest phrasing of a tool (its title or one of its examples) adds to its whole-document
// score, each normalised by the best of its kind. One request is usually a paraphrase of one example, not of all
// of them at once; the whole-document field blurs a close match among many, and a tool with many examples pays
// BM25's length penalty. Chosen on the tuning split (flat from 0.1 to 0.35) and checked on the blind set.
const CLOSEST_PHRASING_WEIGHT = 0.3;

interface PhrasingDocument {
  id: string;
  tool: string;
  text: string;
  effect: string;
  operation: string;
}

/** A tool's title and each of its examples as separate documents, so one close phrasing can stand out. */
function phrasingsOf(tool: AnyTool): PhrasingDocument[] {
  const document = documentOf(tool);
  return [tool.title, ...(tool.examples ?? [])].map((text, index) => ({
    id: `${tool.name}#${index}`, tool: tool.name, text, effect: document.effect, operation: document.operation,
  }));
}

/**
 * The texts whose meaning stands for a tool: its title, each example request and its description's first
 * sentence. Their vectors are computed ahead of time (phrasing-vectors.ts, `npm run schemas:write`).
 */
export function meaningPhrasingsOf(tool: AnyTool): string[] {
  return [tool.title, ...(tool.examples ?? []), firstSentence(tool.description)];
}

// Words and meaning are fused by their ranks (reciprocal rank fusion): a tool scores 1 / (K + its rank by
// words) + MEANING_WEIGHT / (K + its rank by meaning among the same hits). Ranks, not raw scores, because
// BM25 scores and cosines are on unrelated scales. Chosen on the tuning split (flat for a weight of 0.3 to
// 0.5 and K from 5 to 20), then checked on the held-out split and the blind set.
const FUSION_K = 10;
const MEANING_WEIGHT = 0.4;

interface RankedHit {
  hit: SearchResult;
  /** The phrasing closest in meaning, when the request's meaning moved this tool up the ranking. */
  nearest?: string;
}

/**
 * BM25 search over the catalogue, reranked by each tool's closest phrasing and, when the request's meaning
 * is given (search-meaning.ts), fused with how close in meaning each hit's phrasings are. Meaning only
 * reorders what the words found: a request whose words match nothing finds nothing. Built once, queried
 * many times.
 */
export class ToolSearchIndex {
  private readonly index: MiniSearch<ToolDocument>;
  private readonly phrasings: MiniSearch<PhrasingDocument>;
  private readonly meanings = new Map<string, Array<{ text: string; vector: StoredVector }>>();

  constructor(tools: readonly AnyTool[], vectors: PhrasingVectors = bundledPhrasingVectors()) {
    this.index = new MiniSearch<ToolDocument>(indexOptions<ToolDocument>(Object.keys(TOOL_FIELD_BOOST), TOOL_FIELD_BOOST));
    this.index.addAll(tools.map(documentOf));
    this.phrasings = new MiniSearch<PhrasingDocument>({ ...indexOptions<PhrasingDocument>(['text'], { text: 1 }), storeFields: ['tool', 'effect', 'operation'] });
    this.phrasings.addAll(tools.flatMap(phrasingsOf));
    for (const tool of tools) {
      const known = meaningPhrasingsOf(tool).flatMap((text) => {
        const vector = vectors.get(phrasingKey(text));
        return vector ? [{ text, vector }] : [];
      });
      if (known.length > 0) this.meanings.set(tool.name, known);
    }
  }

  /** Tool names best first, limited to those the caller may use; `meaning` is the request's (meaningOf). */
  search(query: string, allowed: ReadonlySet<string>, limit: number, meaning?: Float32Array): string[] {
    return this.ranked(query, allowed, limit, meaning).hits.map(({ hit }) => hit.id as string);
  }

  /** The same ranking, each hit with why it matched. */
  searchWithReasons(query: string, allowed: ReadonlySet<string>, limit: number, meaning?: Float32Array): SearchHit[] {
    const { query: analysed, hits } = this.ranked(query, allowed, limit, meaning);
    return hits.map(({ hit, nearest }) => ({
      name: hit.id as string,
      why: whyOf(hit, analysed, TOOL_WHY_STRENGTH) + (nearest ? `; close in meaning to "${shortened(nearest)}"` : ''),
    }));
  }

  private ranked(text: string, allowed: ReadonlySet<string>, limit: number, meaning?: Float32Array): { query: AnalysedQuery; hits: RankedHit[] } {
    const { query, hits } = this.rankedByWords(text, allowed);
    const fused = meaning ? this.fusedWithMeaning(hits, meaning) : hits.map((hit) => ({ hit }));
    return { query, hits: fused.slice(0, limit) };
  }

  /**
   * Every whole-document hit, rescored: its score over the best one's, plus CLOSEST_PHRASING_WEIGHT times
   * its best phrasing's score over the best phrasing's. Every phrasing is also in the whole document, so a
   * tool found by a phrasing is always among the hits being rescored.
   */
  private rankedByWords(text: string, allowed: ReadonlySet<string>) {
    const { query, hits } = rankedHits(this.index, text, allowed, Number.POSITIVE_INFINITY);
    if (hits.length === 0) return { query, hits };
    const closest = this.closestPhrasingScores(query, allowed);
    const bestHit = hits[0].score;
    const bestPhrasing = Math.max(...closest.values(), Number.MIN_VALUE);
    const rescored = hits.map((hit) => ({ hit, score: hit.score / bestHit + CLOSEST_PHRASING_WEIGHT * (closest.get(hit.id as string) ?? 0) / bestPhrasing }));
    return { query, hits: rescored.sort((a, b) => b.score - a.score).map(({ hit }) => hit) };
  }

  /** The hits by words, reordered by reciprocal rank fusion with their closeness in meaning. */
  private fusedWithMeaning(byWords: readonly SearchResult[], meaning: Float32Array): RankedHit[] {
    const closeness = byWords.map((hit, wordRank) => ({ hit, wordRank, ...this.closestInMeaning(hit.id as string, meaning) }));
    const meaningRank = new Map([...closeness].sort((a, b) => b.cosine - a.cosine).map((entry, rank) => [entry.hit.id as string, rank]));
    const fused = closeness.map((entry) => ({
      ...entry,
      score: 1 / (FUSION_K + entry.wordRank + 1) + MEANING_WEIGHT / (FUSION_K + meaningRank.get(entry.hit.id as string)! + 1),
    })).sort((a, b) => b.score - a.score || a.wordRank - b.wordRank);
    return fused.map((entry, rank) => ({ hit: entry.hit, ...(rank < entry.wordRank && entry.nearest ? { nearest: entry.nearest } : {}) }));
  }

  /** The tool's phrasing closest to the request's meaning, and their cosine (-1 when it has no vectors). */
  private closestInMeaning(tool: string, meaning: Float32Array): { cosine: number; nearest?: string } {
    let best: { cosine: number; nearest?: string } = { cosine: -1 };
    for (const { text, vector } of this.meanings.get(tool) ?? []) {
      const cosine = similarity(meaning, vector);
      if (cosine > best.cosine) best = { cosine, nearest: text };
    }
    return best;
  }

  /** The best phrasing score of each tool that has a matching phrasing. */
  private closestPhrasingScores(query: AnalysedQuery, allowed: ReadonlySet<string>): Map<string, number> {
    const options = searchOptionsFor(query, allowed);
    const hits = this.phrasings.search([...query.weights.keys()].join(' '), { ...options, filter: (hit) => allowed.has(hit.tool as string) });
    const best = new Map<string, number>();
    for (const hit of hits) {
      const tool = hit.tool as string;
      if (!best.has(tool)) best.set(tool, hit.score);
    }
    return best;
  }
}

const NEAREST_SHOWN = 60;

function shortened(text: string): string {
  return text.length <= NEAREST_SHOWN ? text : `${text.slice(0, NEAREST_SHOWN - 1).trimEnd()}…`;
}

interface RouteDocument {
  id: string;
  pathWords: string;
  summary: string;
  method: string;
  module: string;
  effect: string;
  operation: string;
}

// The change each HTTP method makes, in the terms of operationOfName.
const ROUTE_OPERATIONS: Record<string, string> = { POST: 'add', PUT: 'change', PATCH: 'change', DELETE: 'remove' };

const ROUTE_FIELD_BOOST = { summary: 3, pathWords: 2, module: 0.5, method: 0.5 };

/** The same search over dashboard API routes: their path words, summary and method. */
export class RouteSearchIndex {
  private readonly index: MiniSearch<RouteDocument>;

  constructor(routes: ReadonlyArray<{ method: string; path: string; summary: string; module: string }>) {
    this.index = new MiniSearch<RouteDocument>(indexOptions<RouteDocument>(Object.keys(ROUTE_FIELD_BOOST), ROUTE_FIELD_BOOST));
    this.index.addAll(routes.map((route) => ({
      id: `${route.method} ${route.path}`,
      pathWords: route.path.replace(/^\/api\//, '').replace(/\{[a-zA-Z]+\}/g, ' '),
      summary: route.summary,
      method: route.method === 'GET' ? 'get list show read' : `${route.method.toLowerCase()} change`,
      module: route.module,
      effect: route.method === 'GET' ? 'read' : 'write',
      operation: ROUTE_OPERATIONS[route.method] ?? '',
    })));
  }

  /** Route keys (METHOD /path), best first, limited to those the caller may use. */
  search(query: string, allowed: ReadonlySet<string>, limit: number): string[] {
    return rankedHits(this.index, query, allowed, limit).hits.map((hit) => hit.id as string);
  }

  /** The same ranking, each route key with why it matched. */
  searchWithReasons(query: string, allowed: ReadonlySet<string>, limit: number): SearchHit[] {
    const { query: analysed, hits } = rankedHits(this.index, query, allowed, limit);
    return hits.map((hit) => ({ name: hit.id as string, why: whyOf(hit, analysed, ROUTE_FIELD_BOOST) }));
  }
}
