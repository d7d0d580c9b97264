import fs from 'node:fs';
import path from 'node:path';
import type { ModuleDefinition } from './module';
import { inputSchemaOf, outputSchemaOf } from './schema';
import { toolsOf } from './module';

/**
 * A tool's contract as reviewable text: its name, scope, effect and JSON Schemas. Kept one file
 * per tool in `modules/<module>/__toolsnaps__/<tool>.json`, so a review shows which tool's
 * contract changed, and two changes to different tools never touch the same file.
 */
export const TOOL_SNAPSHOT_DIR = '__toolsnaps__';

/** The snapshot file name of a tool (inside its module's TOOL_SNAPSHOT_DIR). */
export function toolSnapshotFile(toolName: string): string {
  return `${toolName}.json`;
}

/** Every tool of the module with the text its snapshot file holds, in catalogue order. */
export function toolSnapshots(module: ModuleDefinition, modules: readonly ModuleDefinition[]): Map<string, string> {
  const snapshots = new Map<string, string>();
  for (const tool of toolsOf(module, modules)) {
    const entry = {
      name: tool.name,
      scope: tool.scope,
      effect: tool.effect,
      inputSchema: inputSchemaOf(tool),
      outputSchema: outputSchemaOf(tool),
    };
    snapshots.set(tool.name, `${JSON.stringify(entry, null, 2)}\n`);
  }
  return snapshots;
}

/** The committed snapshots in a module's snapshot folder (tool name → file text); none if the folder does not exist. */
export function readToolSnapshots(dir: string): Map<string, string> {
  const snapshots = new Map<string, string>();
  if (!fs.existsSync(dir)) return snapshots;
  for (const file of fs.readdirSync(dir).sort()) {
    if (file.endsWith('.json')) snapshots.set(file.slice(0, -'.json'.length), fs.readFileSync(path.join(dir, file), 'utf8'));
  }
  return snapshots;
}

/** How committed snapshots (tool name → file text) differ from the current tools. */
export interface SnapshotDifferences {
  /** Tools whose contract is not what their snapshot says. */
  changed: string[];
  /** Snapshots of no current tool (renamed or removed tools). */
  stale: string[];
  /** Tools with no snapshot yet. */
  missing: string[];
}

export function snapshotDifferences(current: ReadonlyMap<string, string>, committed: ReadonlyMap<string, string>): SnapshotDifferences {
  const changed: string[] = [];
  const missing: string[] = [];
  for (const [name, text] of current) {
    const before = committed.get(name);
    if (before === undefined) missing.push(name);
    else if (before !== text) changed.push(name);
  }
  const stale = [...committed.keys()].filter((name) => !current.has(name)).sort();
  return { changed, stale, missing };
}
