import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { hasCurrentSafeguardingCheck, listHousehold, requireContact } from '../people/api';
import { PER_TIME_KEY, assertTimeFitsNeed, iso, planState, requireEditablePlan, requirePlan, requirePosition, type PlanRow, type PositionRow } from './common';
import { substitutionWorkflowId } from './workflows/substitution';
import { choosePlaces, conflictsOf, HARD_CONFLICTS, type CandidateFacts, type Conflict, type TimeWindows } from './ranking';

// ---------------------------------------------------------------- facts

/**
 * Everything the rules need about each candidate for one position on one plan (at one of its times,
 * or every time when planTimeId is null), in a handful of set queries.
 */
export async function gatherFacts(db: Queryable, orgId: string, plan: PlanRow, position: PositionRow, contactIds: readonly string[], planTimeId: string | null = null): Promise<Map<string, CandidateFacts>> {
  const ids = [...new Set(contactIds)];
  const facts = new Map<string, CandidateFacts>();
  if (ids.length === 0) return facts;
  const blocked = new Set((await queryRows<{ contact_id: string }>(db, `SELECT DISTINCT contact_id FROM runsheet_blockouts
    WHERE org_id = $1 AND contact_id = ANY($2::uuid[]) AND starts_on <= $3::date AND ends_on >= $3::date`, [orgId, ids, plan.plan_date])).map((row) => row.contact_id));
  // A place at one time overlaps only that time; a place on the whole plan, every time of it.
  const serving = new Map((await queryRows<{ contact_id: string; n: number }>(db, `SELECT pp.contact_id, count(DISTINCT pp.id)::int AS n FROM runsheet_plan_people pp
    JOIN runsheet_plan_times t ON t.org_id = pp.org_id AND t.plan_id = pp.plan_id AND (pp.plan_time_id IS NULL OR t.id = pp.plan_time_id)
    JOIN runsheet_plan_times mine ON mine.org_id = pp.org_id AND mine.plan_id = $2 AND ($5::uuid IS NULL OR mine.id = $5) AND t.starts_at < mine.ends_at AND mine.starts_at < t.ends_at
    WHERE pp.org_id = $1 AND pp.contact_id = ANY($4::uuid[]) AND pp.status <> 'declined'
      AND NOT (pp.plan_id = $2 AND pp.position_id = $3 AND pp.plan_time_id IS NOT DISTINCT FROM $5::uuid)
    GROUP BY pp.contact_id`, [orgId, plan.id, position.id, ids, planTimeId])).map((row) => [row.contact_id, row.n]));
  const month = await queryRows<{ contact_id: string; n: number }>(db, `SELECT pp.contact_id, count(DISTINCT pp.plan_id)::int AS n FROM runsheet_plan_people pp
    JOIN runsheet_plans p ON p.id = pp.plan_id AND p.org_id = pp.org_id
    WHERE pp.org_id = $1 AND pp.contact_id = ANY($3::uuid[]) AND pp.status <> 'declined' AND pp.plan_id <> $2
      AND date_trunc('month', p.plan_date) = date_trunc('month', $4::date) GROUP BY pp.contact_id`, [orgId, plan.id, ids, plan.plan_date]);
  const monthCounts = new Map(month.map((row) => [row.contact_id, row.n]));
  const last = new Map((await queryRows<{ contact_id: string; at: Date }>(db, `SELECT pp.contact_id, max(p.starts_at) AS at FROM runsheet_plan_people pp
    JOIN runsheet_plans p ON p.id = pp.plan_id AND p.org_id = pp.org_id
    WHERE pp.org_id = $1 AND pp.contact_id = ANY($2::uuid[]) AND pp.status <> 'declined' AND p.starts_at < $3 GROUP BY pp.contact_id`,
  [orgId, ids, plan.starts_at])).map((row) => [row.contact_id, row.at]));
  const onPlan = new Map((await queryRows<{ contact_id: string; n: number }>(db, `SELECT contact_id, count(*)::int AS n FROM runsheet_plan_people
    WHERE org_id = $1 AND plan_id = $2 AND contact_id = ANY($3::uuid[]) AND status <> 'declined' GROUP BY contact_id`, [orgId, plan.id, ids])).map((row) => [row.contact_id, row.n]));
  const preferences = new Map((await queryRows<{ contact_id: string; max_per_month: number | null; household_rule: 'together' | 'apart' | null }>(db,
    'SELECT contact_id, max_per_month, household_rule FROM runsheet_preferences WHERE org_id = $1 AND contact_id = ANY($2::uuid[])', [orgId, ids]))
    .map((row) => [row.contact_id, row]));
  for (const contactId of ids) {
    const preference = preferences.get(contactId);
    let household: string[] = [];
    let householdPlaces = { atOnce: 0, otherTimes: 0 };
    if (preference?.household_rule) {
      household = (await listHousehold(db, orgId, contactId)).members.map((member) => member.contactId).filter((id) => id !== contactId);
      if (household.length > 0) householdPlaces = await householdPlacesThatDay(db, orgId, plan, household, planTimeId);
    }
    facts.set(contactId, {
      contactId,
      cleared: position.requires_clearance ? await hasCurrentSafeguardingCheck(db, orgId, contactId, plan.plan_date, position.clearance_check_type ?? undefined) : null,
      blockedOut: blocked.has(contactId),
      servingElsewhere: serving.get(contactId) ?? 0,
      servedThisMonth: monthCounts.get(contactId) ?? 0,
      maxPerMonth: preference?.max_per_month ?? null,
      householdRule: preference?.household_rule ?? null,
      householdAtOnce: householdPlaces.atOnce,
      householdOtherTimesThatDay: householdPlaces.otherTimes,
      lastServedAt: last.get(contactId) ?? null,
      placesOnPlan: onPlan.get(contactId) ?? 0,
      householdIds: household,
    });
  }
  return facts;
}

