import fs from 'node:fs';
import type { DevServer } from '../../scripts/lib/temporal-dev-server';
import { dropDatabase } from './database';
import { BUNDLE_PATH_ENV, DEFAULT_TEST_BUNDLE, STACKS_DIR_ENV } from './env';
import { stopSharedStacks } from './shared-stack';

export default async function globalTeardown(): Promise<void> {
  // The shared stacks first: they are clients of the dev server and of their databases.
  if (process.env[STACKS_DIR_ENV]) await stopSharedStacks(process.env[STACKS_DIR_ENV]);
  const server = (globalThis as Record<string, unknown>).__stewardDevServer as DevServer | undefined;
  if (server) await server.stop();
  // Only the template this run made; one named by the caller (STEWARD_TEST_TEMPLATE_DATABASE) is theirs to keep.
  const template = (globalThis as Record<string, unknown>).__stewardTemplateDatabase as string | undefined;
  if (template) await dropDatabase(template);
  const mediaDir = (globalThis as Record<string, unknown>).__stewardTestMediaDir as string | undefined;
  if (mediaDir) fs.rmSync(mediaDir, { recursive: true, force: true });
  // Only the bundle this run built; one named by the caller is theirs to keep.
  if (process.env[BUNDLE_PATH_ENV] === DEFAULT_TEST_BUNDLE) fs.rmSync(DEFAULT_TEST_BUNDLE, { force: true });
}
