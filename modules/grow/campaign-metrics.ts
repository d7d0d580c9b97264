import { z } from 'zod';
import { queryRows } from '../../db/pool';
import { emailOutcomesOf } from '../channels/api';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange } from '../metrics';

const MAX_CAMPAIGNS = 50;

/**
 * Email campaigns finished over a range, each with the numbers its report gives: sent (handed to
 * the outbox), unique opens by people (machine opens left out), unique clickers, and the mail
 * provider's deliveries, bounces and complaints (through channels). Computed from the rows, never stored.
 */
export const campaignPerformance = defineMetric({
  name: 'campaign_performance',
  description: 'Email campaigns sent over a range (default: this month so far): per campaign, how many it went to, unique opens (machine opens left out), unique clicks, deliveries the mail provider reported, bounces and complaints.',
  scope: 'grow:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(),
    campaigns: z.array(z.object({
      campaignId: z.string(), name: z.string(), sentAt: z.string(), sent: z.number().int(), openedUnique: z.number().int(), clickedUnique: z.number().int(),
      delivered: z.number().int(), bounced: z.number().int(), complained: z.number().int(),
    }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const rows = await queryRows<{ id: string; name: string; sent_at: Date; sent: number; opened: number; clicked: number; messages: string[] }>(ctx.db, `SELECT c.id, c.name, c.sent_at,
        (SELECT count(*)::int FROM grow_campaign_recipients r WHERE r.org_id = c.org_id AND r.campaign_id = c.id AND r.status = 'handed') AS sent,
        (SELECT count(DISTINCT e.contact_id)::int FROM grow_campaign_events e WHERE e.org_id = c.org_id AND e.campaign_id = c.id AND e.kind = 'open' AND NOT e.machine) AS opened,
        (SELECT count(DISTINCT e.contact_id)::int FROM grow_campaign_events e WHERE e.org_id = c.org_id AND e.campaign_id = c.id AND e.kind = 'click') AS clicked,
        ARRAY(SELECT r.message_id FROM grow_campaign_recipients r WHERE r.org_id = c.org_id AND r.campaign_id = c.id AND r.status = 'handed' AND r.message_id IS NOT NULL) AS messages
      FROM grow_campaigns c WHERE c.org_id = $1 AND c.status = 'sent' AND c.sent_at >= $2::date AND c.sent_at < $3::date + 1
      ORDER BY c.sent_at DESC, c.id LIMIT $4`, [ctx.org.id, from, to, MAX_CAMPAIGNS]);
    const campaigns = [];
    for (const row of rows) {
      const outcomes = await emailOutcomesOf(ctx.db, ctx.org.id, row.messages);
      campaigns.push({
        campaignId: row.id, name: row.name, sentAt: row.sent_at.toISOString(), sent: row.sent, openedUnique: row.opened, clickedUnique: row.clicked,
        delivered: outcomes.filter((o) => o.delivered).length, bounced: outcomes.filter((o) => o.hardBounce || o.softBounce).length, complained: outcomes.filter((o) => o.complaint).length,
      });
    }
    const sent = campaigns.reduce((sum, c) => sum + c.sent, 0);
    return {
      data: { from, to, campaigns },
      speakToUser: campaigns.length === 0 ? `No email campaigns were sent ${spokenRange(from, to)}.`
        : `${countOf(campaigns.length, 'campaign')} sent ${spokenRange(from, to)} to ${countOf(sent, 'person', 'people')}.`,
    };
  },
});
