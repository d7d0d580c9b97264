import { condition, defineSignal, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { TemplatesReviewActivities } from '../activities/whatsapp-review';

const { templatesReviewPolling, templatesCheckReview } = proxyActivities<TemplatesReviewActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** The review's id and the signal applyWhatsAppTemplateStatus (../whatsapp-review.ts) sends when the webhook decides it. */
export const whatsAppTemplateStatusSignal = defineSignal('whatsAppTemplateStatus');
export const whatsAppReviewWorkflowId = (versionId: string) => `templates-whatsapp-review-${versionId}`;

export interface WhatsAppReviewInput {
  orgId: string;
  versionId: string;
}

export interface WhatsAppReviewResult {
  versionId: string;
  /** approved or rejected (or paused/disabled); pending when the workflow gave up following; gone when the version no longer exists. */
  status: string;
  polls: number;
}

/**
 * Follows WhatsApp's review of one template version until it decides. It waits for the status
 * webhook (applyWhatsAppTemplateStatus records it and signals here), and when none comes, asks
 * the provider itself on a timer that doubles up to a cap: a lost webhook delays the decision,
 * never loses it. Durable timers, so the wait survives restarts; a decision ends it.
 */
export async function whatsAppTemplateReviewWorkflow(input: WhatsAppReviewInput): Promise<WhatsAppReviewResult> {
  let told = false;
  setHandler(whatsAppTemplateStatusSignal, () => { told = true; });
  const polling = await templatesReviewPolling();
  const startedAt = Date.now();
  let waitMs = polling.firstMs;
  let polls = 0;
  const look = async (poll: boolean): Promise<string> => {
    if (poll) polls += 1;
    try {
      return (await templatesCheckReview({ orgId: input.orgId, versionId: input.versionId, poll })).status;
    } catch {
      // The provider or the database did not answer this time; the next wake asks again.
      return 'pending';
    }
  };
  // A decision the provider made at once can reach the webhook before the submission is recorded,
  // when it matches no version and is dropped: so the provider is asked once before the first wait.
  // Histories started before this look replay without it.
  if (patched('whatsapp-review-first-look')) {
    const status = await look(true);
    if (status !== 'pending') return { versionId: input.versionId, status, polls };
  }
  for (;;) {
    const signalled = await condition(() => told, waitMs);
    told = false;
    const status = await look(!signalled);
    if (status !== 'pending') return { versionId: input.versionId, status, polls };
    if (Date.now() - startedAt >= polling.giveUpMs) return { versionId: input.versionId, status, polls };
    waitMs = Math.min(waitMs * 2, polling.maxMs);
  }
}
