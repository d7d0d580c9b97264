import type { FollowUpPlanner, FollowUpStep } from '../../../core/tool-plan';
import { offerAnsweredSignal, runsheetMessageWorkflowId, substitutionWorkflowId } from './substitution';

const startSearch = (orgId: string, substitutionId: string): FollowUpStep => ({
  start: 'runsheetSubstitutionWorkflow', id: substitutionWorkflowId(substitutionId), args: [{ orgId, substitutionId }], searchAttributes: { kind: 'substitute_search' },
});

/** The runsheet module's follow-ups (see FollowUpPlanner in core/tool-plan.ts). */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  /** A decline opened a substitute search: it starts; an answer to an offer wakes the search waiting on it. */
  'runsheet.respond': (result, { orgId }) => {
    const answer = result as { substitutionId?: unknown; offerAnswered?: { offerId?: unknown; workflowId?: unknown } | null } | null;
    const steps: FollowUpStep[] = [];
    if (typeof answer?.substitutionId === 'string') steps.push(startSearch(orgId, answer.substitutionId));
    const offer = answer?.offerAnswered;
    if (offer && typeof offer.offerId === 'string' && typeof offer.workflowId === 'string') steps.push({ signal: offerAnsweredSignal.name, id: offer.workflowId, args: [offer.offerId] });
    return steps;
  },
  /** A blockout gave up places: each search it opened starts. */
  'runsheet.blockout': (result, { orgId }) => {
    const released = (result as { released?: Array<{ substitutionId?: unknown }> } | null)?.released ?? [];
    return released.flatMap((row) => (typeof row.substitutionId === 'string' ? [startSearch(orgId, row.substitutionId)] : []));
  },
  /** Each queued rota request goes out through the outbox. */
  'runsheet.send_requests': (result, { orgId }) => {
    const queued = (result as { queued?: Array<{ messageId?: unknown }> } | null)?.queued ?? [];
    return queued.flatMap((row) => (typeof row.messageId === 'string'
      ? [{ start: 'runsheetMessageWorkflow', id: runsheetMessageWorkflowId(orgId, row.messageId), args: [{ orgId, messageId: row.messageId }], searchAttributes: { kind: 'rota_message' } }]
      : []));
  },
};
