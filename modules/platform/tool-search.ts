import MiniSearch from 'minisearch';
import type { AnyTool } from '../tool';

const STOP_WORDS = new Set([
  'a', 'an', 'the', 'of', 'to', 'for', 'in', 'on', 'at', 'by', 'with', 'and', 'or', 'is', 'are', 'be', 'it', 'its',
  'this', 'that', 'these', 'our', 'my', 'me', 'we', 'i', 'you', 'your', 'their', 'from', 'as', 'into', 'all', 'can',
  'do', 'does', 'how', 'what', 'which', 'who', 'want', 'need', 'please', 'some', 'someone', 'one', 'use', 'when', 'only',
]);

/** A deliberately small stemmer: enough that "notes" finds "note" and "birthdays" finds "birthday". */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('es') && /(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

function processTerm(term: string): string | null {
  const word = term.toLowerCase().replace(/'s$/, '');
  if (word.length < 2 || STOP_WORDS.has(word)) return null;
  return stem(word);
}

interface ToolDocument {
  id: string;
  nameWords: string;
  title: string;
  keywords: string;
  description: string;
  module: string;
}

function documentOf(tool: AnyTool): ToolDocument {
  return {
    id: tool.name,
    nameWords: tool.name.replace(/_/g, ' '),
    title: tool.title,
    keywords: (tool.keywords ?? []).join(' '),
    description: tool.description,
    module: tool.module,
  };
}

/** BM25 search over the catalogue; built once, queried many times. */
export class ToolSearchIndex {
  private readonly index: MiniSearch<ToolDocument>;

  constructor(tools: readonly AnyTool[]) {
    this.index = new MiniSearch<ToolDocument>({
      fields: ['nameWords', 'title', 'keywords', 'description', 'module'],
      tokenize: (text) => text.split(/[\s_\-/,.;:()'"?!]+/),
      processTerm,
      searchOptions: {
        boost: { title: 3, nameWords: 2.5, keywords: 2, description: 1, module: 0.5 },
        prefix: (term) => term.length >= 4,
        fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
        combineWith: 'OR',
      },
    });
    this.index.addAll(tools.map(documentOf));
  }

  /** Tool names best first, limited to those the caller may use. */
  search(query: string, allowed: ReadonlySet<string>, limit: number): string[] {
    return this.index
      .search(query, { filter: (hit) => allowed.has(hit.id) })
      .slice(0, limit)
      .map((hit) => hit.id);
  }
}

interface RouteDocument {
  id: string;
  pathWords: string;
  summary: string;
  method: string;
  module: string;
}

/** The same search over dashboard API routes: their path words, summary and method. */
export class RouteSearchIndex {
  private readonly index: MiniSearch<RouteDocument>;

  constructor(routes: ReadonlyArray<{ method: string; path: string; summary: string; module: string }>) {
    this.index = new MiniSearch<RouteDocument>({
      fields: ['pathWords', 'summary', 'method', 'module'],
      tokenize: (text) => text.split(/[\s_\-/,.;:()'"?!{}]+/),
      processTerm,
      searchOptions: {
        boost: { summary: 3, pathWords: 2, module: 0.5, method: 0.5 },
        prefix: (term) => term.length >= 4,
        fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
        combineWith: 'OR',
      },
    });
    this.index.addAll(routes.map((route) => ({
      id: `${route.method} ${route.path}`,
      pathWords: route.path.replace(/^\/api\//, '').replace(/\{[a-zA-Z]+\}/g, ' '),
      summary: route.summary,
      method: route.method === 'GET' ? 'get list show read' : `${route.method.toLowerCase()} change`,
      module: route.module,
    })));
  }

  /** Route keys (METHOD /path), best first, limited to those the caller may use. */
  search(query: string, allowed: ReadonlySet<string>, limit: number): string[] {
    return this.index.search(query, { filter: (hit) => allowed.has(hit.id) }).slice(0, limit).map((hit) => hit.id);
  }
}
