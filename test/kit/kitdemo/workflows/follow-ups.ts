import type { FollowUpPlanner } from '../../../../core/tool-plan';
import { thanksWorkflowId } from './thanks';

/** The kit demo's follow-ups: a queued thank-you gets its workflow, outliving the call. */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  'kitdemo.send_thanks': (result, { orgId }) => {
    const thanksId = (result as { thanks?: { id?: unknown } } | null)?.thanks?.id;
    return typeof thanksId === 'string'
      ? [{ start: 'kitdemoThanksWorkflow', id: thanksWorkflowId(thanksId), args: [{ orgId, thanksId }], searchAttributes: { kind: 'kitdemo_thanks' } }]
      : [];
  },
};
