import { randomUUID } from 'node:crypto';
import { queryRows, type Queryable } from '../../../db/pool';
import { countOf } from '../../metrics';
import type { AlertRule } from '../../module';

/**
 * The end-of-service sweep. A child still checked in after their service ended (plus the
 * organisation's grace minutes) is a safety question for a person to answer, so the sweep
 * reports it and never checks anyone out: one report per service instance, refreshed on each run
 * with the children still in, and an urgent alert for the staff while any remain.
 */
interface LateRow { org_id: string; instance_id: string; local_date: string; instance_ends_at: Date; checkin_ids: string[]; staff: number }

const LATE_CHILDREN = `
  SELECT c.org_id, c.instance_id, to_char(c.local_date, 'YYYY-MM-DD') AS local_date, c.instance_ends_at, array_agg(c.id ORDER BY c.checked_in_at, c.id) AS checkin_ids,
    (SELECT count(*)::int FROM guests_checkins v WHERE v.org_id = c.org_id AND v.instance_id = c.instance_id AND v.person_kind = 'volunteer' AND v.checked_out_at IS NULL) AS staff
  FROM guests_checkins c LEFT JOIN guests_checkin_settings s ON s.org_id = c.org_id
  WHERE c.person_kind = 'child' AND c.checked_out_at IS NULL AND ($2::uuid IS NULL OR c.org_id = $2)
    AND c.instance_ends_at + make_interval(mins => COALESCE(s.sweep_grace_minutes, 30)) <= $1
  GROUP BY c.org_id, c.instance_id, c.local_date, c.instance_ends_at`;

/** One run as of `now`: reports (or refreshes the report of) each ended instance with children still in. Idempotent. */
export async function sweepEndedServices(pool: Queryable, now: Date, orgId?: string): Promise<{ instancesReported: number; childrenStillCheckedIn: number; codesReleased: number }> {
  const late = await queryRows<LateRow>(pool, LATE_CHILDREN, [now, orgId ?? null]);
  for (const row of late) {
    await pool.query(`INSERT INTO guests_sweep_reports (id, org_id, instance_id, local_date, instance_ended_at, children_count, checkin_ids, staff_on_duty_count)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
      ON CONFLICT (org_id, instance_id) DO UPDATE SET children_count = EXCLUDED.children_count, checkin_ids = EXCLUDED.checkin_ids,
        staff_on_duty_count = EXCLUDED.staff_on_duty_count, updated_at = now()`,
    [randomUUID(), row.org_id, row.instance_id, row.local_date, row.instance_ends_at, row.checkin_ids.length, row.checkin_ids, row.staff]);
  }
  return {
    instancesReported: late.length,
    childrenStillCheckedIn: late.reduce((total, row) => total + row.checkin_ids.length, 0),
    codesReleased: await releaseOrphanedCodes(pool, orgId),
  };
}

/**
 * A code whose group has no child left checked in (the child's record was erased mid-service, so
 * checkout never released it) is freed, so it cannot hold a code for the rest of the day. A group
 * and its check-ins are written in one transaction, so a group being created is never seen here.
 */
async function releaseOrphanedCodes(pool: Queryable, orgId?: string): Promise<number> {
  const result = await pool.query(`UPDATE guests_checkin_groups g SET released_at = now()
    WHERE g.released_at IS NULL AND g.security_code IS NOT NULL AND ($1::uuid IS NULL OR g.org_id = $1)
      AND NOT EXISTS (SELECT 1 FROM guests_checkins c WHERE c.group_id = g.id AND c.person_kind = 'child' AND c.checked_out_at IS NULL)`, [orgId ?? null]);
  return result.rowCount ?? 0;
}

export interface SweepReportView {
  id: string;
  instanceId: string;
  localDate: string;
  instanceEndedAt: string;
  childrenReported: number;
  /** How many of the reported children are still checked in now. */
  stillCheckedIn: number;
  staffOnDuty: number;
  reportedAt: string;
  updatedAt: string;
}

export async function listSweepReports(db: Queryable, orgId: string, options: { openOnly: boolean; limit: number }): Promise<SweepReportView[]> {
  const rows = await queryRows<{ id: string; instance_id: string; local_date: string; instance_ended_at: Date; children_count: number; still: number; staff_on_duty_count: number; reported_at: Date; updated_at: Date }>(db, `
    SELECT r.id, r.instance_id, to_char(r.local_date, 'YYYY-MM-DD') AS local_date, r.instance_ended_at, r.children_count, r.staff_on_duty_count, r.reported_at, r.updated_at,
      (SELECT count(*)::int FROM guests_checkins c WHERE c.org_id = r.org_id AND c.id = ANY(r.checkin_ids) AND c.checked_out_at IS NULL) AS still
    FROM guests_sweep_reports r WHERE r.org_id = $1 ORDER BY r.instance_ended_at DESC, r.id LIMIT $2`, [orgId, options.limit * (options.openOnly ? 10 : 1)]);
  const reports = rows.map((row) => ({
    id: row.id, instanceId: row.instance_id, localDate: row.local_date, instanceEndedAt: row.instance_ended_at.toISOString(), childrenReported: row.children_count,
    stillCheckedIn: row.still, staffOnDuty: row.staff_on_duty_count, reportedAt: row.reported_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  }));
  return (options.openOnly ? reports.filter((report) => report.stillCheckedIn > 0) : reports).slice(0, options.limit);
}

/** The staff's alert while any reported child is still checked in. */
export const childrenStillCheckedInRule: AlertRule = {
  id: 'guests.children_still_checked_in',
  description: 'Children still checked in after their service ended (and the sweep grace period passed): urgent until each is checked out by a person.',
  scope: 'guests:read',
  async evaluate(ctx) {
    const open = await listSweepReports(ctx.db, ctx.org.id, { openOnly: true, limit: 20 });
    const children = open.reduce((total, report) => total + report.stillCheckedIn, 0);
    if (children === 0) return [];
    const first = open[0];
    return [{
      severity: 'urgent',
      title: `${countOf(children, 'child is', 'children are')} still checked in after the service ended`,
      reason: `${countOf(children, 'child', 'children')} from ${countOf(open.length, 'service', 'services')} (latest ${first.localDate}) ${children === 1 ? 'has' : 'have'} not been collected and checked out; ${first.staffOnDuty} leader${first.staffOnDuty === 1 ? ' was' : 's were'} on duty at the last sweep.`,
      count: children,
      actWith: { tool: 'guests_get_live_roster', args: { instanceId: first.instanceId } },
    }];
  },
};
