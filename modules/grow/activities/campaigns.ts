import { Context } from '@temporalio/activity';
import { guarded } from '../../activity-kit';
import { outboxDispatch } from '../../channels/api';
import type { ActivityDeps } from '../../module';
import { beginCampaign, decideWinner, markPhase, sendCampaignBatch, type BatchStep, type CampaignBegin } from '../campaigns';

/** A campaign's sending as activities (workflows/campaign.ts); a batch heartbeats while it hands messages to the outbox. */
export function createGrowCampaignActivities(deps: ActivityDeps) {
  return {
    async growCampaignBegin(input: { orgId: string; campaignId: string }): Promise<CampaignBegin> {
      return guarded(() => beginCampaign(deps.pool, input.orgId, input.campaignId));
    },
    async growCampaignSendBatch(input: { orgId: string; campaignId: string; phase: 'all' | 'test' | 'rest'; batchSize: number }): Promise<BatchStep> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 1000);
      try {
        const dispatch = outboxDispatch(deps.outbox, input.orgId);
        return await guarded(() => sendCampaignBatch(deps.pool, input.orgId, input.campaignId, input.phase, input.batchSize, async (messageId) => {
          ctx.heartbeat();
          return dispatch(messageId);
        }));
      } finally {
        clearInterval(beat);
      }
    },
    async growCampaignDecideWinner(input: { orgId: string; campaignId: string }): Promise<{ winner: number; by: string }> {
      return guarded(() => decideWinner(deps.pool, input.orgId, input.campaignId));
    },
    async growCampaignMark(input: { orgId: string; campaignId: string; what: 'test_sent' | 'sent' }): Promise<void> {
      return guarded(() => markPhase(deps.pool, input.orgId, input.campaignId, input.what));
    },
  };
}

export type GrowCampaignActivities = ReturnType<typeof createGrowCampaignActivities>;
