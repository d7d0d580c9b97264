import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Harness, TestOrg } from '../../helpers/harness';

/**
 * Isolation probes for a part of the catalogue kept beside the main table in
 * isolation-catalogue.test.ts: every `*.isolation.ts` file in this folder exports one `isolation`
 * value, found by name, so a module part brings its own probes with its own tools.
 */
export type PartOutcome = 'not_found' | 'no_leak';
export interface PartProbe { label?: string; args: (ids: Record<string, string>) => Record<string, unknown>; outcome?: PartOutcome }
export type PartEntry = PartProbe[] | { notOwned: string };

export interface IsolationPart {
  /**
   * Tables this part's tools may write that organisation A owns rows in, checksummed before and after
   * each of this part's probes with the probed tool's module's tables and the kernel's; name here a
   * table of another module the tools reach through its services (the guests services reach schedule's instances).
   */
  tables: readonly string[];
  /** Strings only A's records hold: none may reach B. */
  secrets: readonly string[];
  /** Creates A's records (and B's where a probe mixes the two); returns their ids by name, merged into the ids every probe sees. */
  seed: (ctx: { harness: Harness; a: TestOrg; b: TestOrg; ids: Record<string, string> }) => Promise<Record<string, string>>;
  entries: Readonly<Record<string, PartEntry>>;
}

export function loadIsolationParts(): IsolationPart[] {
  return readdirSync(__dirname).filter((file) => file.endsWith('.isolation.ts')).sort()
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    .map((file) => (require(path.join(__dirname, file)) as { isolation: IsolationPart }).isolation);
}
