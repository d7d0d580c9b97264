import fs from 'node:fs';
import path from 'node:path';
import { MODULES } from '../../modules';
import { TOOL_SCHEMA_LOCK_FILE, toolSchemaLock } from '../../modules/tool-schemas';

/**
 * Tool schemas do not change silently: every registered module's tools must match the
 * modules/<name>/tools.lock.json committed beside them (a new module needs its own file,
 * made by `npm run schemas:write`).
 */
describe.each(MODULES.map((module) => [module.name, module] as const))('tool schemas of %s', (name, module) => {
  const file = path.resolve(__dirname, '../../modules', name, TOOL_SCHEMA_LOCK_FILE);

  it(`match modules/${name}/${TOOL_SCHEMA_LOCK_FILE}`, () => {
    if (!fs.existsSync(file)) throw new Error(`modules/${name}/${TOOL_SCHEMA_LOCK_FILE} is missing: run npm run schemas:write and commit it`);
    const committed = fs.readFileSync(file, 'utf8');
    const current = toolSchemaLock(module, MODULES);
    // Compared as values first for a readable diff, then as text so formatting stays what the script writes.
    expect(JSON.parse(current)).toEqual(JSON.parse(committed));
    expect(current).toBe(committed);
  });
});
