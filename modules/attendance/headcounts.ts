import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import type { RowOf } from '../kit';
import { listLocations, requireLocation } from '../guests/api';
import { listTeam } from '../platform/api';
import { getInstance } from '../schedule/api';
import type { Headcount } from './models';

export interface HeadcountView {
  id: string;
  instanceId: string;
  localDate: string;
  locationId: string | null;
  area: string;
  count: number;
  countedByUserId: string | null;
  note: string | null;
  countedAt: string;
}

type HeadcountRow = Pick<RowOf<Headcount>, 'id' | 'instance_id' | 'local_date' | 'location_id' | 'area' | 'count' | 'counted_by_user_id' | 'note' | 'counted_at'>;

const COLUMNS = `id, instance_id, to_char(local_date, 'YYYY-MM-DD') AS local_date, location_id, area, count, counted_by_user_id, note, counted_at`;

const view = (row: HeadcountRow): HeadcountView => ({
  id: row.id, instanceId: row.instance_id, localDate: row.local_date, locationId: row.location_id, area: row.area, count: row.count,
  countedByUserId: row.counted_by_user_id, note: row.note, countedAt: row.counted_at.toISOString(),
});

export const MAIN_AREA = 'Whole service';

export interface HeadcountInput {
  instanceId: string;
  count: number;
  locationId?: string;
  area?: string;
  countedByUserId?: string;
  note?: string;
}

/**
 * Records how many were in a place at a service: a check-in location (by id, or an area named like
 * one) or a named area (the whole service when neither is given). Counting the same place again replaces the figure, with the
 * earlier count reported, so the total never counts a room twice.
 */
export async function recordHeadcount(db: Queryable, orgId: string, recordedByUserId: string, input: HeadcountInput): Promise<{ headcount: HeadcountView; replacedCount: number | null }> {
  const instance = await getInstance(db, orgId, input.instanceId);
  if (instance.status === 'cancelled') throw new StewardError('conflict', `${instance.title} on ${instance.localDate} was cancelled`, { hint: 'Record the count against the service that took place.' });
  if (input.locationId && input.area) {
    throw new StewardError('validation_failed', 'Give locationId or area, not both', { issues: [{ path: 'area', message: 'the location\'s name is used as the area' }] });
  }
  const location = input.locationId ? await requireLocation(db, orgId, input.locationId) : await locationNamed(db, orgId, input.area);
  const countedBy = input.countedByUserId ?? recordedByUserId;
  if (input.countedByUserId) {
    const team = await listTeam(db, orgId);
    if (!team.some((member) => member.userId === input.countedByUserId)) {
      throw new StewardError('not_found', `Team member ${input.countedByUserId} was not found`, { hint: 'platform_list_team_members lists them.', issues: [{ path: 'countedByUserId', message: 'not a member of this organisation' }] });
    }
  }
  const area = location?.name ?? input.area ?? MAIN_AREA;
  const areaKey = location ? location.id : area.toLowerCase();
  const previous = await queryOne<{ count: number }>(db, 'SELECT count FROM attendance_headcounts WHERE org_id = $1 AND instance_id = $2 AND area_key = $3 FOR UPDATE',
    [orgId, instance.id, areaKey]);
  const row = await queryOne<HeadcountRow>(db, `INSERT INTO attendance_headcounts (id, org_id, instance_id, local_date, location_id, area, area_key, count, counted_by_user_id, recorded_by_user_id, note)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
    ON CONFLICT (org_id, instance_id, area_key) DO UPDATE SET count = EXCLUDED.count, counted_by_user_id = EXCLUDED.counted_by_user_id,
      recorded_by_user_id = EXCLUDED.recorded_by_user_id, note = EXCLUDED.note, counted_at = now(), updated_at = now()
    RETURNING ${COLUMNS}`,
  [randomUUID(), orgId, instance.id, instance.localDate, location?.id ?? null, area, areaKey, input.count, countedBy, recordedByUserId, input.note ?? null]);
  return { headcount: view(row!), replacedCount: previous?.count ?? null };
}

/** An area named like a check-in location is that location, so its count and its check-ins line up. */
async function locationNamed(db: Queryable, orgId: string, area: string | undefined) {
  if (!area) return null;
  return (await listLocations(db, orgId)).find((location) => location.name.toLowerCase() === area.toLowerCase()) ?? null;
}

/** Headcounts of services dated in a range, optionally of one location. */
export async function headcountsBetween(db: Queryable, orgId: string, filter: { from: string; to: string; instanceId?: string; locationId?: string }): Promise<HeadcountView[]> {
  const rows = await queryRows<HeadcountRow>(db, `SELECT ${COLUMNS} FROM attendance_headcounts WHERE org_id = $1 AND local_date BETWEEN $2::date AND $3::date
    AND ($4::text IS NULL OR instance_id = $4) AND ($5::uuid IS NULL OR location_id = $5) ORDER BY local_date, instance_id, area`,
  [orgId, filter.from, filter.to, filter.instanceId ?? null, filter.locationId ?? null]);
  return rows.map(view);
}
