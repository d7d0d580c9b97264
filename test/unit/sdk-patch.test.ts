import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger } from '@temporalio/worker';
import { noopMetricMeter } from '@temporalio/common/lib/metrics';
import { PROJECT_ROOT } from '../../db/config';

/**
 * The Temporal SDK runs patched (patches/, applied by npm's postinstall): no deadlock watchdog
 * thread per sandbox entry and no promise hook, unless STEWARD_WORKFLOW_WATCHDOG=on brings the
 * SDK's own behaviour back. These fail when the patch stops applying (a new SDK version, a lost
 * postinstall) or stops doing what it says.
 */

// The SDK's internal modules: required by path because they are not part of its typed API.
const workerOptions = require('@temporalio/worker/lib/worker-options') as {
  compileWorkerOptions(raw: object, logger: unknown, meter: unknown): { isolateExecutionTimeoutMs?: number };
};
const vmShared = require('@temporalio/worker/lib/workflow/vm-shared') as {
  GlobalHandlers: new () => { install(): void; uninstall(): void; promiseHookInstalled: boolean };
};

const PATCHES_DIR = path.join(PROJECT_ROOT, 'patches');
const packageJson = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function withWatchdogSetting<T>(value: string | undefined, run: () => T): T {
  const before = process.env.STEWARD_WORKFLOW_WATCHDOG;
  if (value === undefined) delete process.env.STEWARD_WORKFLOW_WATCHDOG;
  else process.env.STEWARD_WORKFLOW_WATCHDOG = value;
  try {
    return run();
  } finally {
    if (before === undefined) delete process.env.STEWARD_WORKFLOW_WATCHDOG;
    else process.env.STEWARD_WORKFLOW_WATCHDOG = before;
  }
}

function compiledTimeout(): number | undefined {
  const logger = new DefaultLogger('ERROR');
  const raw = { taskQueue: 'sdk-patch-test', workflowBundle: { code: '' } };
  return workerOptions.compileWorkerOptions(raw, logger, noopMetricMeter).isolateExecutionTimeoutMs;
}

function promiseHookInstalled(): boolean {
  const handlers = new vmShared.GlobalHandlers();
  handlers.install();
  try {
    return handlers.promiseHookInstalled;
  } finally {
    handlers.uninstall();
  }
}

describe('the patched Temporal SDK', () => {
  it('is applied by npm install and pinned to the exact version the patch was made for', () => {
    expect(packageJson.scripts.postinstall).toMatch(/^patch-package\b.*--error-on-fail/);
    const patches = fs.readdirSync(PATCHES_DIR).filter((name) => name.endsWith('.patch'));
    const workerPatch = patches.find((name) => name.startsWith('@temporalio+worker+'));
    expect(workerPatch).toBeDefined();
    const patchedVersion = workerPatch!.replace('@temporalio+worker+', '').replace('.patch', '');
    const installed = JSON.parse(fs.readFileSync(require.resolve('@temporalio/worker/package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(patchedVersion);
    // Every @temporalio package pinned exactly, so an install can never move the worker past its patch.
    const all = { ...packageJson.dependencies, ...packageJson.devDependencies };
    const temporal = Object.entries(all).filter(([name]) => name.startsWith('@temporalio/'));
    expect(temporal.length).toBeGreaterThan(0);
    for (const [, range] of temporal) expect(range).toBe(patchedVersion);
  });

  it('gives sandbox entries no timeout, so Node starts no watchdog thread per entry', () => {
    expect(withWatchdogSetting(undefined, compiledTimeout)).toBeUndefined();
  });

  it('installs no promise hook, so workflows build no stack per promise', () => {
    expect(withWatchdogSetting(undefined, promiseHookInstalled)).toBe(false);
  });

  it('brings the SDK defaults back with STEWARD_WORKFLOW_WATCHDOG=on', () => {
    expect(withWatchdogSetting('on', compiledTimeout)).toBe(5000);
    expect(withWatchdogSetting('on', promiseHookInstalled)).toBe(true);
  });
});
