import { proxyActivities, sleep } from '@temporalio/workflow';
import { ApplicationFailure } from '@temporalio/common';
import type { ChannelsDeliveryActivities } from '../activities/delivery';
import type { OutboxActivities, OutboxOutcome } from '../../outbox-source';

/** The outbox source kind of channel messages (modules/channels/delivery/source.ts); a literal, as workflow code imports no database code. */
const CHANNEL_MESSAGE_SOURCE_KIND = 'channels.message';

// Heartbeats as every outbox send, so a worker dying mid-send is noticed and the send retried under the outbox's lease.
const { sendOutboxMessage } = proxyActivities<OutboxActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

const { failChannelMessage } = proxyActivities<ChannelsDeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 10 },
});

/** Quiet hours end within a day; a message deferred this many times in a row is left queued for a person to look at. */
const MAX_DEFERRALS = 14;

export type ChannelMessageOutcome = OutboxOutcome | { status: 'failed'; error: { code: string; message: string } };

/**
 * One queued channel message on its way out: an outbox attempt (consent, suppression and quiet
 * hours checked inside it), and when quiet hours defer it, a durable sleep until they end and
 * another attempt: deferred, never dropped. A provider's refusal is recorded on the message.
 */
export async function channelMessageWorkflow(input: { orgId: string; messageId: string }): Promise<ChannelMessageOutcome> {
  for (let deferral = 0; ; deferral += 1) {
    let outcome: OutboxOutcome;
    try {
      outcome = await sendOutboxMessage(CHANNEL_MESSAGE_SOURCE_KIND, input.orgId, input.messageId);
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      const message = cause instanceof ApplicationFailure ? cause.message : (error as Error).message;
      const problem = { code: 'send_failed', message: `Sending gave up after repeated failures: ${message}` };
      // A provider's refusal is already on the message; anything else would leave it sending forever.
      await failChannelMessage(input.orgId, input.messageId, problem);
      return { status: 'failed', error: problem };
    }
    if (outcome.status !== 'deferred' || deferral >= MAX_DEFERRALS) return outcome;
    await sleep(Math.max(1000, Date.parse(outcome.until) - Date.now()));
  }
}

export const channelMessageWorkflowId = (orgId: string, messageId: string) => `channel-message-${orgId}-${messageId}`;
