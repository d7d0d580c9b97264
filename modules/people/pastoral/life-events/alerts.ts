import { queryOne } from '../../../../db/pool';
import { countOf } from '../../../metrics';
import type { AlertRule } from '../../../module';
import { canSeeRestricted, visibleRecordSql } from '../privacy';

/** A touchpoint this many days past its date is urgent rather than a warning. */
const TOUCHPOINT_URGENT_DAYS = 14;

/**
 * Grief-care touchpoints the plans have surfaced and nobody has completed. Counted under the
 * caller's view, as people_list_grief_touchpoints lists them: a restricted bereavement's
 * touchpoints count only for a caller holding people:safeguarding.
 */
export const griefTouchpointsDueRule: AlertRule = {
  id: 'people.grief_touchpoints_due',
  description: `Grief-care touchpoints that have come due and are not completed (urgent when one is ${TOUCHPOINT_URGENT_DAYS} or more days past its date).`,
  scope: 'people:read',
  async evaluate(ctx) {
    const row = await queryOne<{ n: number; people: number; oldest: string | null }>(ctx.db, `
      SELECT count(*)::int AS n, count(DISTINCT e.contact_id)::int AS people, to_char(min(g.due_on), 'YYYY-MM-DD') AS oldest
      FROM pastoral_grief_touchpoints g JOIN pastoral_life_events e ON e.id = g.life_event_id AND e.org_id = g.org_id
      JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
      WHERE g.org_id = $1 AND g.status = 'due' AND ${visibleRecordSql('e', canSeeRestricted(ctx.principal))}`, [ctx.org.id]);
    if (!row || row.n === 0 || !row.oldest) return [];
    const daysPast = Math.max(0, Math.floor((Date.now() - Date.parse(`${row.oldest}T00:00:00Z`)) / 86_400_000));
    return [{
      severity: daysPast >= TOUCHPOINT_URGENT_DAYS ? 'urgent' : 'warning',
      title: `${countOf(row.n, 'grief-care touchpoint is', 'grief-care touchpoints are')} due`,
      reason: `${countOf(row.people, 'bereaved person is', 'bereaved people are')} due a touchpoint of their grief-care plan; the oldest came due ${daysPast} days ago.`,
      count: row.n,
      actWith: { tool: 'people_list_grief_touchpoints', args: { status: 'due' } },
    }];
  },
};
