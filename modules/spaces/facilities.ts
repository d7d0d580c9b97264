import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound, type RowOf } from '../kit';
import { listTeam } from '../platform/api';
import { requireBooking } from './bookings';
import type { BookingCharge, Incident, INCIDENT_PRIORITIES, INCIDENT_STATUSES, UtilityBill, UtilityMeter } from './models';
import { requireBuilding, requireRoom } from './sites';
import { holdSpacesWriteLock } from './write-lock';

// ---------------------------------------------------------------- incidents

type IncidentRow = RowOf<Incident>;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export type IncidentPriority = (typeof INCIDENT_PRIORITIES)[number];

/** Where an incident may go next: forward through the states, or back a step when work stops. */
const NEXT: Record<IncidentStatus, readonly IncidentStatus[]> = {
  new: ['triaged', 'in_progress', 'done'],
  triaged: ['in_progress', 'done', 'new'],
  in_progress: ['done', 'triaged'],
  done: ['in_progress'],
};

export function incidentView(row: IncidentRow & { room?: string | null; building?: string | null }) {
  return {
    id: row.id, title: row.title, description: row.description, status: row.status, priority: row.priority, roomId: row.room_id, room: row.room ?? null,
    buildingId: row.building_id, building: row.building ?? null, locationNote: row.location_note, assigneeUserId: row.assignee_user_id,
    reportedByUserId: row.reported_by_user_id, resolutionNote: row.resolution_note, doneAt: row.done_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

const INCIDENT_SELECT = `SELECT i.*, r.name AS room, b.name AS building FROM spaces_incidents i
  LEFT JOIN spaces_rooms r ON r.id = i.room_id LEFT JOIN spaces_buildings b ON b.id = i.building_id`;

async function assertTeamMember(db: Queryable, orgId: string, userId: string): Promise<void> {
  if (!(await listTeam(db, orgId)).some((member) => member.userId === userId)) {
    throw new StewardError('validation_failed', 'The assignee is not on the team', { hint: 'Assign a team member (platform_list_team_members).', issues: [{ path: 'assigneeUserId', message: 'not a team member' }] });
  }
}

async function incidentById(db: Queryable, orgId: string, incidentId: string) {
  const row = await queryOne<IncidentRow & { room: string | null; building: string | null }>(db, `${INCIDENT_SELECT} WHERE i.org_id = $1 AND i.id = $2`, [orgId, incidentId]);
  if (!row) throw notFound('Incident', incidentId, 'spaces_list_incidents lists them.');
  return incidentView(row);
}

export async function reportIncident(db: Queryable, orgId: string, userId: string, input: {
  title: string; description?: string; priority: IncidentPriority; roomId?: string; buildingId?: string; locationNote?: string; assigneeUserId?: string;
}) {
  let buildingId = input.buildingId ?? null;
  if (input.roomId) {
    // The incident's insert holds its room's key until commit; queued behind the organisation's other
    // spaces writes, that hold cannot close a cycle with one that locks rooms one by one (a release loop).
    await holdSpacesWriteLock(db, orgId);
    const room = await requireRoom(db, orgId, input.roomId, { includeArchived: true });
    if (buildingId && buildingId !== room.building_id) throw new StewardError('validation_failed', 'The room is not in that building', { issues: [{ path: 'buildingId', message: 'the room\'s building, or leave it out' }] });
    buildingId = room.building_id;
  } else if (buildingId) {
    await requireBuilding(db, orgId, buildingId);
  }
  if (input.assigneeUserId) await assertTeamMember(db, orgId, input.assigneeUserId);
  const id = randomUUID();
  await db.query(`INSERT INTO spaces_incidents (id, org_id, title, description, priority, room_id, building_id, location_note, assignee_user_id, reported_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  [id, orgId, input.title, input.description ?? null, input.priority, input.roomId ?? null, buildingId, input.locationNote ?? null, input.assigneeUserId ?? null, userId]);
  return incidentById(db, orgId, id);
}

export async function updateIncident(db: Queryable, orgId: string, input: {
  incidentId: string; status?: IncidentStatus; priority?: IncidentPriority; assigneeUserId?: string | null; resolutionNote?: string; title?: string; description?: string;
}) {
  const row = await queryOne<IncidentRow>(db, 'SELECT * FROM spaces_incidents WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, input.incidentId]);
  if (!row) throw notFound('Incident', input.incidentId, 'spaces_list_incidents lists them.');
  const current = row.status as IncidentStatus;
  if (input.status && input.status !== current && !NEXT[current].includes(input.status)) {
    throw new StewardError('conflict', `An incident that is ${current} cannot become ${input.status}`, { hint: `From ${current} it may become ${NEXT[current].join(', ')}.` });
  }
  if (input.assigneeUserId) await assertTeamMember(db, orgId, input.assigneeUserId);
  const status = input.status ?? row.status;
  await db.query(`UPDATE spaces_incidents SET status = $3, priority = $4, assignee_user_id = $5, resolution_note = $6, title = $7, description = $8,
    done_at = CASE WHEN $3 = 'done' THEN COALESCE(done_at, now()) ELSE NULL END, updated_at = now() WHERE org_id = $1 AND id = $2`,
  [orgId, row.id, status, input.priority ?? row.priority, input.assigneeUserId === undefined ? row.assignee_user_id : input.assigneeUserId,
    input.resolutionNote ?? row.resolution_note, input.title ?? row.title, input.description ?? row.description]);
  return incidentById(db, orgId, row.id);
}

export async function listIncidents(db: Queryable, orgId: string, filter: { statuses?: IncidentStatus[]; priority?: IncidentPriority; roomId?: string; buildingId?: string; assigneeUserId?: string; limit: number }) {
  const rows = await queryRows<IncidentRow & { room: string | null; building: string | null }>(db, `${INCIDENT_SELECT}
    WHERE i.org_id = $1 AND i.status = ANY($2::text[]) AND ($3::text IS NULL OR i.priority = $3) AND ($4::uuid IS NULL OR i.room_id = $4)
      AND ($5::uuid IS NULL OR i.building_id = $5) AND ($6::uuid IS NULL OR i.assignee_user_id = $6)
    ORDER BY array_position(ARRAY['urgent', 'high', 'normal', 'low'], i.priority), i.created_at, i.id LIMIT $7`,
  [orgId, filter.statuses ?? ['new', 'triaged', 'in_progress'], filter.priority ?? null, filter.roomId ?? null, filter.buildingId ?? null, filter.assigneeUserId ?? null, filter.limit + 1]);
  return { truncated: rows.length > filter.limit, incidents: rows.slice(0, filter.limit).map(incidentView) };
}

// ---------------------------------------------------------------- utilities

type BillRow = RowOf<UtilityBill>;
type MeterRow = RowOf<UtilityMeter>;
export type UtilityKind = MeterRow['kind'];
const DEFAULT_UNITS: Record<UtilityKind, string> = { electric: 'kWh', gas: 'kWh', water: 'm3' };

export async function recordUtilityBill(db: Queryable, orgId: string, input: {
  buildingId: string; kind: UtilityKind; periodStart: string; periodEnd: string; usage: number; costMinor: number; currency: string; supplier?: string;
}) {
  if (input.periodEnd < input.periodStart) throw new StewardError('validation_failed', 'The period ends before it starts', { issues: [{ path: 'periodEnd', message: 'on or after periodStart' }] });
  const building = await requireBuilding(db, orgId, input.buildingId);
  await db.query(`INSERT INTO spaces_utility_meters (id, org_id, building_id, kind, unit) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (building_id, kind) DO NOTHING`,
    [randomUUID(), orgId, building.id, input.kind, DEFAULT_UNITS[input.kind]]);
  const meter = (await queryOne<MeterRow>(db, 'SELECT * FROM spaces_utility_meters WHERE org_id = $1 AND building_id = $2 AND kind = $3', [orgId, building.id, input.kind]))!;
  let bill: BillRow;
  try {
    bill = (await queryOne<BillRow>(db, `INSERT INTO spaces_utility_bills (id, org_id, meter_id, period_start, period_end, usage, cost_minor, currency, supplier)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [randomUUID(), orgId, meter.id, input.periodStart, input.periodEnd, input.usage, input.costMinor, input.currency, input.supplier ?? null]))!;
  } catch (error) {
    if ((error as { code?: string }).code === '23P01') {
      throw new StewardError('conflict', `A ${input.kind} bill for ${building.name} already covers part of ${input.periodStart} to ${input.periodEnd}`, { hint: 'spaces_get_utility_summary shows the bills recorded; a bill period is recorded once.' });
    }
    throw error;
  }
  return {
    bill: { id: bill.id, buildingId: building.id, building: building.name, kind: meter.kind, unit: meter.unit, periodStart: bill.period_start, periodEnd: bill.period_end, usage: bill.usage, costMinor: bill.cost_minor, currency: bill.currency, supplier: bill.supplier },
  };
}