/**
 * The household's places (not declined) at a time overlapping the one being filled (planTimeId, or
 * every time of the plan when null), on any plan, and those that day at other times: overlap is
 * judged as for "already serving", a place on a whole plan being at every one of its times. Only
 * plans within 16 days are read: a time lies within 7 days of its plan's date and lasts at most a day,
 * so no plan further off can overlap (and their history need not be scanned).
 */
async function householdPlacesThatDay(db: Queryable, orgId: string, plan: PlanRow, household: readonly string[], planTimeId: string | null): Promise<{ atOnce: number; otherTimes: number }> {
  const row = await queryOne<{ at_once: number; other_times: number }>(db, `SELECT count(*) FILTER (WHERE placed.at_once)::int AS at_once,
      count(*) FILTER (WHERE NOT placed.at_once AND placed.that_day)::int AS other_times
    FROM (SELECT p.plan_date = $4::date AS that_day, EXISTS (SELECT 1 FROM runsheet_plan_times t
        JOIN runsheet_plan_times mine ON mine.org_id = t.org_id AND mine.plan_id = $2 AND ($5::uuid IS NULL OR mine.id = $5) AND t.starts_at < mine.ends_at AND mine.starts_at < t.ends_at
        WHERE t.org_id = pp.org_id AND t.plan_id = pp.plan_id AND (pp.plan_time_id IS NULL OR t.id = pp.plan_time_id)) AS at_once
      FROM runsheet_plan_people pp JOIN runsheet_plans p ON p.id = pp.plan_id AND p.org_id = pp.org_id
      WHERE pp.org_id = $1 AND pp.contact_id = ANY($3::uuid[]) AND pp.status <> 'declined'
        AND p.plan_date BETWEEN $4::date - 16 AND $4::date + 16) placed`, [orgId, plan.id, [...household], plan.plan_date, planTimeId]);
  return { atOnce: row?.at_once ?? 0, otherTimes: row?.other_times ?? 0 };
}

