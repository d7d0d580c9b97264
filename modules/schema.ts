import { z } from 'zod';
import type { AnyTool } from './tool';

export type JsonSchema = Record<string, unknown>;

const cache = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema both MCP (inputSchema/outputSchema) and OpenAI function calling
 * (parameters) take: draft-07, describing what a caller sends (defaults optional).
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const cached = io === 'input' ? cache.get(schema) : undefined;
  if (cached) return cached;
  const json = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  if (io === 'input') cache.set(schema, json);
  return json;
}

export function inputSchemaOf(tool: AnyTool): JsonSchema {
  return jsonSchemaOf(tool.input, 'input');
}

const outputCache = new WeakMap<z.ZodType, JsonSchema>();
export function outputSchemaOf(tool: AnyTool): JsonSchema {
  let json = outputCache.get(tool.output);
  if (!json) {
    json = jsonSchemaOf(tool.output, 'output');
    outputCache.set(tool.output, json);
  }
  return json;
}
