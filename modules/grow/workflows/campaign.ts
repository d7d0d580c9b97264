import { continueAsNew, defineSignal, patched, proxyActivities } from '@temporalio/workflow';
import type { GrowCampaignActivities } from '../activities/campaigns';
import { pokeableWait } from './poke';

const { growCampaignBegin, growCampaignSendBatch, growCampaignDecideWinner, growCampaignMark } = proxyActivities<GrowCampaignActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export const growCampaignWorkflowId = (campaignId: string) => `grow-campaign-${campaignId}`;
/** Sent by pause, resume, cancel and a person's winner pick: look again now rather than at the next poll. */
export const growCampaignPoke = defineSignal('growCampaignPoke');

const BATCH = 200;
/** Marks histories made since a run continued after a cancel finishes what its predecessor had begun to send. */
const CANCELLED_CONTINUATION_DRAINS = 'grow-cancelled-continuation-drains';
const BATCHES_PER_RUN = 200;
const HOUR_MS = 3_600_000;

export interface GrowCampaignInput { orgId: string; campaignId: string; batchesSoFar?: number }

/**
 * One campaign's sending, durably: waits for sendAt, then (A/B) sends the test phase, waits the
 * chosen time on a timer, decides the winner by clicks (a person's pick stands) and sends it to the
 * rest; otherwise sends to everyone. Paused holds it (it looks again when poked or every minute);
 * quiet hours hold it until they end; cancelled ends it once what had begun to send has gone. The
 * campaign's rows hold what is done, so a restart goes on where it was.
 */
export async function growCampaignWorkflow(input: GrowCampaignInput): Promise<{ status: string; batches: number }> {
  const wait = pokeableWait(growCampaignPoke);
  let batches = input.batchesSoFar ?? 0;
  const look = () => growCampaignBegin({ orgId: input.orgId, campaignId: input.campaignId });

  let begun = await look();
  // Until it is scheduled (a person may still be deciding on the approval), look again now and then.
  while (begun.status === 'draft' || begun.status === 'previewed') {
    await wait(60_000);
    begun = await look();
  }
  while (begun.sendAt && Date.parse(begun.sendAt) > Date.now() && begun.status !== 'cancelled') {
    await wait(Math.min(Date.parse(begun.sendAt) - Date.now(), 24 * HOUR_MS));
    begun = await look();
  }

  const sendPhase = async (phase: 'all' | 'test' | 'rest'): Promise<'done' | 'cancelled'> => {
    for (let inRun = 0; ; inRun += 1) {
      if (inRun >= BATCHES_PER_RUN) await continueAsNew<typeof growCampaignWorkflow>({ ...input, batchesSoFar: batches });
      const step = await growCampaignSendBatch({ orgId: input.orgId, campaignId: input.campaignId, phase, batchSize: BATCH });
      batches += 1;
      if (step.state === 'done') return 'done';
      if (step.state === 'cancelled') return 'cancelled';
      if (step.state === 'paused') await wait(60_000);
      // Quiet hours, a message another attempt holds, or a retry's wait: back when due (or when poked by a pause, resume or cancel).
      if (step.state === 'waiting') await wait(Date.parse(step.until!) - Date.now());
    }
  };

  if (begun.status === 'cancelled') {
    // A run continued from one that had sent batches may hold emails being sent at the cancel: finished before it ends.
    if (batches > 0 && patched(CANCELLED_CONTINUATION_DRAINS)) await sendPhase('all');
    return { status: 'cancelled', batches };
  }
  if (begun.abTest) {
    if (!begun.testSentAt) {
      if ((await sendPhase('test')) === 'cancelled') return { status: 'cancelled', batches };
      await growCampaignMark({ orgId: input.orgId, campaignId: input.campaignId, what: 'test_sent' });
      begun = await look();
    }
    // The durable timer: the test group has the chosen time to click; a person's pick ends the wait early.
    const until = Date.parse(begun.testSentAt!) + begun.waitSeconds * 1000;
    while (Date.now() < until && begun.winner === null && begun.status !== 'cancelled') {
      await wait(until - Date.now());
      begun = await look();
    }
    if (begun.status === 'cancelled') return { status: 'cancelled', batches };
    await growCampaignDecideWinner({ orgId: input.orgId, campaignId: input.campaignId });
    if ((await sendPhase('rest')) === 'cancelled') return { status: 'cancelled', batches };
  } else if ((await sendPhase('all')) === 'cancelled') {
    return { status: 'cancelled', batches };
  }
  await growCampaignMark({ orgId: input.orgId, campaignId: input.campaignId, what: 'sent' });
  return { status: 'sent', batches };
}
