import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../db/config';
import { buildWorkflowBundle } from '../worker/bundle';

/**
 * `npm run build`: Steward compiled ahead of time, for a production image that runs plain `node`:
 * - TypeScript compiled by tsc (tsconfig.build.json) into dist/app, the source tree's shape kept, so
 *   paths a module finds beside itself (its workflows, its widgets) resolve there as in the source;
 * - the files read at run time beside the code copied in: widget scripts (`.mts`, bundled for the
 *   browser when first served), page templates (`.eta`) and tool search's phrasing vectors (`.bin`);
 * - the workflow bundle built once into dist/workflow-bundle.js (STEWARD_WORKFLOW_BUNDLE names it).
 * Run: `node dist/app/api/main.js`, `node dist/app/worker/main.js`, `node dist/app/scripts/admin.js`.
 */
const SOURCE_FOLDERS = ['core', 'db', 'kernel', 'modules', 'temporal', 'workflows', 'activities', 'worker', 'api', 'scripts', 'sandbox'];
const RUNTIME_FILES = /\.(mts|eta|bin)$/;

export const BUILD_DIR = path.join(PROJECT_ROOT, 'dist', 'app');
export const BUILT_BUNDLE = path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js');

function copyRuntimeFiles(): number {
  let copied = 0;
  for (const folder of SOURCE_FOLDERS) {
    const root = path.join(PROJECT_ROOT, folder);
    for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
      const from = path.join(entry.parentPath, entry.name);
      if (!entry.isFile() || !RUNTIME_FILES.test(entry.name) || from.includes(`${path.sep}__tests__${path.sep}`)) continue;
      const to = path.join(BUILD_DIR, path.relative(PROJECT_ROOT, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
      copied++;
    }
  }
  return copied;
}

async function main() {
  fs.rmSync(BUILD_DIR, { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(PROJECT_ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  const copied = copyRuntimeFiles();
  await buildWorkflowBundle(BUILT_BUNDLE);
  console.log(`built ${path.relative(PROJECT_ROOT, BUILD_DIR)} (${copied} runtime files copied) and ${path.relative(PROJECT_ROOT, BUILT_BUNDLE)}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
