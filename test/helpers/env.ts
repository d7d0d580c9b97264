import os from 'node:os';
import path from 'node:path';

/** Where the tests find Postgres: DATABASE_URL, else the machine's local server. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const BUNDLE_PATH_ENV = 'STEWARD_TEST_WORKFLOW_BUNDLE';
/** The run's template database (test/helpers/database.ts), made by the global setup. */
export const TEMPLATE_DATABASE_ENV = 'STEWARD_TEST_TEMPLATE_DATABASE';
/** The run's folder of shared stacks, one a jest worker (test/helpers/shared-stack.ts), made by the global setup. */
export const STACKS_DIR_ENV = 'STEWARD_TEST_STACKS_DIR';
// One bundle per test run: runs side by side (parallel checkouts, CI and a developer) never overwrite each other's.
export const DEFAULT_TEST_BUNDLE = path.join(os.tmpdir(), `steward-test-workflow-bundle-${process.pid}.js`);
