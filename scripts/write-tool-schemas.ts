import fs from 'node:fs';
import path from 'node:path';
import { MODULES } from '../modules';
import { TOOL_SNAPSHOT_DIR, readToolSnapshots, snapshotDifferences, toolSnapshotFile, toolSnapshots } from '../modules/tool-schemas';

/**
 * `npm run schemas:write`: rewrites each module's tool snapshots (modules/<module>/__toolsnaps__/<tool>.json)
 * from the catalogue after a deliberate change to a tool's arguments or results, and deletes the
 * snapshots of tools that no longer exist. Review the diff: it is the contract agents see.
 */
const root = path.resolve(__dirname, '..');
for (const module of MODULES) {
  const dir = path.join(root, 'modules', module.name, TOOL_SNAPSHOT_DIR);
  const current = toolSnapshots(module, MODULES);
  const { changed, stale, missing } = snapshotDifferences(current, readToolSnapshots(dir));
  if (changed.length + stale.length + missing.length === 0) continue;
  fs.mkdirSync(dir, { recursive: true });
  for (const name of [...changed, ...missing]) {
    fs.writeFileSync(path.join(dir, toolSnapshotFile(name)), current.get(name)!);
    console.log(`${missing.includes(name) ? 'created' : 'updated'} ${path.relative(root, path.join(dir, toolSnapshotFile(name)))}`);
  }
  for (const name of stale) {
    fs.unlinkSync(path.join(dir, toolSnapshotFile(name)));
    console.log(`deleted ${path.relative(root, path.join(dir, toolSnapshotFile(name)))}`);
  }
}
