import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { BUNDLE_PATH_ENV } from '../../../test/helpers/env';
import type { GrowCampaignActivities } from '../activities/campaigns';
import type { BatchStep } from '../campaigns';
import { growCampaignPoke } from '../workflows/campaign';

jest.setTimeout(120_000);

/**
 * The campaign workflow alone, on the real dev server with activities standing in for the database:
 * a poke that arrives while a batch is running (a person resumes while the pause's batch is being
 * read) must end the paused campaign's next wait at once, not be forgotten for its minute-long look.
 */
describe('grow: the campaign workflow keeps a poke that arrives during a batch', () => {
  let connection: Connection;
  let native: NativeConnection;
  let client: Client;

  beforeAll(async () => {
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    native = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    client = new Client({ connection });
  });

  afterAll(async () => {
    await native?.close();
    await connection?.close();
  });

  it('goes on with no timer firing when resumed during the batch that found it paused', async () => {
    const taskQueue = `grow-poke-${randomUUID()}`;
    const workflowId = `grow-campaign-${randomUUID()}`;
    const steps: BatchStep[] = [];
    const activities: GrowCampaignActivities = {
      async growCampaignBegin() {
        return { status: 'scheduled', sendAt: null, abTest: false, waitSeconds: 0, testSentAt: null, winner: null };
      },
      async growCampaignSendBatch() {
        // The first batch finds the campaign paused; the resume's poke reaches the workflow before this batch answers.
        const step: BatchStep = steps.length === 0 ? { state: 'paused', handed: 0, skipped: 0 } : { state: 'done', handed: 1, skipped: 0 };
        if (steps.length === 0) await client.workflow.getHandle(workflowId).signal(growCampaignPoke);
        steps.push(step);
        return step;
      },
      async growCampaignDecideWinner() {
        return { winner: 0, by: 'clicks' };
      },
      async growCampaignMark() {},
    };
    const worker = await Worker.create({ connection: native, taskQueue, workflowBundle: { codePath: process.env[BUNDLE_PATH_ENV]! }, activities });
    await worker.runUntil(async () => {
      const handle = await client.workflow.start('growCampaignWorkflow', { taskQueue, workflowId, args: [{ orgId: randomUUID(), campaignId: randomUUID() }] });
      expect(await handle.result()).toEqual({ status: 'sent', batches: 2 });
      expect(steps.map((s) => s.state)).toEqual(['paused', 'done']);
      // Forgotten, the poke would leave the paused campaign on its 60 s timer, which fires before it goes on.
      const { events } = await handle.fetchHistory();
      expect(events?.filter((event) => event.timerFiredEventAttributes)).toEqual([]);
      expect(events?.some((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')).toBe(true);
    });
  });
});
