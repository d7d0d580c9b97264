import type { ModuleDefinition } from './module';
import { inputSchemaOf, outputSchemaOf } from './schema';
import { toolsOf } from './module';

/**
 * A module's tool contract as reviewable text: each tool's name, scope, effect and JSON
 * Schemas. Kept per module in `modules/<name>/tools.lock.json`, so a change to one module's
 * tools shows up in that module's file alone, and two modules never edit the same file.
 */
export function toolSchemaLock(module: ModuleDefinition, modules: readonly ModuleDefinition[]): string {
  const entries = toolsOf(module, modules).map((tool) => ({
    name: tool.name,
    scope: tool.scope,
    effect: tool.effect,
    inputSchema: inputSchemaOf(tool),
    outputSchema: outputSchemaOf(tool),
  }));
  return `${JSON.stringify(entries, null, 2)}\n`;
}

export const TOOL_SCHEMA_LOCK_FILE = 'tools.lock.json';
