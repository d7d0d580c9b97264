import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PROJECT_ROOT } from '../db/config';

export const DEFAULT_BUNDLE_PATH = path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js');
const WORKFLOWS_DIR = path.join(PROJECT_ROOT, 'workflows');

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true } as const)) {
    if (entry.isFile() && entry.name.endsWith('.ts')) {
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? dir, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/** Builds the workflow bundle once; workers then load it instead of bundling at start. */
export async function buildWorkflowBundle(outPath = DEFAULT_BUNDLE_PATH): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve(WORKFLOWS_DIR), logger: quietLogger });
  fs.mkdirSync(path.dirname(outPath), { recursive: true });
  fs.writeFileSync(outPath, code);
  return outPath;
}

/** The prebuilt bundle, rebuilt only when a workflow source file is newer than it. */
export async function ensureWorkflowBundle(outPath = DEFAULT_BUNDLE_PATH): Promise<string> {
  const built = fs.existsSync(outPath) ? fs.statSync(outPath).mtimeMs : 0;
  const sources = Math.max(newestSourceMtime(WORKFLOWS_DIR), newestSourceMtime(path.join(PROJECT_ROOT, 'core')));
  if (built > sources) return outPath;
  return buildWorkflowBundle(outPath);
}

const quietLogger = {
  log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined,
  warn: (message: string) => console.warn(message), error: (message: string) => console.error(message),
};
