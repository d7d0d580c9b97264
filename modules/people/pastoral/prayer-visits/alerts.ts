import { queryOne } from '../../../../db/pool';
import { countOf } from '../../../metrics';
import type { AlertRule } from '../../../module';
import { canSeeRestricted, visibleRecordSql } from '../privacy';

/** An urgent request waiting this many days or more is urgent to act on rather than a warning. */
const URGENT_PRAYER_WAIT_DAYS = 2;

/**
 * Active prayer requests marked urgent, counted under the caller's view (private and amber/red ones
 * only with people:safeguarding), so neither the count nor the oldest date reveals a request the
 * reader may not see.
 */
export const urgentPrayerRule: AlertRule = {
  id: 'people.urgent_prayer_requests',
  description: `Active prayer requests marked urgent (urgent severity once one has waited ${URGENT_PRAYER_WAIT_DAYS} days or more).`,
  scope: 'people:read',
  async evaluate(ctx) {
    const row = await queryOne<{ n: number; oldest: Date | null }>(ctx.db, `
      SELECT count(*)::int AS n, min(p.created_at) AS oldest
      FROM prayer_requests p JOIN contacts c ON c.id = p.contact_id AND c.org_id = p.org_id AND c.deleted_at IS NULL
      WHERE p.org_id = $1 AND p.status = 'active' AND p.urgent AND ${visibleRecordSql('p', canSeeRestricted(ctx.principal))}`, [ctx.org.id]);
    if (!row || row.n === 0 || !row.oldest) return [];
    const waited = Math.floor((Date.now() - row.oldest.getTime()) / 86_400_000);
    return [{
      severity: waited >= URGENT_PRAYER_WAIT_DAYS ? 'urgent' : 'warning',
      title: `${countOf(row.n, 'urgent prayer request is', 'urgent prayer requests are')} active`,
      reason: `${countOf(row.n, 'prayer request is', 'prayer requests are')} marked urgent and not yet answered; the oldest was made ${waited} ${waited === 1 ? 'day' : 'days'} ago.`,
      count: row.n,
      actWith: { tool: 'people_list_prayer_requests', args: { status: 'active', urgentOnly: true } },
    }];
  },
};