const DAY = 86_400_000;
const days = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY) + 1;

/**
 * Utility cost over a range, per building and kind, each bill counted for the share of its days
 * inside the range; and the hours its rooms were occupied by approved bookings in the range (each
 * room's hours, overlapping bookings of one room counted once), so cost per occupied hour.
 */
export async function utilitySummary(db: Queryable, orgId: string, input: { from: string; to: string; buildingId?: string }) {
  if (input.buildingId) await requireBuilding(db, orgId, input.buildingId);
  const bills = await queryRows<BillRow & { building_id: string; building: string; kind: UtilityKind; unit: string }>(db, `
    SELECT ub.*, m.building_id, b.name AS building, m.kind, m.unit FROM spaces_utility_bills ub JOIN spaces_utility_meters m ON m.id = ub.meter_id JOIN spaces_buildings b ON b.id = m.building_id
     WHERE ub.org_id = $1 AND ub.period_start <= $3 AND ub.period_end >= $2 AND ($4::uuid IS NULL OR m.building_id = $4) ORDER BY b.name, m.kind`,
  [orgId, input.from, input.to, input.buildingId ?? null]);
  const hours = await queryRows<{ building_id: string; hours: number }>(db, `
    WITH spans AS (
      SELECT r.building_id, o.room_id, greatest(o.starts_at, $2::date::timestamptz) AS s, least(o.ends_at, ($3::date + 1)::timestamptz) AS e
        FROM spaces_occurrences o JOIN spaces_rooms r ON r.id = o.room_id
       WHERE o.org_id = $1 AND o.status = 'approved' AND o.starts_at < ($3::date + 1)::timestamptz AND o.ends_at > $2::date::timestamptz AND ($4::uuid IS NULL OR r.building_id = $4)
    ), merged AS (
      SELECT building_id, room_id, range_agg(tstzrange(s, e)) AS busy FROM spans GROUP BY building_id, room_id
    )
    SELECT building_id, COALESCE(sum(extract(epoch FROM (upper(x) - lower(x))) / 3600), 0)::float8 AS hours
      FROM merged, unnest(busy) AS x GROUP BY building_id`, [orgId, input.from, input.to, input.buildingId ?? null]);
  const hoursBy = new Map(hours.map((row) => [row.building_id, Math.round(row.hours * 100) / 100]));
  const currencies = [...new Set(bills.map((bill) => bill.currency))];
  const byBuilding = new Map<string, { buildingId: string; building: string; costMinor: number; lines: Array<{ kind: UtilityKind; unit: string; usage: number; costMinor: number }> }>();
  for (const bill of bills) {
    const overlapFrom = bill.period_start > input.from ? bill.period_start : input.from;
    const overlapTo = bill.period_end < input.to ? bill.period_end : input.to;
    const share = days(overlapFrom, overlapTo) / days(bill.period_start, bill.period_end);
    const entry = byBuilding.get(bill.building_id) ?? { buildingId: bill.building_id, building: bill.building, costMinor: 0, lines: [] };
    const cost = Math.round(bill.cost_minor * share);
    const usage = Math.round(bill.usage * share);
    const line = entry.lines.find((l) => l.kind === bill.kind);
    if (line) { line.costMinor += cost; line.usage += usage; } else entry.lines.push({ kind: bill.kind, unit: bill.unit, usage, costMinor: cost });
    entry.costMinor += cost;
    byBuilding.set(bill.building_id, entry);
  }
  for (const [buildingId] of hoursBy) {
    if (!byBuilding.has(buildingId)) {
      const building = await requireBuilding(db, orgId, buildingId);
      byBuilding.set(buildingId, { buildingId, building: building.name, costMinor: 0, lines: [] });
    }
  }
  const buildings = [...byBuilding.values()].map((entry) => {
    const occupied = hoursBy.get(entry.buildingId) ?? 0;
    return { ...entry, occupiedHours: occupied, costPerOccupiedHourMinor: occupied > 0 && entry.costMinor > 0 ? Math.round(entry.costMinor / occupied) : null };
  });
  const totalCost = buildings.reduce((sum, b) => sum + b.costMinor, 0);
  const totalHours = Math.round(buildings.reduce((sum, b) => sum + b.occupiedHours, 0) * 100) / 100;
  return {
    from: input.from, to: input.to, currency: currencies.length === 1 ? currencies[0] : null, mixedCurrencies: currencies.length > 1, buildings,
    totals: { costMinor: totalCost, occupiedHours: totalHours, costPerOccupiedHourMinor: totalHours > 0 && totalCost > 0 && currencies.length === 1 ? Math.round(totalCost / totalHours) : null },
  };
}

