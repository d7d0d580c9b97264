import fs from 'node:fs';
import path from 'node:path';
import { MODULES } from '../../modules';
import { TOOL_SNAPSHOT_DIR, readToolSnapshots, snapshotDifferences, toolSnapshotFile, toolSnapshots } from '../../modules/tool-schemas';

/**
 * Tool schemas do not change silently: every tool of every module under modules/ must match its
 * snapshot, modules/<module>/__toolsnaps__/<tool>.json (`npm run schemas:write` writes them after
 * a deliberate change). A snapshot with no tool, or a tool with no snapshot, fails too.
 */
const modulesDir = path.resolve(__dirname, '../../modules');
// A module registered at run time from elsewhere (the kit's demo under test/) has no folder here and keeps no snapshots.
const snapshotted = MODULES.filter((module) => fs.existsSync(path.join(modulesDir, module.name)));

describe.each(snapshotted.map((module) => [module.name, module] as const))('tool snapshots of %s', (name, module) => {
  const dir = path.join(modulesDir, name, TOOL_SNAPSHOT_DIR);
  const current = toolSnapshots(module, MODULES);
  const committed = readToolSnapshots(dir);

  it.each([...current.keys()])('%s matches its snapshot', (tool) => {
    const snapshot = committed.get(tool);
    if (snapshot === undefined) throw new Error(`modules/${name}/${TOOL_SNAPSHOT_DIR}/${toolSnapshotFile(tool)} is missing: run npm run schemas:write and commit it`);
    // Compared as values first for a readable diff, then as text so formatting stays what the script writes.
    expect(JSON.parse(current.get(tool)!)).toEqual(JSON.parse(snapshot));
    expect(current.get(tool)).toBe(snapshot);
  });

  it('has a snapshot for every tool and none for a tool it does not have', () => {
    const { stale, missing } = snapshotDifferences(current, committed);
    expect({ staleSnapshots: stale, toolsWithoutSnapshot: missing }).toEqual({ staleSnapshots: [], toolsWithoutSnapshot: [] });
  });
});

it('every snapshot folder belongs to a registered module', () => {
  const registered = new Set(snapshotted.map((module) => module.name));
  const orphans = fs.readdirSync(modulesDir).filter((entry) => fs.existsSync(path.join(modulesDir, entry, TOOL_SNAPSHOT_DIR)) && !registered.has(entry));
  expect(orphans).toEqual([]);
});

describe('snapshotDifferences', () => {
  it('names the changed tool, the stale snapshot and the tool with no snapshot', () => {
    const current = new Map([['a_same', '1\n'], ['a_changed', 'new\n'], ['a_new', 'x\n']]);
    const committed = new Map([['a_same', '1\n'], ['a_changed', 'old\n'], ['a_gone', 'y\n']]);
    expect(snapshotDifferences(current, committed)).toEqual({ changed: ['a_changed'], stale: ['a_gone'], missing: ['a_new'] });
  });

  it('finds nothing when every snapshot matches', () => {
    const same = new Map([['a_one', '1\n']]);
    expect(snapshotDifferences(same, new Map(same))).toEqual({ changed: [], stale: [], missing: [] });
  });
});
