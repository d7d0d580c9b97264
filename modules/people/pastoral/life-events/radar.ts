import { z } from 'zod';
import { queryRows, type Queryable } from '../../../../db/pool';
import { PASTORAL_TIMELINE_SQL } from '../../automations';
import { displayNameOf } from '../../contacts';
import { RESTRICTED_NOTE_REMOVAL, visibleNoteSql } from '../../notes';
import { visibleRecordSql } from '../privacy';
import { ANNUAL_EVENT_TYPES, LIFE_EVENT_INTENTS, LIFE_EVENT_TYPES } from './constants';

/**
 * The life-events radar: what is coming up (dated events ahead, anniversaries of bereavements and
 * other annual events, grief-care touchpoints ahead) and what is unattended (support events nobody has been in touch about since,
 * grief touchpoints surfaced and still open). Every item says why it is there.
 */

export const RADAR_REASONS = ['upcoming', 'anniversary', 'touchpoint_upcoming', 'touchpoint_due', 'unattended'] as const;

export const radarItemSchema = z.object({
  reason: z.enum(RADAR_REASONS),
  why: z.string().describe('One sentence a person can act on'),
  date: z.string().describe('The date it concerns (YYYY-MM-DD): the event, the anniversary, or the touchpoint due date'),
  lifeEventId: z.uuid(),
  touchpointId: z.uuid().nullable(),
  contactId: z.uuid(),
  contactName: z.string(),
  type: z.enum(LIFE_EVENT_TYPES),
  intent: z.enum(LIFE_EVENT_INTENTS),
  title: z.string(),
}).strict();
export type RadarItem = z.infer<typeof radarItemSchema>;

