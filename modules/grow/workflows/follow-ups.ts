import type { FollowUpPlanner } from '../../../core/tool-plan';
import { automationFollowUps } from './automation';
import { growCampaignPoke, growCampaignWorkflowId } from './campaign';

function campaignIdOf(result: unknown): string | undefined {
  const id = (result as { campaign?: { id?: unknown } } | null)?.campaign?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The grow module's follow-ups, by kind (see FollowUpPlanner in core/tool-plan.ts). */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  ...automationFollowUps,
  /** A previewed or scheduled campaign has its sending workflow (started once under its id; it waits until scheduled). */
  'grow.campaign': (result, { orgId }) => {
    const campaignId = campaignIdOf(result);
    return campaignId
      ? [
        { start: 'growCampaignWorkflow', id: growCampaignWorkflowId(campaignId), args: [{ orgId, campaignId }], searchAttributes: { kind: 'campaign' } },
        // Already started by the preview: it looks again now (scheduled) instead of at its next poll.
        { signal: growCampaignPoke.name, id: growCampaignWorkflowId(campaignId) },
      ]
      : [];
  },
  /** Pause, resume, cancel or a winner picked: the workflow looks again at once. */
  'grow.campaign_poke': (result) => {
    const campaignId = campaignIdOf(result);
    return campaignId ? [{ signal: growCampaignPoke.name, id: growCampaignWorkflowId(campaignId) }] : [];
  },
};
