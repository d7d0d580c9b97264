import { ALL_SCOPES } from '../core/scopes';
import { findTool } from '../modules/catalogue';
import { mcpToolsFor } from '../modules/surfaces';

/**
 * What the default MCP tools/list costs an agent's context on every session: the bytes of the JSON
 * of the listed tools, for a credential holding every scope. It must stay within this budget
 * however many modules exist (issue 11, context budget).
 */
export const DEFAULT_LISTING_BUDGET_BYTES = 40 * 1024;

export interface ToolsetSize {
  toolset: string;
  tools: number;
  bytes: number;
  /** The parts of those bytes, to show where a listing's weight is. */
  descriptionBytes: number;
  inputSchemaBytes: number;
  outputSchemaBytes: number;
}

export interface ListingSize {
  total: { tools: number; bytes: number };
  budgetBytes: number;
  byToolset: ToolsetSize[];
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

function emptySize(toolset: string): ToolsetSize {
  return { toolset, tools: 0, bytes: 0, descriptionBytes: 0, inputSchemaBytes: 0, outputSchemaBytes: 0 };
}

/** The default listing (or every tool, with `all`), measured per toolset (module) and in total. */
export function measureListing(toolsets: 'default' | 'all' = 'default'): ListingSize {
  const listed = mcpToolsFor(ALL_SCOPES, toolsets);
  const byToolset = new Map<string, ToolsetSize>();
  for (const entry of listed) {
    const module = findTool(entry.name)?.module ?? 'unknown';
    const size = byToolset.get(module) ?? emptySize(module);
    size.tools += 1;
    size.bytes += bytesOf(entry);
    size.descriptionBytes += Buffer.byteLength(entry.description, 'utf8');
    size.inputSchemaBytes += bytesOf(entry.inputSchema);
    // tools/list carries no output schemas (see mcpToolOf); counted in case one comes back.
    size.outputSchemaBytes += 'outputSchema' in entry ? bytesOf(entry.outputSchema) : 0;
    byToolset.set(module, size);
  }
  return { total: { tools: listed.length, bytes: bytesOf(listed) }, budgetBytes: DEFAULT_LISTING_BUDGET_BYTES, byToolset: [...byToolset.values()] };
}