/** Position members who are live contacts, not already on this plan in this position at this time (in any state). */
export async function poolFor(db: Queryable, orgId: string, planId: string, positionId: string, exclude: readonly string[] = [], planTimeId: string | null = null): Promise<string[]> {
  const rows = await queryRows<{ contact_id: string }>(db, `SELECT m.contact_id FROM runsheet_team_members m
    JOIN people_directory d ON d.id = m.contact_id AND d.org_id = m.org_id
    WHERE m.org_id = $1 AND m.position_id = $3 AND NOT (m.contact_id = ANY($4::uuid[]))
      AND NOT EXISTS (SELECT 1 FROM runsheet_plan_people pp WHERE pp.org_id = m.org_id AND pp.plan_id = $2 AND pp.position_id = m.position_id AND pp.contact_id = m.contact_id
        AND pp.plan_time_id IS NOT DISTINCT FROM $5::uuid)
    ORDER BY m.contact_id`, [orgId, planId, positionId, [...exclude], planTimeId]);
  return rows.map((row) => row.contact_id);
}

async function lockPerson(db: Queryable, orgId: string, contactId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`runsheet-person:${orgId}:${contactId}`]);
}

/**
 * Open places of a position on a plan at one time (or the whole plan: planTimeId null), its needed row
 * locked for the rest of the transaction; made with quantity 1 when the plan did not list it.
 */
export async function openPlaces(db: Queryable, orgId: string, planId: string, positionId: string, planTimeId: string | null = null): Promise<{ quantity: number; filled: number }> {
  await db.query(`INSERT INTO runsheet_needed_positions (id, org_id, plan_id, position_id, plan_time_id, quantity) VALUES ($1, $2, $3, $4, $5, 1)
    ON CONFLICT (org_id, plan_id, position_id, ${PER_TIME_KEY}) DO NOTHING`, [randomUUID(), orgId, planId, positionId, planTimeId]);
  const row = await queryOne<{ quantity: number }>(db, `SELECT quantity FROM runsheet_needed_positions WHERE org_id = $1 AND plan_id = $2 AND position_id = $3
    AND plan_time_id IS NOT DISTINCT FROM $4::uuid FOR UPDATE`, [orgId, planId, positionId, planTimeId]);
  const filled = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM runsheet_plan_people WHERE org_id = $1 AND plan_id = $2 AND position_id = $3
    AND plan_time_id IS NOT DISTINCT FROM $4::uuid AND status <> 'declined'`, [orgId, planId, positionId, planTimeId]);
  return { quantity: row!.quantity, filled: filled?.n ?? 0 };
}

// ---------------------------------------------------------------- scheduling one person

export interface ScheduleInput { planId: string; positionId: string; contactId: string; planTimeId?: string; allowConflicts?: boolean }

/**
 * Schedules a person, unconfirmed. The plan row is locked first, so two schedulers filling the same
 * places take turns and the needed count holds. Conflicts refuse the call with each listed; with
 * allowConflicts the soft ones are overridden and recorded, never a missing safeguarding clearance.
 */
export async function schedulePerson(db: Queryable, orgId: string, userId: string | null, input: ScheduleInput) {
  const plan = await requireEditablePlan(db, orgId, input.planId);
  const position = await requirePosition(db, orgId, input.positionId);
  await requireContact(db, orgId, input.contactId);
  const planTimeId = input.planTimeId ?? null;
  await assertTimeFitsNeed(db, orgId, plan.id, position, planTimeId);
  await lockPerson(db, orgId, input.contactId);
  const existing = await queryOne<{ id: string; status: string }>(db, `SELECT id, status FROM runsheet_plan_people WHERE org_id = $1 AND plan_id = $2 AND position_id = $3 AND contact_id = $4
    AND plan_time_id IS NOT DISTINCT FROM $5::uuid`, [orgId, plan.id, position.id, input.contactId, planTimeId]);
  if (existing && existing.status !== 'declined') {
    throw new StewardError('conflict', `They are already scheduled for ${position.name} on this plan (${existing.status})`, { details: { planPersonId: existing.id } });
  }
  const places = await openPlaces(db, orgId, plan.id, position.id, planTimeId);
  if (places.filled >= places.quantity) {
    throw new StewardError('conflict', `${position.name} needs ${places.quantity} and has ${places.filled} scheduled already${planTimeId ? ' at that time' : ''}`, {
      hint: 'Raise the number needed with runsheet_set_needed_positions, or remove someone first.', details: { reason: 'position_full', ...places },
    });
  }
  const facts = (await gatherFacts(db, orgId, plan, position, [input.contactId], planTimeId)).get(input.contactId)!;
  const conflicts = conflictsOf(facts);
  const hard = conflicts.filter((conflict) => HARD_CONFLICTS.includes(conflict.code));
  if (hard.length > 0 || (conflicts.length > 0 && !input.allowConflicts)) {
    throw new StewardError('conflict', `They cannot be scheduled for ${position.name} as things stand: ${conflicts.map((conflict) => conflict.message).join('; ')}`, {
      hint: hard.length > 0 ? 'Record a current safeguarding check for them (people module) first, or choose someone cleared.'
        : 'Choose someone else (runsheet_autofill_positions ranks who is free), or pass allowConflicts: true to schedule them anyway.',
      details: { conflicts },
    });
  }
  const id = existing?.id ?? randomUUID();
  if (existing) {
    await db.query(`UPDATE runsheet_plan_people SET status = 'unconfirmed', decline_reason = NULL, responded_at = NULL, notified_at = NULL, scheduled_by_user_id = $3,
      scheduled_at = now(), conflicts_overridden = $4 WHERE org_id = $1 AND id = $2`, [orgId, id, userId, conflicts.map((conflict) => conflict.code)]);
  } else {
    await db.query(`INSERT INTO runsheet_plan_people (id, org_id, plan_id, position_id, plan_time_id, contact_id, scheduled_by_user_id, conflicts_overridden) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, orgId, plan.id, position.id, planTimeId, input.contactId, userId, conflicts.map((conflict) => conflict.code)]);
  }
  return { planPersonId: id, planTimeId, status: 'unconfirmed' as const, conflictsOverridden: conflicts };
}

