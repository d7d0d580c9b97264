import pg from 'pg';
import { buildWorkflowBundle } from '../../worker/bundle';
import { startDevServer } from '../../scripts/lib/temporal-dev-server';
import { createTemplateDatabase } from './database';
import { BUNDLE_PATH_ENV, DEFAULT_TEST_BUNDLE, STACKS_DIR_ENV, TEMPLATE_DATABASE_ENV, TEST_DATABASE_URL } from './env';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Once per test run: a check that Postgres answers, the template database every suite's database
 * is copied from (migrated once), a real Temporal dev server (unless TEMPORAL_ADDRESS names one),
 * the workflow bundle built once, and the folder where each jest worker's shared stack is found
 * (test/helpers/shared-stack.ts; the first suite that asks starts it).
 */
export default async function globalSetup(): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(`Tests need Postgres at ${TEST_DATABASE_URL} (set DATABASE_URL): ${String(error)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  // One payload key for the whole run: API, workers and any worker process a test spawns share it.
  process.env.STEWARD_PAYLOAD_KEY ??= randomBytes(32).toString('base64');
  // Media files the tests store go to a folder of this run's own, removed at teardown, not the checkout's .data/media.
  if (!process.env.MEDIA_LOCAL_DIR) {
    process.env.MEDIA_LOCAL_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-test-media-'));
    (globalThis as Record<string, unknown>).__stewardTestMediaDir = process.env.MEDIA_LOCAL_DIR;
  }
  process.env[STACKS_DIR_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-test-stacks-'));
  // The three are independent: made side by side.
  await Promise.all([
    (async () => {
      if (process.env[TEMPLATE_DATABASE_ENV]) return;
      process.env[TEMPLATE_DATABASE_ENV] = await createTemplateDatabase();
      (globalThis as Record<string, unknown>).__stewardTemplateDatabase = process.env[TEMPLATE_DATABASE_ENV];
    })(),
    (async () => {
      if (process.env.TEMPORAL_ADDRESS) return;
      const server = await startDevServer({ headless: true });
      process.env.TEMPORAL_ADDRESS = server.address;
      (globalThis as Record<string, unknown>).__stewardDevServer = server;
    })(),
    (async () => {
      if (process.env[BUNDLE_PATH_ENV]) return;
      process.env[BUNDLE_PATH_ENV] = await buildWorkflowBundle(DEFAULT_TEST_BUNDLE);
    })(),
  ]);
}