interface RadarRow {
  reason: RadarItem['reason']; date: string; life_event_id: string; touchpoint_id: string | null; contact_id: string;
  event_type: RadarItem['type']; intent: RadarItem['intent']; title: string; label: string | null; years: number | null;
  days_since: number | null; event_date: string;
  first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null;
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

function whyOf(row: RadarRow, name: string): string {
  const kind = row.event_type.replace(/_/g, ' ');
  switch (row.reason) {
    case 'upcoming': return `${name}'s ${kind} (${row.title}) is on ${row.date}.`;
    case 'anniversary': return `The ${ordinal(row.years ?? 1)} anniversary of ${name}'s ${kind} (${row.title}) is on ${row.date}.`;
    case 'touchpoint_upcoming': return `Grief-care touchpoint "${row.label}" for ${name} (${row.title}) is due on ${row.date}.`;
    case 'touchpoint_due': return `Grief-care touchpoint "${row.label}" for ${name} (${row.title}) has been due since ${row.date}.`;
    case 'unattended': return `${name}'s ${kind} (${row.title}) was recorded ${row.days_since} days ago and nobody has been in touch since.`;
    default: return row.title;
  }
}

export interface RadarOptions {
  today: string;
  daysAhead: number;
  unattendedAfterDays: number;
  limit: number;
}

/**
 * One query, four branches. "In touch since" counts only the contact the caller may see (as the
 * welfare-due list does): were a restricted note to take an event off the radar, the radar would tell
 * a caller without safeguarding that such a note exists.
 */
export async function lifeEventsRadar(db: Queryable, orgId: string, canSeeRestricted: boolean, options: RadarOptions): Promise<RadarItem[]> {
  const visible = visibleRecordSql('e', canSeeRestricted);
  const visibleNote = visibleNoteSql('vn', canSeeRestricted);
  const rows = await queryRows<RadarRow>(db, `
    WITH events AS (
      SELECT e.*, c.first_name, c.last_name, c.preferred_name, c.email
      FROM pastoral_life_events e JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
      WHERE e.org_id = $1 AND ${visible}
    ), annual AS (
      SELECT e.*, GREATEST(1, date_part('year', age($2::date, e.event_date))::int) AS y FROM events e
      WHERE e.event_type = ANY($6::text[]) AND e.event_date < $2::date
    ), anniversaries AS (
      SELECT a.*, CASE WHEN (a.event_date + make_interval(years => a.y))::date >= $2::date THEN a.y ELSE a.y + 1 END AS years FROM annual a
    )
    SELECT 'upcoming' AS reason, to_char(e.event_date, 'YYYY-MM-DD') AS date, e.id AS life_event_id, NULL::uuid AS touchpoint_id, e.contact_id,
      e.event_type, e.intent, e.title, NULL AS label, NULL::int AS years, NULL::int AS days_since, to_char(e.event_date, 'YYYY-MM-DD') AS event_date,
      e.first_name, e.last_name, e.preferred_name, e.email
    FROM events e WHERE e.event_date >= $2::date AND e.event_date <= $2::date + $3::int AND e.status <> 'resolved'
    UNION ALL
    SELECT 'anniversary', to_char((a.event_date + make_interval(years => a.years))::date, 'YYYY-MM-DD'), a.id, NULL, a.contact_id,
      a.event_type, a.intent, a.title, NULL, a.years, NULL, to_char(a.event_date, 'YYYY-MM-DD'), a.first_name, a.last_name, a.preferred_name, a.email
    FROM anniversaries a WHERE (a.event_date + make_interval(years => a.years))::date <= $2::date + $3::int
    UNION ALL
    SELECT 'touchpoint_due', to_char(g.due_on, 'YYYY-MM-DD'), e.id, g.id, e.contact_id, e.event_type, e.intent, e.title, g.label, NULL, NULL,
      to_char(e.event_date, 'YYYY-MM-DD'), e.first_name, e.last_name, e.preferred_name, e.email
    FROM events e JOIN pastoral_grief_touchpoints g ON g.life_event_id = e.id AND g.org_id = e.org_id WHERE g.status = 'due'
    UNION ALL
    SELECT 'touchpoint_upcoming', to_char(g.due_on, 'YYYY-MM-DD'), e.id, g.id, e.contact_id, e.event_type, e.intent, e.title, g.label, NULL, NULL,
      to_char(e.event_date, 'YYYY-MM-DD'), e.first_name, e.last_name, e.preferred_name, e.email
    FROM events e JOIN pastoral_grief_touchpoints g ON g.life_event_id = e.id AND g.org_id = e.org_id
    WHERE g.status = 'pending' AND g.due_on <= $2::date + $3::int
    UNION ALL
    SELECT 'unattended', to_char(e.created_at, 'YYYY-MM-DD'), e.id, NULL, e.contact_id, e.event_type, e.intent, e.title, NULL, NULL,
      ($2::date - e.created_at::date), to_char(e.event_date, 'YYYY-MM-DD'), e.first_name, e.last_name, e.preferred_name, e.email
    FROM events e
    WHERE e.intent = 'support' AND e.status <> 'resolved' AND e.created_at::date <= $2::date - $4::int
      AND NOT EXISTS (
        SELECT 1 FROM timeline_entries t LEFT JOIN notes vn ON t.source_kind = 'note' AND vn.id = t.source_id AND vn.org_id = t.org_id
        WHERE t.org_id = e.org_id AND t.contact_id = e.contact_id AND t.occurred_at > e.created_at AND ${PASTORAL_TIMELINE_SQL}
          AND ($7::boolean OR NOT t.restricted)
          AND (t.source_kind <> 'note' OR (vn.id IS NOT NULL AND ${visibleNote}))
          AND (t.source_kind <> '${RESTRICTED_NOTE_REMOVAL}' OR $7::boolean))
      AND NOT EXISTS (SELECT 1 FROM notes vn WHERE vn.org_id = e.org_id AND vn.contact_id = e.contact_id AND vn.created_at > e.created_at AND ${visibleNote})
    ORDER BY 2, 1, 3
    LIMIT $5`,
  [orgId, options.today, options.daysAhead, options.unattendedAfterDays, options.limit, ANNUAL_EVENT_TYPES, canSeeRestricted]);
  return rows.map((row) => {
    const contactName = displayNameOf(row);
    return {
      reason: row.reason, why: whyOf(row, contactName), date: row.date, lifeEventId: row.life_event_id, touchpointId: row.touchpoint_id,
      contactId: row.contact_id, contactName, type: row.event_type, intent: row.intent, title: row.title,
    };
  });
}