export async function removePerson(db: Queryable, orgId: string, planPersonId: string): Promise<void> {
  const row = await queryOne<{ plan_id: string }>(db, 'SELECT plan_id FROM runsheet_plan_people WHERE org_id = $1 AND id = $2', [orgId, planPersonId]);
  if (!row) throw notFound('Scheduled person', planPersonId, 'runsheet_get_plan lists who is scheduled.');
  await requireEditablePlan(db, orgId, row.plan_id);
  await db.query('DELETE FROM runsheet_plan_people WHERE org_id = $1 AND id = $2', [orgId, planPersonId]);
}

// ---------------------------------------------------------------- substitutions


/** Opens a substitute search for a vacated place when the position's team has it switched on; null otherwise. */
export async function openSubstitution(db: Queryable, orgId: string, input: {
  plan: PlanRow; positionId: string; planTimeId: string | null; vacatedId: string; cause: 'declined' | 'blockout'; notifyUserId: string | null;
}): Promise<string | null> {
  const position = await requirePosition(db, orgId, input.positionId);
  if (!position.auto_replace || planState(input.plan) === 'past' || planState(input.plan) === 'live') return null;
  const id = randomUUID();
  await db.query(`INSERT INTO runsheet_substitutions (id, org_id, plan_id, position_id, plan_time_id, vacated_plan_person_id, cause, notify_user_id, workflow_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [id, orgId, input.plan.id, position.id, input.planTimeId, input.vacatedId, input.cause, input.notifyUserId ?? input.plan.created_by_user_id ?? null,
    substitutionWorkflowId(id)]);
  return id;
}

// ---------------------------------------------------------------- responses

export interface RespondInput { planPersonId?: string; offerId?: string; response: 'accept' | 'decline'; reason?: string }

export interface RespondResult {
  planPersonId: string | null;
  status: 'accepted' | 'declined';
  /** A substitute search this decline opened (its team has declines that fix themselves switched on). */
  substitutionId: string | null;
  /** The running substitute search an answer to an offer wakes. */
  offerAnswered: { offerId: string; workflowId: string } | null;
}

export async function respond(db: Queryable, orgId: string, input: RespondInput): Promise<RespondResult> {
  if (input.offerId) return respondToOffer(db, orgId, input.offerId, input.response, input.reason);
  const row = await queryOne<{ id: string; plan_id: string; position_id: string; plan_time_id: string | null; status: string; scheduled_by_user_id: string | null }>(db,
    'SELECT id, plan_id, position_id, plan_time_id, status, scheduled_by_user_id FROM runsheet_plan_people WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, input.planPersonId]);
  if (!row) throw notFound('Scheduled person', input.planPersonId!, 'runsheet_get_plan lists who is scheduled, with their ids.');
  const plan = await requirePlan(db, orgId, row.plan_id);
  if (planState(plan) === 'past') throw new StewardError('conflict', 'The plan is past; its answers are history', { hint: 'Nothing to answer now.' });
  const status = input.response === 'accept' ? 'accepted' : 'declined';
  if (row.status === status) return { planPersonId: row.id, status, substitutionId: null, offerAnswered: null };
  if (row.status === 'declined') {
    // Taking back a decline takes a place again: only while one is open (a substitute may have taken it).
    const places = await openPlaces(db, orgId, plan.id, row.position_id, row.plan_time_id);
    if (places.filled >= places.quantity) {
      throw new StewardError('conflict', 'Their place has been filled since they declined', { hint: 'Raise the number needed with runsheet_set_needed_positions to take them as well.', details: { reason: 'position_full', ...places } });
    }
  }
  await db.query('UPDATE runsheet_plan_people SET status = $3, decline_reason = $4, responded_at = now() WHERE org_id = $1 AND id = $2',
    [orgId, row.id, status, status === 'declined' ? input.reason ?? null : null]);
  const substitutionId = status === 'declined'
    ? await openSubstitution(db, orgId, { plan, positionId: row.position_id, planTimeId: row.plan_time_id, vacatedId: row.id, cause: 'declined', notifyUserId: row.scheduled_by_user_id })
    : null;
  return { planPersonId: row.id, status, substitutionId, offerAnswered: null };
}

async function respondToOffer(db: Queryable, orgId: string, offerId: string, response: 'accept' | 'decline', reason?: string): Promise<RespondResult> {
  const offer = await queryOne<{ id: string; substitution_id: string; contact_id: string; status: string; expires_at: Date }>(db,
    'SELECT id, substitution_id, contact_id, status, expires_at FROM runsheet_offers WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, offerId]);
  if (!offer) throw notFound('Offer', offerId, 'runsheet_get_plan lists each substitute search with its offers.');
  const substitution = (await queryOne<{ id: string; plan_id: string; position_id: string; plan_time_id: string | null; status: string; workflow_id: string }>(db,
    'SELECT id, plan_id, position_id, plan_time_id, status, workflow_id FROM runsheet_substitutions WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, offer.substitution_id]))!;
  if (offer.status !== 'offered' || offer.expires_at <= new Date()) {
    throw new StewardError('conflict', `This offer is ${offer.status === 'offered' ? 'expired' : offer.status}`, {
      hint: 'The search has moved on; runsheet_get_plan shows where it stands.', details: { status: offer.status === 'offered' ? 'expired' : offer.status },
    });
  }
  const answered = { offerId: offer.id, workflowId: substitution.workflow_id };
  if (response === 'decline') {
    await db.query("UPDATE runsheet_offers SET status = 'declined', reason = $3, responded_at = now() WHERE org_id = $1 AND id = $2", [orgId, offer.id, reason ?? null]);
    return { planPersonId: null, status: 'declined', substitutionId: null, offerAnswered: answered };
  }
  await lockPerson(db, orgId, offer.contact_id);
  const plan = await requirePlan(db, orgId, substitution.plan_id, true);
  const position = await requirePosition(db, orgId, substitution.position_id);
  const places = await openPlaces(db, orgId, plan.id, position.id, substitution.plan_time_id);
  if (places.filled >= places.quantity) {
    throw new StewardError('conflict', `${position.name} has been filled since this offer was made`, { hint: 'Nothing to do: runsheet_get_plan shows who took it.', details: { reason: 'position_full', ...places } });
  }
  const facts = (await gatherFacts(db, orgId, plan, position, [offer.contact_id], substitution.plan_time_id)).get(offer.contact_id)!;
  const conflicts = conflictsOf(facts);
  if (conflicts.length > 0) {
    throw new StewardError('conflict', `They can no longer take this place: ${conflicts.map((conflict) => conflict.message).join('; ')}`, { details: { conflicts } });
  }
  const planPerson = await queryOne<{ id: string }>(db, `INSERT INTO runsheet_plan_people (id, org_id, plan_id, position_id, plan_time_id, contact_id, status, responded_at, notified_at, substitution_id)
    VALUES ($1, $2, $3, $4, $5, $6, 'accepted', now(), now(), $7)
    ON CONFLICT (org_id, plan_id, position_id, contact_id, ${PER_TIME_KEY}) DO UPDATE SET status = 'accepted', decline_reason = NULL, responded_at = now(), substitution_id = EXCLUDED.substitution_id
    RETURNING id`, [randomUUID(), orgId, plan.id, position.id, substitution.plan_time_id, offer.contact_id, substitution.id]);
  await db.query("UPDATE runsheet_offers SET status = 'accepted', responded_at = now() WHERE org_id = $1 AND id = $2", [orgId, offer.id]);
  await db.query("UPDATE runsheet_substitutions SET status = 'filled', filled_plan_person_id = $3, finished_at = now() WHERE org_id = $1 AND id = $2",
    [orgId, substitution.id, planPerson!.id]);
  return { planPersonId: planPerson!.id, status: 'accepted', substitutionId: null, offerAnswered: answered };
}

// ---------------------------------------------------------------- blockouts and preferences

export async function recordBlockout(db: Queryable, orgId: string, input: { contactId: string; startsOn: string; endsOn?: string; reason?: string }) {
  await requireContact(db, orgId, input.contactId);
  const endsOn = input.endsOn ?? input.startsOn;
  if (endsOn < input.startsOn) throw new StewardError('validation_failed', 'The blockout ends before it starts', { issues: [{ path: 'endsOn', message: 'must be on or after startsOn' }] });
  const id = randomUUID();
  await db.query('INSERT INTO runsheet_blockouts (id, org_id, contact_id, starts_on, ends_on, reason) VALUES ($1, $2, $3, $4, $5, $6)',
    [id, orgId, input.contactId, input.startsOn, endsOn, input.reason ?? null]);
  // Places they hold on upcoming plans in those dates are given up, each opening a substitute search where its team wants one.
  const held = await queryRows<{ id: string; plan_id: string; position_id: string; plan_time_id: string | null; scheduled_by_user_id: string | null }>(db, `SELECT pp.id, pp.plan_id, pp.position_id, pp.plan_time_id, pp.scheduled_by_user_id
    FROM runsheet_plan_people pp JOIN runsheet_plans p ON p.id = pp.plan_id AND p.org_id = pp.org_id
    WHERE pp.org_id = $1 AND pp.contact_id = $2 AND pp.status <> 'declined' AND p.plan_date BETWEEN $3::date AND $4::date AND p.starts_at > now()
    ORDER BY p.starts_at FOR UPDATE OF pp`, [orgId, input.contactId, input.startsOn, endsOn]);
  const released: Array<{ planPersonId: string; planId: string; substitutionId: string | null }> = [];
  for (const row of held) {
    await db.query("UPDATE runsheet_plan_people SET status = 'declined', decline_reason = 'Blocked out', responded_at = now() WHERE org_id = $1 AND id = $2", [orgId, row.id]);
    const plan = await requirePlan(db, orgId, row.plan_id);
    const substitutionId = await openSubstitution(db, orgId, { plan, positionId: row.position_id, planTimeId: row.plan_time_id, vacatedId: row.id, cause: 'blockout', notifyUserId: row.scheduled_by_user_id });
    released.push({ planPersonId: row.id, planId: row.plan_id, substitutionId });
  }
  return { blockoutId: id, startsOn: input.startsOn, endsOn, released };
}

export async function setPreferences(db: Queryable, orgId: string, input: { contactId: string; maxPerMonth?: number | null; householdRule?: 'together' | 'apart' | null }) {
  await requireContact(db, orgId, input.contactId);
  const row = await queryOne<{ max_per_month: number | null; household_rule: 'together' | 'apart' | null }>(db, `INSERT INTO runsheet_preferences (id, org_id, contact_id, max_per_month, household_rule)
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (org_id, contact_id) DO UPDATE SET
      max_per_month = CASE WHEN $6::boolean THEN EXCLUDED.max_per_month ELSE runsheet_preferences.max_per_month END,
      household_rule = CASE WHEN $7::boolean THEN EXCLUDED.household_rule ELSE runsheet_preferences.household_rule END, updated_at = now()
    RETURNING max_per_month, household_rule`,
  [randomUUID(), orgId, input.contactId, input.maxPerMonth ?? null, input.householdRule ?? null, input.maxPerMonth !== undefined, input.householdRule !== undefined]);
  return { contactId: input.contactId, maxPerMonth: row!.max_per_month, householdRule: row!.household_rule };
}

// ---------------------------------------------------------------- autofill

export interface AutofillNeed { positionId: string; planTimeId: string | null; open: number }
export interface AutofillPick { positionId: string; planTimeId: string | null; contactId: string }
export interface AutofillUnfilled { positionId: string; planTimeId: string | null; open: number; reason: string }

async function planTimeWindows(db: Queryable, orgId: string, planId: string): Promise<TimeWindows> {
  const rows = await queryRows<{ id: string; starts_at: Date; ends_at: Date }>(db, 'SELECT id, starts_at, ends_at FROM runsheet_plan_times WHERE org_id = $1 AND plan_id = $2', [orgId, planId]);
  return new Map(rows.map((row) => [row.id, { startsAt: row.starts_at, endsAt: row.ends_at }]));
}

/**
 * Who autofill would put in each open place, per plan time, without writing anything (the Runsheet
 * agent proposes from the same answer). One place at a time: the eligible team members ranked with
 * the run's earlier picks taken into account, so a person may fill the 9:00 and the 11:00 (never two
 * places at once), a plan's places go round before anyone gets a second, and household rules see
 * who the run has already chosen and at which time (choosePlaces in ranking.ts).
 */
export async function chooseAutofill(db: Queryable, orgId: string, plan: PlanRow, needs: readonly AutofillNeed[]): Promise<{ picks: AutofillPick[]; unfilled: AutofillUnfilled[] }> {
  const times = await planTimeWindows(db, orgId, plan.id);
  const picks: AutofillPick[] = [];
  const unfilled: AutofillUnfilled[] = [];
  for (const need of needs) {
    if (need.open <= 0) continue;
    const position = await requirePosition(db, orgId, need.positionId);
    const pool = await poolFor(db, orgId, plan.id, need.positionId, [], need.planTimeId);
    const facts = [...(await gatherFacts(db, orgId, plan, position, pool, need.planTimeId)).values()];
    const chosen = choosePlaces(facts, need.open, picks, need.planTimeId, times);
    picks.push(...chosen.map((contactId) => ({ positionId: need.positionId, planTimeId: need.planTimeId, contactId })));
    const open = need.open - chosen.length;
    if (open > 0) {
      unfilled.push({ positionId: need.positionId, planTimeId: need.planTimeId, open, reason: pool.length === 0 ? 'no free team members for this position' : `only ${chosen.length} eligible team member(s) were free` });
    }
  }
  return { picks, unfilled };
}

/**
 * Fills every open place of the plan's needed positions, time by time, from each position's team
 * members: eligible people only (cleared, not blocked out, not serving at that time, under their
 * monthly maximum, household rule at that time), fewest places on the plan then least recently served first. A
 * person may fill places at different times of one plan (the 9:00 and the 11:00), which count once
 * toward their monthly maximum. Every row it adds carries the run's id, which runsheet_undo_autofill takes.
 */
export async function autofill(db: Queryable, orgId: string, userId: string | null, planId: string, positionIds?: readonly string[]) {
  const plan = await requireEditablePlan(db, orgId, planId);
  const needs = await queryRows<{ position_id: string; plan_time_id: string | null; quantity: number; filled: number }>(db, `SELECT n.position_id, n.plan_time_id, n.quantity,
      (SELECT count(*)::int FROM runsheet_plan_people pp WHERE pp.org_id = n.org_id AND pp.plan_id = n.plan_id AND pp.position_id = n.position_id
        AND pp.plan_time_id IS NOT DISTINCT FROM n.plan_time_id AND pp.status <> 'declined') AS filled
    FROM runsheet_needed_positions n LEFT JOIN runsheet_plan_times t ON t.id = n.plan_time_id AND t.org_id = n.org_id
    WHERE n.org_id = $1 AND n.plan_id = $2 ORDER BY n.position_id, t.starts_at NULLS FIRST, n.plan_time_id FOR UPDATE OF n`, [orgId, planId]);
  if (positionIds) {
    for (const positionId of positionIds) {
      if (!needs.some((need) => need.position_id === positionId)) {
        await requirePosition(db, orgId, positionId);
        throw new StewardError('validation_failed', `The plan does not need position ${positionId}`, { hint: 'Set it with runsheet_set_needed_positions first.', issues: [{ path: 'positionIds', message: 'not needed on this plan' }] });
      }
    }
  }
  const runId = randomUUID();
  await db.query('INSERT INTO runsheet_autofill_runs (id, org_id, plan_id, created_by_user_id) VALUES ($1, $2, $3, $4)', [runId, orgId, planId, userId]);
  const wanted = needs.filter((need) => !positionIds || positionIds.includes(need.position_id))
    .map((need) => ({ positionId: need.position_id, planTimeId: need.plan_time_id, open: need.quantity - need.filled }));
  const { picks, unfilled } = await chooseAutofill(db, orgId, plan, wanted);
  const filled: Array<{ planPersonId: string; positionId: string; planTimeId: string | null; contactId: string }> = [];
  for (const pick of picks) {
    await lockPerson(db, orgId, pick.contactId);
    const id = randomUUID();
    await db.query(`INSERT INTO runsheet_plan_people (id, org_id, plan_id, position_id, plan_time_id, contact_id, scheduled_by_user_id, autofill_run_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, orgId, planId, pick.positionId, pick.planTimeId, pick.contactId, userId, runId]);
    filled.push({ planPersonId: id, ...pick });
  }
  await db.query('UPDATE runsheet_autofill_runs SET filled = $3 WHERE org_id = $1 AND id = $2', [orgId, runId, filled.length]);
  return { runId, filled, unfilled };
}

/** Takes back what an autofill run added that is still unconfirmed; people who have answered stay. */
export async function undoAutofill(db: Queryable, orgId: string, runId: string) {
  const run = await queryOne<{ plan_id: string; undone_at: Date | null }>(db, 'SELECT plan_id, undone_at FROM runsheet_autofill_runs WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, runId]);
  if (!run) throw notFound('Autofill run', runId, 'runsheet_autofill_positions answers with its run id.');
  await requireEditablePlan(db, orgId, run.plan_id);
  const removed = await db.query("DELETE FROM runsheet_plan_people WHERE org_id = $1 AND autofill_run_id = $2 AND status = 'unconfirmed'", [orgId, runId]);
  const kept = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM runsheet_plan_people WHERE org_id = $1 AND autofill_run_id = $2', [orgId, runId]);
  await db.query('UPDATE runsheet_autofill_runs SET undone_at = COALESCE(undone_at, now()) WHERE org_id = $1 AND id = $2', [orgId, runId]);
  return { runId, planId: run.plan_id, removed: removed.rowCount ?? 0, kept: kept?.n ?? 0, undoneBefore: iso(run.undone_at) };
}

export const monthOf = (date: string) => DateTime.fromISO(date).toFormat('yyyy-LL');
export type { Conflict };
