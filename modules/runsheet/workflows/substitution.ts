import { condition, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { RunsheetActivities } from '../activities';

const steps = proxyActivities<RunsheetActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});
// Heartbeats as every outbox send, so a worker dying mid-send is noticed and the send retried under the outbox's lease.
const sender = proxyActivities<RunsheetActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
});

/** Sent by runsheet_respond_to_request's follow-up once an answer to an offer has committed: wakes the search at once. */
export const offerAnsweredSignal = defineSignal<[string]>('runsheetOfferAnswered');

export const substitutionWorkflowId = (substitutionId: string) => `runsheet-substitution-${substitutionId}`;
export const runsheetMessageWorkflowId = (orgId: string, messageId: string) => `runsheet-message-${orgId}-${messageId}`;

/** At most this many substitutes are asked in one search (a team larger than that is asked by hand). */
const MAX_OFFERS = 50;

/** One message through the outbox, waiting out quiet hours; what came of it. */
async function deliver(orgId: string, messageId: string): Promise<string> {
  for (let deferral = 0; deferral < 20; deferral += 1) {
    const outcome = await sender.runsheetSendMessage(orgId, messageId);
    if (outcome.status !== 'deferred') return outcome.status === 'refused' ? `refused: ${outcome.error.message}` : outcome.status;
    await sleep(Math.max(1_000, Date.parse(outcome.until) - Date.now()));
  }
  return 'deferred too often';
}

/**
 * Declines that fix themselves: a place given up (a decline, a blockout) on a team that wants it is
 * offered to the best eligible substitute, one at a time, each offer open until it expires; the first
 * to accept takes the place. When nobody is left, the scheduler is told. Every step is an activity
 * (visible in the Temporal UI) and a row runsheet_get_plan shows.
 */
export async function runsheetSubstitutionWorkflow(input: { orgId: string; substitutionId: string }): Promise<{ status: string; offers: number }> {
  const answered = new Set<string>();
  setHandler(offerAnsweredSignal, (offerId) => { answered.add(offerId); });
  for (let offers = 0; offers < MAX_OFFERS; offers += 1) {
    const next = await steps.runsheetNextOffer(input.orgId, input.substitutionId);
    if (next.kind === 'done') {
      if (next.noticeMessageId) await deliver(input.orgId, next.noticeMessageId);
      return { status: next.status, offers };
    }
    const sent = await deliver(input.orgId, next.messageId);
    if (sent !== 'sent') {
      await steps.runsheetOfferUnreachable(input.orgId, next.offerId, sent);
      continue;
    }
    let waitMs = next.expiresInMs;
    for (;;) {
      await condition(() => answered.has(next.offerId), Math.max(1, waitMs));
      const settled = await steps.runsheetSettleOffer(input.orgId, next.offerId);
      if (settled.status === 'accepted') return { status: 'filled', offers: offers + 1 };
      if (settled.status !== 'offered') break;
      waitMs = settled.remainingMs;
    }
  }
  return { status: 'searching', offers: MAX_OFFERS };
}

/** One rota request through the outbox. */
export async function runsheetMessageWorkflow(input: { orgId: string; messageId: string }): Promise<{ outcome: string }> {
  return { outcome: await deliver(input.orgId, input.messageId) };
}
