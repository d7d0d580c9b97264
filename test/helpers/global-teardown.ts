import fs from 'node:fs';
import type { DevServer } from '../../scripts/lib/temporal-dev-server';
import { dropTemplateDatabase } from './database';
import { BUNDLE_PATH_ENV, DEFAULT_TEST_BUNDLE } from './env';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__stewardDevServer as DevServer | undefined;
  if (server) await server.stop();
  // Only the template this run made; one named by the caller (STEWARD_TEST_TEMPLATE_DATABASE) is theirs to keep.
  const template = (globalThis as Record<string, unknown>).__stewardTemplateDatabase as string | undefined;
  if (template) await dropTemplateDatabase(template);
  const mediaDir = (globalThis as Record<string, unknown>).__stewardTestMediaDir as string | undefined;
  if (mediaDir) fs.rmSync(mediaDir, { recursive: true, force: true });
  // Only the bundle this run built; one named by the caller is theirs to keep.
  if (process.env[BUNDLE_PATH_ENV] === DEFAULT_TEST_BUNDLE) fs.rmSync(DEFAULT_TEST_BUNDLE, { force: true });
}
