import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { KitdemoActivities } from '../activities/thanks';

// Heartbeats as every outbox send, so a worker dying mid-send is noticed and the send retried under the outbox's lease.
const { kitdemoSendThanks } = proxyActivities<KitdemoActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
});

/** Sent by the read-receipt webhook (webhooks/receipts.ts) once it has recorded the receipt. */
export const thanksReadSignal = defineSignal('kitdemoThanksRead');

export const thanksWorkflowId = (thanksId: string) => `kitdemo-thanks-${thanksId}`;

/** How long a thank-you waits for its read receipt before the workflow ends without one. */
const READ_WAIT = '7 days';

/** One thank-you: sent through the outbox, then followed until its read receipt arrives (or a week passes). */
export async function kitdemoThanksWorkflow(input: { orgId: string; thanksId: string }): Promise<{ sent: string; read: boolean }> {
  let read = false;
  setHandler(thanksReadSignal, () => { read = true; });
  const outcome = await kitdemoSendThanks(input.orgId, input.thanksId);
  if (outcome.status !== 'sent') return { sent: outcome.status, read: false };
  await condition(() => read, READ_WAIT);
  return { sent: outcome.status, read };
}
