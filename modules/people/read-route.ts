import type { z } from 'zod';
import type { AnyTool, ToolContext } from '../tool';

/**
 * A read route that is a read tool: the tool's answer schema, and the tool run with the route's
 * path and query values as its input, so the route and the tool cannot drift apart (the same input
 * checks and defaults, the same answer).
 */
export function readVia(tool: AnyTool) {
  return {
    response: tool.output as z.ZodObject,
    run: async (ctx: ToolContext, { params, query }: { params?: object; query?: object }) => tool.run(ctx, tool.input.parse({ ...params, ...query })) as Promise<never>,
  };
}
