import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Harness, TestOrg } from '../../helpers/harness';

/**
 * Isolation probes for a part of the catalogue kept beside the main table in
 * isolation-catalogue.test.ts: every `*.isolation.ts` file (beside its module, in
 * `modules/<m>/__tests__/isolation/`) exports one `isolation` value, found by name, so a module
 * part brings its own probes with its own tools.
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

const MODULES_DIR = path.join(__dirname, '..', '..', '..', 'modules');

/** Every part's probes: kept beside their module (`modules/<m>/__tests__/isolation/*.isolation.ts`), or in this folder. */
export function loadIsolationParts(): IsolationPart[] {
  const folders = [
    __dirname,
    ...readdirSync(MODULES_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory())
      .map((entry) => path.join(MODULES_DIR, entry.name, '__tests__', 'isolation')).filter((folder) => existsSync(folder)),
  ];
  const files = folders.flatMap((folder) => readdirSync(folder).filter((file) => file.endsWith('.isolation.ts')).map((file) => path.join(folder, file)));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return files.sort().map((file) => (require(file) as { isolation: IsolationPart }).isolation);
}
