import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * Tickets scanned at the door of a ticketed event (told by ticketing's `ticketingCheckins`
 * extension point, in the check-in's transaction): one row per ticket, so a rescan or a retried
 * notice never counts twice. An event held as a service instance counts toward that service's
 * attendance; the holder's contact (when the ticket names one) joins the people checked in.
 */
export const attendanceTicketCheckins: Migration = {
  name: '2026.11.29T13.00.00.attendance-ticket-checkins',
  up: `
CREATE TABLE attendance_ticket_checkins (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  ticket_id uuid NOT NULL,
  event_id uuid NOT NULL,
  event_title text NOT NULL CHECK (length(event_title) BETWEEN 1 AND 300),
  ticket_type_name text NOT NULL CHECK (length(ticket_type_name) BETWEEN 1 AND 300),
  instance_id text CHECK (instance_id IS NULL OR length(instance_id) BETWEEN 1 AND 200),
  local_date date NOT NULL,
  contact_id uuid,
  checked_in_at timestamptz NOT NULL,
  checked_in_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX attendance_ticket_checkins_one_per_ticket ON attendance_ticket_checkins (org_id, ticket_id);
CREATE INDEX attendance_ticket_checkins_day ON attendance_ticket_checkins (org_id, local_date);
CREATE INDEX attendance_ticket_checkins_contact ON attendance_ticket_checkins (org_id, contact_id) WHERE contact_id IS NOT NULL;
${tenantPolicies(['attendance_ticket_checkins']).up}
`,
  down: `
${tenantPolicies(['attendance_ticket_checkins']).down}
DROP TABLE attendance_ticket_checkins;
`,
};
