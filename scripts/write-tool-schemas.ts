import fs from 'node:fs';
import path from 'node:path';
import { MODULES } from '../modules';
import { TOOL_SCHEMA_LOCK_FILE, toolSchemaLock } from '../modules/tool-schemas';

/**
 * `npm run schemas:write`: rewrites each module's tools.lock.json from the catalogue, after a
 * deliberate change to a tool's arguments or results. Review the diff: it is the contract agents see.
 */
const root = path.resolve(__dirname, '..');
for (const module of MODULES) {
  const file = path.join(root, 'modules', module.name, TOOL_SCHEMA_LOCK_FILE);
  const text = toolSchemaLock(module, MODULES);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (before === text) continue;
  fs.writeFileSync(file, text);
  console.log(`${before === null ? 'created' : 'updated'} ${path.relative(root, file)}`);
}
