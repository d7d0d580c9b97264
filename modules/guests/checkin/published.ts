import { queryRows, type Queryable } from '../../../db/pool';
import type { RowOf } from '../../kit';
import type { GuestsCheckin } from './models';

/**
 * What the rest of the guests module and the attendance module read of check-ins. Records of
 * people whose contact was erased are gone with the contact; names are not included (join the
 * people_directory view or call people's services for them).
 */
export interface CheckinRecord {
  id: string;
  instanceId: string;
  /** The service instance's local date (YYYY-MM-DD, the organisation's zone). */
  localDate: string;
  locationId: string;
  locationName: string;
  contactId: string;
  personKind: 'child' | 'adult' | 'volunteer';
  /** The contact's first check-in ever in this organisation. */
  firstTime: boolean;
  checkedInAt: string;
  checkedOutAt: string | null;
}

export interface CheckinFilter {
  /** Local dates of the instances, inclusive (YYYY-MM-DD). */
  from: string;
  to: string;
  instanceId?: string;
  locationId?: string;
  contactId?: string;
}

type CheckinRow = Pick<RowOf<InstanceType<typeof GuestsCheckin>>, 'id' | 'instance_id' | 'local_date' | 'location_id' | 'contact_id' | 'person_kind' | 'first_time'
  | 'checked_in_at' | 'checked_out_at'> & { location_name: string };

/** Check-ins of instances whose local date falls in the range, oldest first. */
export async function listCheckins(db: Queryable, orgId: string, filter: CheckinFilter): Promise<CheckinRecord[]> {
  const rows = await queryRows<CheckinRow>(db, `
    SELECT c.id, c.instance_id, to_char(c.local_date, 'YYYY-MM-DD') AS local_date, c.location_id, l.name AS location_name, c.contact_id,
      c.person_kind, c.first_time, c.checked_in_at, c.checked_out_at
    FROM guests_checkins c JOIN guests_locations l ON l.id = c.location_id AND l.org_id = c.org_id
    WHERE c.org_id = $1 AND c.local_date BETWEEN $2::date AND $3::date
      AND ($4::text IS NULL OR c.instance_id = $4) AND ($5::uuid IS NULL OR c.location_id = $5) AND ($6::uuid IS NULL OR c.contact_id = $6)
      -- A check-in closed as merged into another was the same person at the same service, recorded twice.
      AND c.merged_into_checkin_id IS NULL
    ORDER BY c.checked_in_at, c.id`,
  [orgId, filter.from, filter.to, filter.instanceId ?? null, filter.locationId ?? null, filter.contactId ?? null]);
  return rows.map((row) => ({
    id: row.id, instanceId: row.instance_id, localDate: row.local_date, locationId: row.location_id, locationName: row.location_name,
    contactId: row.contact_id, personKind: row.person_kind, firstTime: row.first_time,
    checkedInAt: row.checked_in_at.toISOString(), checkedOutAt: row.checked_out_at?.toISOString() ?? null,
  }));
}

/**
 * Organisations with any check-in on an instance dated in the range: for a job running over every
 * organisation on the worker's own connection (no tenant setting).
 */
export async function orgsWithCheckinsBetween(db: Queryable, fromDate: string, toDate: string): Promise<string[]> {
  const rows = await queryRows<{ org_id: string }>(db,
    'SELECT DISTINCT org_id FROM guests_checkins WHERE local_date BETWEEN $1::date AND $2::date ORDER BY org_id', [fromDate, toDate]);
  return rows.map((row) => row.org_id);
}

/** Locations for other modules (attendance's headcounts name one): another organisation's id is not found. */
export { listLocations, requireLocation, type LocationView } from './setup';