// ---------------------------------------------------------------- charges and payments

type ChargeRow = RowOf<BookingCharge>;

function chargeView(row: ChargeRow) {
  return {
    id: row.id, bookingId: row.booking_id, kind: row.kind, description: row.description, amountMinor: row.amount_minor, currency: row.currency, dueDate: row.due_date,
    paidMinor: row.paid_minor, outstandingMinor: row.amount_minor - row.paid_minor, status: row.paid_minor >= row.amount_minor ? 'paid' as const : row.paid_minor > 0 ? 'part_paid' as const : 'unpaid' as const,
  };
}

export async function createCharge(db: Queryable, orgId: string, input: { bookingId: string; kind: 'hire' | 'deposit' | 'other'; description: string; amountMinor: number; currency: string; dueDate: string }) {
  // Its insert holds the booking's key until commit: queued as a report of an incident in a room is, for the same reason.
  await holdSpacesWriteLock(db, orgId);
  const booking = await requireBooking(db, orgId, input.bookingId);
  if (booking.status === 'rejected' || booking.status === 'cancelled') throw new StewardError('conflict', `The booking is ${booking.status}`, { hint: 'Charge a live booking.' });
  const row = (await queryOne<ChargeRow>(db, `INSERT INTO spaces_booking_charges (id, org_id, booking_id, kind, description, amount_minor, currency, due_date)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`, [randomUUID(), orgId, booking.id, input.kind, input.description, input.amountMinor, input.currency, input.dueDate]))!;
  return { charge: chargeView(row) };
}

