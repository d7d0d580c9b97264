import type { FollowUpPlanner } from '../../../core/tool-plan';
import { whatsAppReviewWorkflowId } from './whatsapp-review';

/** The version a submit result names (`version.id`). */
function templateVersionIdOfResult(result: unknown): string | undefined {
  const id = (result as { version?: { id?: unknown } } | null)?.version?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The templates module's follow-ups, by kind (see FollowUpPlanner in core/tool-plan.ts). */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  /** A version submitted to WhatsApp gets a follower of its review (whatsapp-review.ts), outliving the call; a repeated submit finds it started. */
  'templates.whatsapp_review': (result, { orgId }) => {
    const versionId = templateVersionIdOfResult(result);
    return versionId
      ? [{ start: 'whatsAppTemplateReviewWorkflow', id: whatsAppReviewWorkflowId(versionId), args: [{ orgId, versionId }], searchAttributes: { kind: 'whatsapp_template_review' } }]
      : [];
  },
};
