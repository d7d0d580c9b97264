import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

/** A tool call over MCP that must succeed: its structured result, or a thrown error quoting the tool's answer. */
export async function mcpCall(mcp: McpClient, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<any> {
  const result = await mcp.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, CallToolResultSchema);
  if (result.isError) throw new Error(`${name} failed: ${(result.content as any)[0]?.text}`);
  return result.structuredContent;
}

/** A tool call over MCP that must be refused: the error body (code, message, hint, issues). */
export async function mcpRefusal(mcp: McpClient, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<any> {
  const result = await mcp.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, CallToolResultSchema);
  expect(result.isError).toBe(true);
  return JSON.parse((result.content as any)[0].text).error;
}

/** A calendar date `offset` days from today (UTC), as YYYY-MM-DD. */
export const dayFromToday = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