/** Records a payment against a charge under the charge's lock: never more than is outstanding. */
export async function recordPayment(db: Queryable, orgId: string, userId: string, input: { chargeId: string; amountMinor: number; paidOn: string; method: string; reference?: string }) {
  const charge = await queryOne<ChargeRow>(db, 'SELECT * FROM spaces_booking_charges WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, input.chargeId]);
  if (!charge) throw notFound('Charge', input.chargeId, 'spaces_list_charges lists a booking\'s charges.');
  const outstanding = charge.amount_minor - charge.paid_minor;
  if (input.amountMinor > outstanding) {
    throw new StewardError('conflict', outstanding === 0 ? 'The charge is paid in full already' : `Only ${outstanding} (minor units) is outstanding`, {
      hint: 'Record at most what is outstanding.', details: { outstandingMinor: outstanding },
    });
  }
  const paymentId = randomUUID();
  await db.query(`INSERT INTO spaces_charge_payments (id, org_id, charge_id, amount_minor, paid_on, method, reference, recorded_by_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [paymentId, orgId, charge.id, input.amountMinor, input.paidOn, input.method, input.reference ?? null, userId]);
  const updated = (await queryOne<ChargeRow>(db, 'UPDATE spaces_booking_charges SET paid_minor = paid_minor + $3, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *', [orgId, charge.id, input.amountMinor]))!;
  return { paymentId, charge: chargeView(updated) };
}

export async function listCharges(db: Queryable, orgId: string, filter: { bookingId?: string; unpaidOnly: boolean; dueBy?: string; limit: number }) {
  if (filter.bookingId) await requireBooking(db, orgId, filter.bookingId);
  const rows = await queryRows<ChargeRow & { title: string }>(db, `SELECT c.*, b.title FROM spaces_booking_charges c JOIN spaces_bookings b ON b.id = c.booking_id
    WHERE c.org_id = $1 AND ($2::uuid IS NULL OR c.booking_id = $2) AND (NOT $3 OR c.paid_minor < c.amount_minor) AND ($4::date IS NULL OR c.due_date <= $4)
    ORDER BY c.due_date, c.created_at, c.id LIMIT $5`, [orgId, filter.bookingId ?? null, filter.unpaidOnly, filter.dueBy ?? null, filter.limit + 1]);
  return { truncated: rows.length > filter.limit, charges: rows.slice(0, filter.limit).map((row) => ({ ...chargeView(row), bookingTitle: row.title })) };
}
