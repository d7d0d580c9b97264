import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { decodeCursor, encodeCursor, notFound } from '../kit';
import { getInstance, getSeries, localToUtc, organisationTimeZone } from '../schedule/api';
import {
  iso, nameOr, namesOf, planState, rebase, requireEditablePlan, requirePlan, requireServiceType, todayIn, type PlanRow, type PlanState,
} from './common';

// ---------------------------------------------------------------- service types

export interface ServiceTypeView { id: string; name: string; scheduleSeriesId: string | null }

export async function createServiceType(db: Queryable, orgId: string, input: { name: string; scheduleSeriesId?: string }): Promise<ServiceTypeView> {
  if (input.scheduleSeriesId) await getSeries(db, orgId, input.scheduleSeriesId);
  const row = await queryOne<{ id: string }>(db, `INSERT INTO runsheet_service_types (id, org_id, name, schedule_series_id) VALUES ($1, $2, $3, $4)
    ON CONFLICT (org_id, lower(name)) DO NOTHING RETURNING id`, [randomUUID(), orgId, input.name, input.scheduleSeriesId ?? null]);
  if (!row) throw new StewardError('conflict', `A service type named "${input.name}" exists already`, { hint: 'runsheet_list_service_types shows it; use its id.' });
  return { id: row.id, name: input.name, scheduleSeriesId: input.scheduleSeriesId ?? null };
}

export async function listServiceTypes(db: Queryable, orgId: string): Promise<ServiceTypeView[]> {
  const rows = await queryRows<{ id: string; name: string; schedule_series_id: string | null }>(db,
    'SELECT id, name, schedule_series_id FROM runsheet_service_types WHERE org_id = $1 ORDER BY lower(name)', [orgId]);
  return rows.map((row) => ({ id: row.id, name: row.name, scheduleSeriesId: row.schedule_series_id }));
}

// ---------------------------------------------------------------- plans

export const TIME_KINDS = ['service', 'rehearsal', 'other'] as const;
export interface TimeInput { kind: (typeof TIME_KINDS)[number]; name?: string; startTime: string; durationMinutes: number; dayOffset?: number }

interface TimeRow { id: string; kind: (typeof TIME_KINDS)[number]; name: string | null; starts_at: Date; ends_at: Date }

