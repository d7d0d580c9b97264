import { queryOne } from '../../db/pool';
import { countOf } from '../metrics';
import type { AlertRule } from '../module';

/** A post waiting this many days for a decision is a warning; sooner it is for information. */
const MODERATION_WAIT_DAYS = 2;

/** Posts nobody has approved or rejected: nothing reaches the wall or the board until someone does. */
export const moderationWaitingRule: AlertRule = {
  id: 'community.moderation_waiting',
  description: `Prayer-wall and celebration posts waiting for a moderator (a warning once one has waited ${MODERATION_WAIT_DAYS} days or more).`,
  scope: 'community:read',
  async evaluate(ctx) {
    const row = await queryOne<{ n: number; oldest: Date | null }>(ctx.db, `
      SELECT count(*)::int AS n, min(p.submitted_at) AS oldest
      FROM community_posts p JOIN people_directory d ON d.id = p.contact_id AND d.org_id = p.org_id
      WHERE p.org_id = $1 AND p.status = 'pending'`, [ctx.org.id]);
    if (!row || row.n === 0 || !row.oldest) return [];
    const waited = Math.floor((Date.now() - row.oldest.getTime()) / 86_400_000);
    return [{
      severity: waited >= MODERATION_WAIT_DAYS ? 'warning' : 'info',
      title: `${countOf(row.n, 'post is', 'posts are')} waiting for moderation`,
      reason: `${countOf(row.n, 'post', 'posts')} shared for the prayer wall or celebrations ${row.n === 1 ? 'has' : 'have'} not been approved or rejected; the oldest has waited ${waited} ${waited === 1 ? 'day' : 'days'}.`,
      count: row.n,
      actWith: { tool: 'community_list_moderation_queue' },
    }];
  },
};
