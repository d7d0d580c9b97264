import { randomUUID } from 'node:crypto';
import { syncAllSchedules } from '../../activities/schedules';
import { Harness, type TestOrg } from '../helpers/harness';

describe('daily maintenance', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    // Its own stack: maintenance sweeps every organisation and schedules on the task queue.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('runs on a schedule of its own per task queue', async () => {
    await syncAllSchedules(harness.temporal, harness.pool, harness.taskQueue);
    const schedule = await harness.temporal.schedule.getHandle(`maintenance-${harness.taskQueue}`).describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'maintenanceWorkflow', taskQueue: harness.taskQueue });
    // Deployment-wide, so it keeps the epoch's times: 00:00 UTC.
    expect(schedule.spec.intervals).toEqual([{ every: 24 * 3_600_000, offset: 0 }]);
    expect(schedule.policies.overlap).toBe('SKIP');
    await harness.temporal.schedule.getHandle(`maintenance-${harness.taskQueue}`).delete();
  });

  it('removes stored write results and cached postcodes past their retention, and nothing fresh', async () => {
    const insertResult = (id: string, age: string) => harness.pool.query(
      `INSERT INTO tool_call_results (workflow_id, org_id, tool, result, created_at) VALUES ($1, $2, 'people_add_note', '{"note":"old"}', now() - $3::interval)`,
      [id, org.orgId, age]);
    const oldId = `old-${randomUUID()}`;
    const freshId = `fresh-${randomUUID()}`;
    await insertResult(oldId, '2 days');
    await insertResult(freshId, '1 hour');
    await harness.pool.query(`INSERT INTO postcode_cache (postcode, result, fetched_at) VALUES ('ZZ1 1ZZ', 'null', now() - interval '40 days'), ('ZZ2 2ZZ', 'null', now())`);

    const counts = await harness.temporal.workflow.execute('maintenanceWorkflow', { taskQueue: harness.taskQueue, workflowId: `maintenance-test-${randomUUID()}` });
    expect(counts).toMatchObject({ toolCallResults: 1, postcodeCache: 1 });
    const left = await harness.pool.query('SELECT workflow_id FROM tool_call_results WHERE workflow_id = ANY($1)', [[oldId, freshId]]);
    expect(left.rows.map((row) => row.workflow_id)).toEqual([freshId]);
    const postcodes = await harness.pool.query("SELECT postcode FROM postcode_cache WHERE postcode LIKE 'ZZ%'");
    expect(postcodes.rows.map((row) => row.postcode)).toEqual(['ZZ2 2ZZ']);
  });
});
