import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryRows, type Queryable } from '../../db/pool';
import { getInstance, localDateAt, organisationTimeZone } from '../schedule/api';

/**
 * A ticket scanned at the door, as ticketing's `ticketingCheckins` extension point tells it. The
 * shape is ticketing's, restated here because a module reaches another only through its api.ts.
 */
export interface DoorCheckin {
  eventId: string;
  eventTitle: string;
  ticketId: string;
  ticketTypeName: string;
  contactId: string | null;
  scheduleInstanceId: string | null;
  checkedInAt: Date;
  checkedInByUserId: string | null;
}

export interface TicketCheckinRecord {
  ticketId: string;
  eventId: string;
  eventTitle: string;
  instanceId: string | null;
  localDate: string;
  contactId: string | null;
  checkedInAt: string;
}

/** The local date a check-in counts on: its service's date, else the day it happened in the organisation's zone. */
async function localDateOf(db: Queryable, orgId: string, checkin: DoorCheckin): Promise<{ instanceId: string | null; localDate: string }> {
  if (checkin.scheduleInstanceId) {
    try {
      const instance = await getInstance(db, orgId, checkin.scheduleInstanceId);
      return { instanceId: instance.id, localDate: instance.localDate };
    } catch (error) {
      // An instance removed since the event was linked: the check-in still counts on its own day.
      if (!(error instanceof StewardError && error.code === 'not_found')) throw error;
    }
  }
  return { instanceId: null, localDate: localDateAt(checkin.checkedInAt, await organisationTimeZone(db, orgId)) };
}

/**
 * Records a ticket's first scan, in ticketing's check-in transaction. One row per ticket (a retried
 * notice changes nothing), so the door's count and attendance's agree.
 */
export async function recordTicketCheckin(db: Queryable, orgId: string, checkin: DoorCheckin): Promise<void> {
  const { instanceId, localDate } = await localDateOf(db, orgId, checkin);
  await db.query(`INSERT INTO attendance_ticket_checkins (id, org_id, ticket_id, event_id, event_title, ticket_type_name, instance_id, local_date, contact_id, checked_in_at, checked_in_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (org_id, ticket_id) DO NOTHING`,
  [randomUUID(), orgId, checkin.ticketId, checkin.eventId, checkin.eventTitle.slice(0, 300), checkin.ticketTypeName.slice(0, 300), instanceId, localDate,
    checkin.contactId, checkin.checkedInAt, checkin.checkedInByUserId]);
}

/** Ticket check-ins dated in a range, oldest first. */
export async function ticketCheckinsBetween(db: Queryable, orgId: string, range: { from: string; to: string; contactId?: string }): Promise<TicketCheckinRecord[]> {
  const rows = await queryRows<{ ticket_id: string; event_id: string; event_title: string; instance_id: string | null; local_date: string; contact_id: string | null; checked_in_at: Date }>(db,
    `SELECT ticket_id, event_id, event_title, instance_id, to_char(local_date, 'YYYY-MM-DD') AS local_date, contact_id, checked_in_at
      FROM attendance_ticket_checkins WHERE org_id = $1 AND local_date BETWEEN $2::date AND $3::date AND ($4::uuid IS NULL OR contact_id = $4)
      ORDER BY checked_in_at, ticket_id`, [orgId, range.from, range.to, range.contactId ?? null]);
  return rows.map((row) => ({
    ticketId: row.ticket_id, eventId: row.event_id, eventTitle: row.event_title, instanceId: row.instance_id, localDate: row.local_date,
    contactId: row.contact_id, checkedInAt: row.checked_in_at.toISOString(),
  }));
}