async function writeTimes(db: Queryable, orgId: string, planId: string, times: Array<{ kind: string; name: string | null; startsAt: Date; endsAt: Date }>): Promise<void> {
  const service = times.filter((time) => time.kind === 'service');
  if (service.length === 0) {
    throw new StewardError('validation_failed', 'A plan needs at least one service time', { issues: [{ path: 'times', message: 'add a time of kind service' }] });
  }
  for (const time of times) {
    await db.query('INSERT INTO runsheet_plan_times (id, org_id, plan_id, kind, name, starts_at, ends_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [randomUUID(), orgId, planId, time.kind, time.name, time.startsAt, time.endsAt]);
  }
  const startsAt = new Date(Math.min(...service.map((time) => time.startsAt.getTime())));
  const endsAt = new Date(Math.max(...service.map((time) => time.endsAt.getTime())));
  await db.query('UPDATE runsheet_plans SET starts_at = $3, ends_at = $4, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, planId, startsAt, endsAt]);
}

function timesOn(date: string, zone: string, times: readonly TimeInput[]) {
  return times.map((time) => {
    const day = DateTime.fromISO(date, { zone }).plus({ days: time.dayOffset ?? 0 }).toISODate()!;
    const startsAt = localToUtc(day, time.startTime, zone);
    return { kind: time.kind, name: time.name ?? null, startsAt, endsAt: new Date(startsAt.getTime() + time.durationMinutes * 60_000) };
  });
}

export interface NewPlanInput {
  serviceTypeId: string;
  instanceId?: string;
  date?: string;
  times?: TimeInput[];
  title?: string;
  seriesTitle?: string;
  notes?: string;
}

/** Where a new plan happens: a schedule instance (its date, zone and service time) or a date with times in the organisation's zone. */
async function placeOf(db: Queryable, orgId: string, input: { instanceId?: string; date?: string; times?: TimeInput[] }) {
  if (input.instanceId) {
    const instance = await getInstance(db, orgId, input.instanceId);
    const taken = await queryOne<{ id: string }>(db, 'SELECT id FROM runsheet_plans WHERE org_id = $1 AND instance_id = $2', [orgId, input.instanceId]);
    if (taken) throw new StewardError('conflict', `Service instance ${input.instanceId} has a plan already (${taken.id})`, { hint: 'Open it with runsheet_get_plan.', details: { planId: taken.id } });
    const extra = input.times ? timesOn(instance.localDate, instance.timeZone, input.times) : [];
    const service = extra.some((time) => time.kind === 'service') ? [] : [{ kind: 'service', name: instance.title, startsAt: new Date(instance.startsAt), endsAt: new Date(instance.endsAt) }];
    return { date: instance.localDate, zone: instance.timeZone, instanceId: instance.id, times: [...service, ...extra], title: instance.title };
  }
  if (!input.date) throw new StewardError('validation_failed', 'Give the plan\'s date or a schedule instance', { issues: [{ path: 'date', message: 'date or instanceId is required' }] });
  if (!input.times || input.times.length === 0) {
    throw new StewardError('validation_failed', 'A plan on a date needs its times', { issues: [{ path: 'times', message: 'give at least the service time (kind service, startTime, durationMinutes)' }] });
  }
  const zone = await organisationTimeZone(db, orgId);
  return { date: input.date, zone, instanceId: null, times: timesOn(input.date, zone, input.times), title: null };
}

async function insertPlan(db: Queryable, orgId: string, userId: string | null, values: {
  serviceTypeId: string; instanceId: string | null; date: string; zone: string; title: string | null; seriesTitle: string | null; notes: string | null;
  copiedFrom?: string | null; times: Array<{ kind: string; name: string | null; startsAt: Date; endsAt: Date }>;
}): Promise<string> {
  const id = randomUUID();
  // Placeholder span (replaced by writeTimes from the service times in the same transaction).
  await db.query(`INSERT INTO runsheet_plans (id, org_id, service_type_id, instance_id, plan_date, time_zone, title, series_title, notes, starts_at, ends_at, copied_from_plan_id, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::date, $10::date + 1, $11, $12)`,
  [id, orgId, values.serviceTypeId, values.instanceId, values.date, values.zone, values.title, values.seriesTitle, values.notes, values.date, values.copiedFrom ?? null, userId]);
  await writeTimes(db, orgId, id, values.times);
  return id;
}

export async function createPlan(db: Queryable, orgId: string, userId: string | null, input: NewPlanInput): Promise<string> {
  await requireServiceType(db, orgId, input.serviceTypeId);
  const place = await placeOf(db, orgId, input);
  return insertPlan(db, orgId, userId, {
    serviceTypeId: input.serviceTypeId, instanceId: place.instanceId, date: place.date, zone: place.zone, title: input.title ?? place.title,
    seriesTitle: input.seriesTitle ?? null, notes: input.notes ?? null, times: place.times,
  });
}

export interface PlanSummary {
  id: string; serviceTypeId: string; serviceTypeName: string; date: string; title: string | null; seriesTitle: string | null;
  state: PlanState; startsAt: string; endsAt: string; instanceId: string | null;
}

type SummaryRow = PlanRow & { service_type_name: string };
const summaryOf = (row: SummaryRow): PlanSummary => ({
  id: row.id, serviceTypeId: row.service_type_id, serviceTypeName: row.service_type_name, date: row.plan_date, title: row.title, seriesTitle: row.series_title,
  state: planState(row), startsAt: row.starts_at.toISOString(), endsAt: row.ends_at.toISOString(), instanceId: row.instance_id,
});

/** Upcoming plans soonest first, or past plans latest first, optionally for one service type; one keyset page. */
export async function listPlans(db: Queryable, orgId: string, input: { serviceTypeId?: string; when: 'upcoming' | 'past'; limit: number; cursor?: string }) {
  if (input.serviceTypeId) await requireServiceType(db, orgId, input.serviceTypeId);
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const upcoming = input.when === 'upcoming';
  const rows = await queryRows<SummaryRow>(db, `SELECT p.*, s.name AS service_type_name FROM runsheet_plans p
    JOIN runsheet_service_types s ON s.id = p.service_type_id AND s.org_id = p.org_id
    WHERE p.org_id = $1 AND ($2::uuid IS NULL OR p.service_type_id = $2)
      AND ${upcoming ? 'p.ends_at > now()' : 'p.ends_at <= now()'}
      AND ($3::timestamptz IS NULL OR (p.starts_at, p.id) ${upcoming ? '>' : '<'} ($3::timestamptz, $4::uuid))
    ORDER BY p.starts_at ${upcoming ? 'ASC' : 'DESC'}, p.id ${upcoming ? 'ASC' : 'DESC'} LIMIT $5`,
  [orgId, input.serviceTypeId ?? null, after?.at ?? null, after?.id ?? null, input.limit + 1]);
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return { plans: page.map(summaryOf), nextCursor: rows.length > input.limit && last ? encodeCursor({ at: last.starts_at.toISOString(), id: last.id }) : null };
}

/** The latest plan of a service type that started before a plan, a date, or now. */
export async function findPreviousPlan(db: Queryable, orgId: string, input: { serviceTypeId?: string; planId?: string; before?: string }): Promise<PlanSummary | null> {
  let serviceTypeId = input.serviceTypeId;
  let before: Date = new Date();
  if (input.planId) {
    const plan = await requirePlan(db, orgId, input.planId);
    serviceTypeId ??= plan.service_type_id;
    before = plan.starts_at;
  } else if (input.before) {
    before = localToUtc(input.before, '00:00', await organisationTimeZone(db, orgId));
  }
  if (!serviceTypeId) throw new StewardError('validation_failed', 'Name the service type or a plan', { issues: [{ path: 'serviceTypeId', message: 'serviceTypeId or planId is required' }] });
  await requireServiceType(db, orgId, serviceTypeId);
  const row = await queryOne<SummaryRow>(db, `SELECT p.*, s.name AS service_type_name FROM runsheet_plans p
    JOIN runsheet_service_types s ON s.id = p.service_type_id AND s.org_id = p.org_id
    WHERE p.org_id = $1 AND p.service_type_id = $2 AND p.starts_at < $3 AND ($4::uuid IS NULL OR p.id <> $4)
    ORDER BY p.starts_at DESC, p.id DESC LIMIT 1`, [orgId, serviceTypeId, before, input.planId ?? null]);
  return row ? summaryOf(row) : null;
}

// ---------------------------------------------------------------- the plan in full

export const ITEM_KINDS = ['song', 'header', 'media', 'item'] as const;
type ItemKind = (typeof ITEM_KINDS)[number];

export interface ItemView {
  id: string; parentId: string | null; kind: ItemKind; title: string; lengthSeconds: number; order: number;
  songId: string | null; arrangementId: string | null; key: string | null; notes: Record<string, string>;
}

interface ItemRow {
  id: string; parent_id: string | null; kind: ItemKind; title: string; length_seconds: number; sort_order: number;
  song_id: string | null; arrangement_id: string | null; music_key: string | null; notes: Record<string, string>;
}

const itemOf = (row: ItemRow): ItemView => ({
  id: row.id, parentId: row.parent_id, kind: row.kind, title: row.title, lengthSeconds: row.length_seconds, order: row.sort_order,
  songId: row.song_id, arrangementId: row.arrangement_id, key: row.music_key, notes: row.notes,
});

/** Items in running order: top-level items by order, each header followed by the items it holds. */
export async function planItems(db: Queryable, orgId: string, planId: string): Promise<ItemView[]> {
  const rows = await queryRows<ItemRow>(db, `SELECT id, parent_id, kind, title, length_seconds, sort_order, song_id, arrangement_id, music_key, notes
    FROM runsheet_items WHERE org_id = $1 AND plan_id = $2 ORDER BY sort_order, created_at, id`, [orgId, planId]);
  const top = rows.filter((row) => row.parent_id === null);
  const out: ItemView[] = [];
  for (const row of top) {
    out.push(itemOf(row));
    for (const child of rows.filter((candidate) => candidate.parent_id === row.id)) out.push(itemOf(child));
  }
  return out;
}

export async function getPlan(db: Queryable, orgId: string, planId: string) {
  const plan = await requirePlan(db, orgId, planId);
  const serviceType = await requireServiceType(db, orgId, plan.service_type_id);
  const times = await queryRows<TimeRow>(db, 'SELECT id, kind, name, starts_at, ends_at FROM runsheet_plan_times WHERE org_id = $1 AND plan_id = $2 ORDER BY starts_at', [orgId, planId]);
  const items = await planItems(db, orgId, planId);
  const needed = await queryRows<{ position_id: string; plan_time_id: string | null; position_name: string; team_id: string; team_name: string; quantity: number; filled: number; accepted: number }>(db, `
    SELECT n.position_id, n.plan_time_id, p.name AS position_name, t.id AS team_id, t.name AS team_name, n.quantity,
      (SELECT count(*)::int FROM runsheet_plan_people pp WHERE pp.org_id = n.org_id AND pp.plan_id = n.plan_id AND pp.position_id = n.position_id
        AND pp.plan_time_id IS NOT DISTINCT FROM n.plan_time_id AND pp.status <> 'declined') AS filled,
      (SELECT count(*)::int FROM runsheet_plan_people pp WHERE pp.org_id = n.org_id AND pp.plan_id = n.plan_id AND pp.position_id = n.position_id
        AND pp.plan_time_id IS NOT DISTINCT FROM n.plan_time_id AND pp.status = 'accepted') AS accepted
    FROM runsheet_needed_positions n JOIN runsheet_positions p ON p.id = n.position_id AND p.org_id = n.org_id JOIN runsheet_teams t ON t.id = p.team_id AND t.org_id = p.org_id
    LEFT JOIN runsheet_plan_times pt ON pt.id = n.plan_time_id AND pt.org_id = n.org_id
    WHERE n.org_id = $1 AND n.plan_id = $2 ORDER BY lower(t.name), lower(p.name), pt.starts_at NULLS FIRST`, [orgId, planId]);
  const people = await queryRows<{
    id: string; position_id: string; plan_time_id: string | null; position_name: string; team_name: string; contact_id: string; status: 'unconfirmed' | 'accepted' | 'declined'; decline_reason: string | null;
    scheduled_by_user_id: string | null; scheduled_at: Date; notified_at: Date | null; responded_at: Date | null; autofill_run_id: string | null; substitution_id: string | null;
  }>(db, `SELECT pp.id, pp.position_id, pp.plan_time_id, p.name AS position_name, t.name AS team_name, pp.contact_id, pp.status, pp.decline_reason, pp.scheduled_by_user_id,
      pp.scheduled_at, pp.notified_at, pp.responded_at, pp.autofill_run_id, pp.substitution_id
    FROM runsheet_plan_people pp JOIN runsheet_positions p ON p.id = pp.position_id AND p.org_id = pp.org_id JOIN runsheet_teams t ON t.id = p.team_id AND t.org_id = p.org_id
    WHERE pp.org_id = $1 AND pp.plan_id = $2 ORDER BY lower(t.name), lower(p.name), pp.scheduled_at, pp.id`, [orgId, planId]);
  const substitutions = await queryRows<{ id: string; position_id: string; cause: 'declined' | 'blockout'; status: 'searching' | 'filled' | 'unfilled' | 'cancelled'; workflow_id: string; created_at: Date; finished_at: Date | null }>(db,
    'SELECT id, position_id, cause, status, workflow_id, created_at, finished_at FROM runsheet_substitutions WHERE org_id = $1 AND plan_id = $2 ORDER BY created_at, id', [orgId, planId]);
  const offers = await queryRows<{ id: string; substitution_id: string; contact_id: string; rank: number; status: 'offered' | 'accepted' | 'declined' | 'expired' | 'unreachable' | 'withdrawn'; reason: string | null; offered_at: Date; expires_at: Date; responded_at: Date | null }>(db,
    `SELECT o.id, o.substitution_id, o.contact_id, o.rank, o.status, o.reason, o.offered_at, o.expires_at, o.responded_at FROM runsheet_offers o
     JOIN runsheet_substitutions s ON s.id = o.substitution_id AND s.org_id = o.org_id WHERE o.org_id = $1 AND s.plan_id = $2 ORDER BY o.rank`, [orgId, planId]);
  const names = await namesOf(db, orgId, [...people.map((row) => row.contact_id), ...offers.map((row) => row.contact_id)]);
  return {
    plan: {
      id: plan.id, serviceTypeId: plan.service_type_id, serviceTypeName: serviceType.name, instanceId: plan.instance_id, date: plan.plan_date, timeZone: plan.time_zone,
      title: plan.title, seriesTitle: plan.series_title, notes: plan.notes, state: planState(plan), lockedAt: iso(plan.locked_at),
      copiedFromPlanId: plan.copied_from_plan_id, startsAt: plan.starts_at.toISOString(), endsAt: plan.ends_at.toISOString(),
      totalLengthSeconds: items.filter((item) => item.kind !== 'header').reduce((sum, item) => sum + item.lengthSeconds, 0),
      times: times.map((time) => ({ id: time.id, kind: time.kind, name: time.name, startsAt: time.starts_at.toISOString(), endsAt: time.ends_at.toISOString() })),
      items,
      neededPositions: needed.map((row) => ({
        positionId: row.position_id, positionName: row.position_name, teamId: row.team_id, teamName: row.team_name, planTimeId: row.plan_time_id, quantity: row.quantity, filled: row.filled, accepted: row.accepted,
        open: Math.max(0, row.quantity - row.filled),
      })),
      people: people.map((row) => ({
        id: row.id, positionId: row.position_id, positionName: row.position_name, teamName: row.team_name, planTimeId: row.plan_time_id, contactId: row.contact_id, name: nameOr(names, row.contact_id),
        status: row.status, declineReason: row.decline_reason, scheduledByUserId: row.scheduled_by_user_id, scheduledAt: row.scheduled_at.toISOString(),
        notifiedAt: iso(row.notified_at), respondedAt: iso(row.responded_at), autofillRunId: row.autofill_run_id, substitutionId: row.substitution_id,
      })),
      substitutions: substitutions.map((row) => ({
        id: row.id, positionId: row.position_id, cause: row.cause, status: row.status, workflowId: row.workflow_id, startedAt: row.created_at.toISOString(), finishedAt: iso(row.finished_at),
        offers: offers.filter((offer) => offer.substitution_id === row.id).map((offer) => ({
          id: offer.id, contactId: offer.contact_id, name: nameOr(names, offer.contact_id), rank: offer.rank, status: offer.status, reason: offer.reason,
          offeredAt: offer.offered_at.toISOString(), expiresAt: offer.expires_at.toISOString(), respondedAt: iso(offer.responded_at),
        })),
      })),
    },
  };
}

// ---------------------------------------------------------------- copy and templates

export interface CopyInput {
  sourcePlanId: string;
  instanceId?: string;
  date?: string;
  include: { items: boolean; positions: boolean; people: boolean };
  title?: string;
}

/**
 * The copied plan's times in the source's order (copy keeps every time, moved to the new date in the
 * same order), so a need or a person at one time lands on the same time of the copy. $1 org, $2
 * source plan, $3 new plan.
 */
const TIME_MAP = `ordered_old AS (SELECT id, row_number() OVER (ORDER BY starts_at, ends_at, kind, COALESCE(name, ''), id) AS n FROM runsheet_plan_times WHERE org_id = $1 AND plan_id = $2),
  ordered_new AS (SELECT id, row_number() OVER (ORDER BY starts_at, ends_at, kind, COALESCE(name, ''), id) AS n FROM runsheet_plan_times WHERE org_id = $1 AND plan_id = $3),
  map AS (SELECT o.id AS old_id, w.id AS new_id FROM ordered_old o JOIN ordered_new w USING (n))`;

/** A new plan from a previous one: its times moved to the new date (same wall-clock times), and what was chosen of items, needed positions and people (reset to unconfirmed). */
export async function copyPlan(db: Queryable, orgId: string, userId: string | null, input: CopyInput): Promise<{ planId: string; copied: { items: number; positions: number; people: number } }> {
  const source = await requirePlan(db, orgId, input.sourcePlanId);
  let date: string;
  let zone = source.time_zone;
  let instanceId: string | null = null;
  let title = input.title ?? source.title;
  if (input.instanceId) {
    const instance = await getInstance(db, orgId, input.instanceId);
    const taken = await queryOne<{ id: string }>(db, 'SELECT id FROM runsheet_plans WHERE org_id = $1 AND instance_id = $2', [orgId, input.instanceId]);
    if (taken) throw new StewardError('conflict', `Service instance ${input.instanceId} has a plan already (${taken.id})`, { hint: 'Open it with runsheet_get_plan.', details: { planId: taken.id } });
    date = instance.localDate;
    zone = instance.timeZone;
    instanceId = instance.id;
    title = input.title ?? instance.title;
  } else if (input.date) {
    date = input.date;
  } else {
    throw new StewardError('validation_failed', 'Give the new plan\'s date or a schedule instance', { issues: [{ path: 'date', message: 'date or instanceId is required' }] });
  }
  const times = await queryRows<TimeRow>(db, 'SELECT id, kind, name, starts_at, ends_at FROM runsheet_plan_times WHERE org_id = $1 AND plan_id = $2 ORDER BY starts_at', [orgId, source.id]);
  const planId = await insertPlan(db, orgId, userId, {
    serviceTypeId: source.service_type_id, instanceId, date, zone, title, seriesTitle: source.series_title, notes: source.notes, copiedFrom: source.id,
    times: times.map((time) => ({ kind: time.kind, name: time.name, startsAt: rebase(time.starts_at, source.plan_date, date, zone), endsAt: rebase(time.ends_at, source.plan_date, date, zone) })),
  });
  const copied = { items: 0, positions: 0, people: 0 };
  if (input.include.items) copied.items = await copyItems(db, orgId, source.id, planId);
  if (input.include.positions || input.include.people) {
    const result = await db.query(`WITH ${TIME_MAP} INSERT INTO runsheet_needed_positions (id, org_id, plan_id, position_id, plan_time_id, quantity)
      SELECT gen_random_uuid(), n.org_id, $3, n.position_id, map.new_id, n.quantity FROM runsheet_needed_positions n LEFT JOIN map ON map.old_id = n.plan_time_id
      WHERE n.org_id = $1 AND n.plan_id = $2`, [orgId, source.id, planId]);
    copied.positions = result.rowCount ?? 0;
  }
  if (input.include.people) {
    const result = await db.query(`WITH ${TIME_MAP} INSERT INTO runsheet_plan_people (id, org_id, plan_id, position_id, plan_time_id, contact_id, status, scheduled_by_user_id)
      SELECT gen_random_uuid(), pp.org_id, $3, pp.position_id, map.new_id, pp.contact_id, 'unconfirmed', $4 FROM runsheet_plan_people pp
      JOIN people_directory d ON d.id = pp.contact_id AND d.org_id = pp.org_id LEFT JOIN map ON map.old_id = pp.plan_time_id
      WHERE pp.org_id = $1 AND pp.plan_id = $2 AND pp.status <> 'declined'`, [orgId, source.id, planId, userId]);
    copied.people = result.rowCount ?? 0;
  }
  return { planId, copied };
}

async function copyItems(db: Queryable, orgId: string, fromPlanId: string, toPlanId: string): Promise<number> {
  const items = await queryRows<ItemRow>(db, `SELECT id, parent_id, kind, title, length_seconds, sort_order, song_id, arrangement_id, music_key, notes
    FROM runsheet_items WHERE org_id = $1 AND plan_id = $2 ORDER BY parent_id NULLS FIRST, sort_order`, [orgId, fromPlanId]);
  const ids = new Map(items.map((item) => [item.id, randomUUID()]));
  for (const item of items) {
    await db.query(`INSERT INTO runsheet_items (id, org_id, plan_id, parent_id, kind, title, length_seconds, sort_order, song_id, arrangement_id, music_key, notes)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [ids.get(item.id), orgId, toPlanId, item.parent_id ? ids.get(item.parent_id) : null, item.kind, item.title, item.length_seconds, item.sort_order,
      item.song_id, item.arrangement_id, item.music_key, JSON.stringify(item.notes)]);
  }
  return items.length;
}

// ---------------------------------------------------------------- items

export interface ItemInput {
  kind: (typeof ITEM_KINDS)[number];
  title?: string;
  lengthSeconds?: number;
  parentId?: string | null;
  songId?: string;
  arrangementId?: string;
  key?: string;
  notes?: Record<string, string>;
  afterItemId?: string;
}

async function requireItem(db: Queryable, orgId: string, planId: string, itemId: string): Promise<ItemRow & { plan_id: string }> {
  const row = await queryOne<ItemRow & { plan_id: string }>(db, 'SELECT * FROM runsheet_items WHERE org_id = $1 AND id = $2', [orgId, itemId]);
  if (!row || row.plan_id !== planId) throw notFound('Item', itemId, 'runsheet_get_plan lists the plan\'s items.');
  return row;
}

async function checkParent(db: Queryable, orgId: string, planId: string, parentId: string | null | undefined, kind: string): Promise<void> {
  if (!parentId) return;
  if (kind === 'header') throw new StewardError('validation_failed', 'A header cannot sit inside another header', { issues: [{ path: 'parentId', message: 'headers are top-level' }] });
  const parent = await requireItem(db, orgId, planId, parentId);
  if (parent.kind !== 'header') throw new StewardError('validation_failed', 'Only a header holds items', { issues: [{ path: 'parentId', message: `item ${parentId} is a ${parent.kind}` }] });
}

/** Song items take their title and length from the song and arrangement unless given. */
async function songDefaults(db: Queryable, orgId: string, input: Pick<ItemInput, 'songId' | 'arrangementId'>) {
  if (!input.songId) {
    if (input.arrangementId) throw new StewardError('validation_failed', 'An arrangement needs its song', { issues: [{ path: 'songId', message: 'give songId with arrangementId' }] });
    return null;
  }
  const song = await queryOne<{ title: string }>(db, 'SELECT title FROM runsheet_songs WHERE org_id = $1 AND id = $2', [orgId, input.songId]);
  if (!song) throw notFound('Song', input.songId, 'runsheet_list_songs lists the songs there are.');
  let arrangement: { music_key: string | null; length_seconds: number | null } | undefined;
  if (input.arrangementId) {
    arrangement = await queryOne(db, 'SELECT music_key, length_seconds FROM runsheet_arrangements WHERE org_id = $1 AND id = $2 AND song_id = $3', [orgId, input.arrangementId, input.songId]);
    if (!arrangement) throw notFound('Arrangement', input.arrangementId, 'runsheet_list_songs shows each song\'s arrangements.');
  }
  return { title: song.title, key: arrangement?.music_key ?? null, lengthSeconds: arrangement?.length_seconds ?? null };
}

export async function addItem(db: Queryable, orgId: string, planId: string, input: ItemInput): Promise<string> {
  await requireEditablePlan(db, orgId, planId);
  await checkParent(db, orgId, planId, input.parentId, input.kind);
  if (input.kind !== 'song' && input.songId) throw new StewardError('validation_failed', 'Only a song item names a song', { issues: [{ path: 'songId', message: 'use kind song' }] });
  const song = await songDefaults(db, orgId, input);
  const title = input.title ?? song?.title;
  if (!title) throw new StewardError('validation_failed', 'The item needs a title', { issues: [{ path: 'title', message: 'required unless a song is named' }] });
  let order: number;
  if (input.afterItemId) {
    const after = await requireItem(db, orgId, planId, input.afterItemId);
    if ((after.parent_id ?? null) !== (input.parentId ?? null)) {
      throw new StewardError('validation_failed', `Item ${input.afterItemId} is ${after.parent_id ? 'inside a header' : 'at the top level'}, not where the new item goes`, {
        hint: 'Name an item at the same level (the same parentId), or leave afterItemId out to add at the end.', issues: [{ path: 'afterItemId', message: 'must be at the same level as the new item' }],
      });
    }
    order = after.sort_order + 1;
    await db.query(`UPDATE runsheet_items SET sort_order = sort_order + 1 WHERE org_id = $1 AND plan_id = $2 AND parent_id IS NOT DISTINCT FROM $3 AND sort_order >= $4`,
      [orgId, planId, input.parentId ?? null, order]);
  } else {
    const last = await queryOne<{ n: number }>(db, 'SELECT COALESCE(max(sort_order), 0)::int AS n FROM runsheet_items WHERE org_id = $1 AND plan_id = $2 AND parent_id IS NOT DISTINCT FROM $3',
      [orgId, planId, input.parentId ?? null]);
    order = (last?.n ?? 0) + 1;
  }
  const id = randomUUID();
  await db.query(`INSERT INTO runsheet_items (id, org_id, plan_id, parent_id, kind, title, length_seconds, sort_order, song_id, arrangement_id, music_key, notes)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
  [id, orgId, planId, input.parentId ?? null, input.kind, title, input.lengthSeconds ?? song?.lengthSeconds ?? 0, order, input.songId ?? null,
    input.arrangementId ?? null, input.key ?? song?.key ?? null, JSON.stringify(input.notes ?? {})]);
  return id;
}

export async function updateItem(db: Queryable, orgId: string, planId: string, itemId: string, input: Partial<Omit<ItemInput, 'kind' | 'afterItemId'>>): Promise<void> {
  await requireEditablePlan(db, orgId, planId);
  const item = await requireItem(db, orgId, planId, itemId);
  if (input.parentId !== undefined) {
    if (input.parentId === itemId) throw new StewardError('validation_failed', 'An item cannot hold itself', { issues: [{ path: 'parentId', message: 'choose another header' }] });
    await checkParent(db, orgId, planId, input.parentId, item.kind);
  }
  if ((input.songId !== undefined || input.arrangementId !== undefined) && item.kind !== 'song') {
    throw new StewardError('validation_failed', 'Only a song item names a song', { issues: [{ path: 'songId', message: `item ${itemId} is a ${item.kind}` }] });
  }
  const songId = input.songId ?? item.song_id ?? undefined;
  if (input.songId !== undefined || input.arrangementId !== undefined) await songDefaults(db, orgId, { songId, arrangementId: input.arrangementId ?? undefined });
  await db.query(`UPDATE runsheet_items SET title = COALESCE($3, title), length_seconds = COALESCE($4, length_seconds),
      parent_id = CASE WHEN $5::boolean THEN $6::uuid ELSE parent_id END, song_id = COALESCE($7, song_id),
      arrangement_id = CASE WHEN $8::boolean THEN $9::uuid ELSE arrangement_id END, music_key = COALESCE($10, music_key),
      notes = CASE WHEN $11::jsonb IS NULL THEN notes ELSE notes || $11::jsonb END
    WHERE org_id = $1 AND id = $2`,
  [orgId, itemId, input.title ?? null, input.lengthSeconds ?? null, input.parentId !== undefined, input.parentId ?? null, input.songId ?? null,
    input.arrangementId !== undefined, input.arrangementId ?? null, input.key ?? null, input.notes ? JSON.stringify(input.notes) : null]);
}

export async function removeItem(db: Queryable, orgId: string, planId: string, itemId: string): Promise<number> {
  await requireEditablePlan(db, orgId, planId);
  await requireItem(db, orgId, planId, itemId);
  const held = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM runsheet_items WHERE org_id = $1 AND parent_id = $2', [orgId, itemId]);
  await db.query('DELETE FROM runsheet_items WHERE org_id = $1 AND id = $2', [orgId, itemId]);
  return 1 + (held?.n ?? 0);
}

/** Sets the order of the top-level items (or of one header's items): every one of them, each once. */
export async function reorderItems(db: Queryable, orgId: string, planId: string, input: { parentId?: string; itemIds: string[] }): Promise<void> {
  await requireEditablePlan(db, orgId, planId);
  if (input.parentId) await requireItem(db, orgId, planId, input.parentId);
  const current = await queryRows<{ id: string }>(db, 'SELECT id FROM runsheet_items WHERE org_id = $1 AND plan_id = $2 AND parent_id IS NOT DISTINCT FROM $3',
    [orgId, planId, input.parentId ?? null]);
  const have = new Set(current.map((row) => row.id));
  const given = new Set(input.itemIds);
  if (given.size !== input.itemIds.length || given.size !== have.size || [...given].some((id) => !have.has(id))) {
    throw new StewardError('validation_failed', `Name each of the ${have.size} item(s) at this level exactly once`, {
      hint: 'runsheet_get_plan lists the items with their parentId.', issues: [{ path: 'itemIds', message: 'must be exactly the items at this level' }],
    });
  }
  for (const [index, id] of input.itemIds.entries()) {
    await db.query('UPDATE runsheet_items SET sort_order = $3 WHERE org_id = $1 AND id = $2', [orgId, id, index + 1]);
  }
}

// ---------------------------------------------------------------- lock and live

export async function lockPlan(db: Queryable, orgId: string, planId: string, locked: boolean): Promise<void> {
  await requireEditablePlan(db, orgId, planId, { allowLocked: true });
  await db.query(`UPDATE runsheet_plans SET status = CASE WHEN $3::boolean THEN 'locked'
      WHEN EXISTS (SELECT 1 FROM runsheet_plan_people pp WHERE pp.org_id = $1 AND pp.plan_id = $2 AND pp.notified_at IS NOT NULL) THEN 'scheduled' ELSE 'draft' END,
    locked_at = CASE WHEN $3::boolean THEN now() ELSE NULL END, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, planId, locked]);
}

/**
 * What is on now: the running order laid end to end from the service's start (the earliest service time,
 * or `startedAt` when the service began at another moment); the current item, the next and time left.
 */
export async function liveView(db: Queryable, orgId: string, planId: string, options: { now?: Date; startedAt?: string } = {}) {
  const plan = await requirePlan(db, orgId, planId);
  const now = options.now ?? new Date();
  const start = options.startedAt ? new Date(options.startedAt) : plan.starts_at;
  const items = (await planItems(db, orgId, planId)).filter((item) => item.kind !== 'header');
  let at = start.getTime();
  const timeline = items.map((item) => {
    const slot = { item, startsAt: new Date(at), endsAt: new Date(at + item.lengthSeconds * 1000) };
    at += item.lengthSeconds * 1000;
    return slot;
  });
  const index = timeline.findIndex((slot) => now >= slot.startsAt && now < slot.endsAt);
  const upcomingIndex = index >= 0 ? index + 1 : timeline.findIndex((slot) => slot.startsAt > now);
  const current = index >= 0 ? timeline[index] : null;
  const next = upcomingIndex >= 0 && upcomingIndex < timeline.length ? timeline[upcomingIndex] : null;
  const view = (slot: (typeof timeline)[number]) => ({ itemId: slot.item.id, title: slot.item.title, kind: slot.item.kind, startsAt: slot.startsAt.toISOString(), endsAt: slot.endsAt.toISOString() });
  return {
    planId, state: planState(plan, now), now: now.toISOString(), serviceStartedAt: start.toISOString(),
    current: current ? { ...view(current), secondsLeft: Math.round((current.endsAt.getTime() - now.getTime()) / 1000) } : null,
    next: next ? { ...view(next), startsInSeconds: Math.round((next.startsAt.getTime() - now.getTime()) / 1000) } : null,
    runningOrderEndsAt: new Date(at).toISOString(),
    secondsLeftInService: Math.max(0, Math.round((Math.max(at, plan.ends_at.getTime()) - now.getTime()) / 1000)),
    overrunSeconds: Math.max(0, Math.round((at - plan.ends_at.getTime()) / 1000)),
  };
}

export async function planToday(db: Queryable, orgId: string) {
  return todayIn(await organisationTimeZone(db, orgId));
}

// ---------------------------------------------------------------- the rota across plans

/** Who serves where on each upcoming plan (optionally one service type) in a span of weeks: plans by date, positions with their people and open places. */
export async function getRota(db: Queryable, orgId: string, input: { serviceTypeId?: string; weeks: number }) {
  if (input.serviceTypeId) await requireServiceType(db, orgId, input.serviceTypeId);
  const plans = await queryRows<SummaryRow>(db, `SELECT p.*, s.name AS service_type_name FROM runsheet_plans p
    JOIN runsheet_service_types s ON s.id = p.service_type_id AND s.org_id = p.org_id
    WHERE p.org_id = $1 AND ($2::uuid IS NULL OR p.service_type_id = $2) AND p.ends_at > now() AND p.starts_at < now() + make_interval(weeks => $3::int)
    ORDER BY p.starts_at, p.id LIMIT 60`, [orgId, input.serviceTypeId ?? null, input.weeks]);
  const ids = plans.map((plan) => plan.id);
  const needed = await queryRows<{ plan_id: string; position_id: string; plan_time_id: string | null; time_starts_at: Date | null; position_name: string; team_name: string; quantity: number }>(db,
    `SELECT n.plan_id, n.position_id, n.plan_time_id, pt.starts_at AS time_starts_at, p.name AS position_name, t.name AS team_name, n.quantity
    FROM runsheet_needed_positions n JOIN runsheet_positions p ON p.id = n.position_id AND p.org_id = n.org_id JOIN runsheet_teams t ON t.id = p.team_id AND t.org_id = p.org_id
    LEFT JOIN runsheet_plan_times pt ON pt.id = n.plan_time_id AND pt.org_id = n.org_id
    WHERE n.org_id = $1 AND n.plan_id = ANY($2::uuid[]) ORDER BY lower(t.name), lower(p.name), pt.starts_at NULLS FIRST`, [orgId, ids]);
  const people = await queryRows<{ plan_id: string; position_id: string; plan_time_id: string | null; contact_id: string; status: 'unconfirmed' | 'accepted' | 'declined' }>(db,
    "SELECT plan_id, position_id, plan_time_id, contact_id, status FROM runsheet_plan_people WHERE org_id = $1 AND plan_id = ANY($2::uuid[]) AND status <> 'declined' ORDER BY scheduled_at, id", [orgId, ids]);
  const names = await namesOf(db, orgId, people.map((row) => row.contact_id));
  return {
    plans: plans.map((plan) => ({
      ...summaryOf(plan),
      positions: needed.filter((row) => row.plan_id === plan.id).map((row) => {
        const serving = people.filter((person) => person.plan_id === plan.id && person.position_id === row.position_id && person.plan_time_id === row.plan_time_id);
        return {
          positionId: row.position_id, positionName: row.position_name, teamName: row.team_name, planTimeId: row.plan_time_id, timeStartsAt: iso(row.time_starts_at),
          quantity: row.quantity, open: Math.max(0, row.quantity - serving.length),
          people: serving.map((person) => ({ contactId: person.contact_id, name: nameOr(names, person.contact_id), status: person.status as 'unconfirmed' | 'accepted' })),
        };
      }),
    })),
  };
}
