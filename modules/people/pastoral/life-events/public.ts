import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import { visibleRecordSql } from '../privacy';
import type { LifeEventStatus, LifeEventType } from './constants';

/**
 * What other parts of Steward read about life events (care predictions, the pastoral dashboard, the
 * community board), under the same visibility rule as the tools: restricted events count and appear
 * only when `canSeeRestricted` is true.
 */
export { requireVisibleLifeEvent, type LifeEvent } from './service';

export interface SupportSignal {
  contactId: string;
  lifeEventId: string;
  type: LifeEventType;
  title: string;
  eventDate: string;
  status: LifeEventStatus;
}

/** Open support-intent events (bereavement, illness, job loss…) dated within the last `withinDays` days, newest first: a reason someone may need care. */
export async function listOpenSupportEvents(
  db: Queryable, orgId: string, canSeeRestricted: boolean, options: { withinDays: number; limit: number },
): Promise<SupportSignal[]> {
  const rows = await queryRows<{ contact_id: string; id: string; event_type: LifeEventType; title: string; event_date: string; status: LifeEventStatus }>(db, `
    SELECT e.contact_id, e.id, e.event_type, e.title, to_char(e.event_date, 'YYYY-MM-DD') AS event_date, e.status
    FROM pastoral_life_events e JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
    WHERE e.org_id = $1 AND ${visibleRecordSql('e', canSeeRestricted)} AND e.intent = 'support' AND e.status <> 'resolved'
      AND e.event_date >= current_date - $2::int
    ORDER BY e.event_date DESC, e.id LIMIT $3`, [orgId, options.withinDays, options.limit]);
  return rows.map((row) => ({ contactId: row.contact_id, lifeEventId: row.id, type: row.event_type, title: row.title, eventDate: row.event_date, status: row.status }));
}

export interface LifeEventCounts {
  /** Events not yet resolved. */
  open: number;
  /** Of those, support-intent ones. */
  openSupport: number;
  /** Grief-care touchpoints surfaced and not yet completed. */
  touchpointsDue: number;
  /** Events dated in the next 30 days. */
  upcoming30Days: number;
}

/** Headline counts for a dashboard, each under the caller's view. */
export async function lifeEventCounts(db: Queryable, orgId: string, canSeeRestricted: boolean): Promise<LifeEventCounts> {
  const visible = visibleRecordSql('e', canSeeRestricted);
  const row = await queryOne<LifeEventCounts>(db, `
    SELECT
      count(*) FILTER (WHERE e.status <> 'resolved')::int AS "open",
      count(*) FILTER (WHERE e.status <> 'resolved' AND e.intent = 'support')::int AS "openSupport",
      count(*) FILTER (WHERE e.event_date BETWEEN current_date AND current_date + 30)::int AS "upcoming30Days",
      (SELECT count(*)::int FROM pastoral_grief_touchpoints g JOIN pastoral_life_events e ON e.id = g.life_event_id AND e.org_id = g.org_id
         JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
       WHERE g.org_id = $1 AND g.status = 'due' AND ${visible}) AS "touchpointsDue"
    FROM pastoral_life_events e JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
    WHERE e.org_id = $1 AND ${visible}`, [orgId]);
  return row ?? { open: 0, openSupport: 0, touchpointsDue: 0, upcoming30Days: 0 };
}
