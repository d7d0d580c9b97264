import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import { withModels } from '../../../../db/sequelize';
import type { RowOf } from '../../../kit';
import type { OrgSettings } from '../../../tool';
import { displayNameOf, requireContact } from '../../contacts';
import type { Contact } from '../../models/contacts';
import { parseOrgDate } from '../../dates';
import { todayUtc } from '../../../metrics';
import { CONFIDENTIALITY_LEVELS, NOTE_PRIVACY } from '../../schemas';
import { isRestrictedRecord, visibleRecordSql, type PastoralPrivacy } from '../privacy';
import {
  DEFAULT_INTENT, GRIEF_TOUCHPOINT_SOURCE, LIFE_EVENT_INTENTS, LIFE_EVENT_SOURCE, LIFE_EVENT_STATUSES, LIFE_EVENT_TYPES,
  type GriefPlanStep, type LifeEventIntent, type LifeEventStatus, type LifeEventType,
} from './constants';
import { griefPlanOf } from './grief-plan';
import { PastoralGriefTouchpoint, PastoralLifeEvent } from './models';

/**
 * Life events: recording, reading and changing them. Every read goes through `visibleRecordSql`
 * (pastoral/privacy.ts), so a private or amber/red event reaches only a caller holding
 * people:safeguarding, and behaves as missing for anyone else, exactly as another organisation's id does.
 */

export const lifeEventSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid(),
  contactName: z.string(),
  type: z.enum(LIFE_EVENT_TYPES),
  intent: z.enum(LIFE_EVENT_INTENTS).describe('celebrate (congratulate, mark the day) or support (walk alongside)'),
  status: z.enum(LIFE_EVENT_STATUSES),
  title: z.string(),
  details: z.string().nullable(),
  eventDate: z.string().describe('YYYY-MM-DD'),
  shareWithCommunity: z.boolean().describe('The person agreed to it being shared with the congregation'),
  privacy: z.enum(NOTE_PRIVACY),
  confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS),
  celebratedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();
export type LifeEvent = z.infer<typeof lifeEventSchema>;

export const griefTouchpointSchema = z.object({
  id: z.uuid(),
  lifeEventId: z.uuid(),
  contactId: z.uuid(),
  contactName: z.string(),
  eventTitle: z.string(),
  label: z.string().describe('Which step of the plan (1 week, 1 month, …)'),
  dueOn: z.string().describe('YYYY-MM-DD'),
  status: z.enum(['pending', 'due', 'completed', 'skipped']),
  surfacedAt: z.string().nullable().describe('When the plan surfaced it as due'),
  completedAt: z.string().nullable(),
  completionNote: z.string().nullable(),
}).strict();
export type GriefTouchpoint = z.infer<typeof griefTouchpointSchema>;

/** Dates far outside a life lived now are typing mistakes; refuse them rather than store them. */
const EARLIEST_EVENT_DATE = '1900-01-01';
const LATEST_FUTURE_YEARS = 3;

type LifeEventRow = Pick<RowOf<PastoralLifeEvent>, 'id' | 'contact_id' | 'event_type' | 'intent' | 'status' | 'title' | 'details' | 'event_date'
  | 'share_with_community' | 'privacy' | 'confidentiality_level' | 'celebrated_at' | 'created_at' | 'updated_at'> & Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email'>;

/** event_date as text, so no time zone ever shifts a calendar date. */
const SELECT_EVENT = `
  SELECT e.id, e.contact_id, e.event_type, e.intent, e.status, e.title, e.details, to_char(e.event_date, 'YYYY-MM-DD') AS event_date,
    e.share_with_community, e.privacy, e.confidentiality_level, e.celebrated_at, e.created_at, e.updated_at,
    c.first_name, c.last_name, c.preferred_name, c.email
  FROM pastoral_life_events e JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL`;

export function lifeEventView(row: LifeEventRow): LifeEvent {
  return {
    id: row.id, contactId: row.contact_id, contactName: displayNameOf(row), type: row.event_type, intent: row.intent, status: row.status,
    title: row.title, details: row.details, eventDate: row.event_date, shareWithCommunity: row.share_with_community, privacy: row.privacy,
    confidentialityLevel: row.confidentiality_level, celebratedAt: row.celebrated_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

export function isRestrictedLifeEvent(event: Pick<LifeEvent, 'privacy' | 'confidentialityLevel'>): boolean {
  return isRestrictedRecord(event);
}

/** Reads an event date the organisation's way and refuses impossible ones (a bereavement cannot be in the future). */
export function parseEventDate(value: string, org: OrgSettings, type: LifeEventType, field = 'eventDate'): string {
  const date = parseOrgDate(value, org.dateFormat, field);
  const today = todayUtc();
  const latest = `${Number(today.slice(0, 4)) + LATEST_FUTURE_YEARS}${today.slice(4)}`;
  if (date < EARLIEST_EVENT_DATE || date > latest) {
    throw new StewardError('validation_failed', `${field}: ${date} is outside the dates a life event can have`, {
      issues: [{ path: field, message: `must be between ${EARLIEST_EVENT_DATE} and ${latest}` }],
    });
  }
  if (type === 'bereavement' && date > today) {
    throw new StewardError('validation_failed', `${field}: a bereavement cannot be dated in the future (${date})`, {
      issues: [{ path: field, message: 'must be today or earlier for a bereavement' }],
      hint: 'Give the date of the death; for an expected loss, record an illness instead.',
    });
  }
  return date;
}

/** An event the caller may see; restricted, foreign and missing events (or a deleted contact's) all answer not_found. */
export async function requireVisibleLifeEvent(db: Queryable, orgId: string, lifeEventId: string, canSeeRestricted: boolean, lock = false): Promise<LifeEvent> {
  if (lock) await db.query('SELECT 1 FROM pastoral_life_events WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, lifeEventId]);
  const row = await queryOne<LifeEventRow>(db, `${SELECT_EVENT}
    WHERE e.org_id = $1 AND e.id = $2 AND ${visibleRecordSql('e', canSeeRestricted)}`, [orgId, lifeEventId]);
  if (!row) {
    throw new StewardError('not_found', `Life event ${lifeEventId} was not found`, { hint: 'people_list_all_life_events or people_list_pastoral_life_events lists them.' });
  }
  return lifeEventView(row);
}

export interface RecordLifeEventInput {
  contactId: string;
  type: LifeEventType;
  title: string;
  details?: string;
  eventDate?: string;
  intent?: LifeEventIntent;
  shareWithCommunity?: boolean;
  privacy: PastoralPrivacy['privacy'];
  confidentialityLevel: PastoralPrivacy['confidentialityLevel'];
}

export interface RecordedLifeEvent {
  lifeEvent: LifeEvent;
  touchpoints: GriefTouchpoint[];
}

/**
 * Records a life event; a bereavement also gets its grief-care plan's touchpoints in the same
 * transaction, so a plan never exists without its event or the other way round. The plan's workflow
 * (started after the call) surfaces each one when due.
 */
export async function recordLifeEvent(
  db: Queryable, org: OrgSettings, userId: string, input: RecordLifeEventInput, griefPlan: readonly GriefPlanStep[],
): Promise<RecordedLifeEvent> {
  await requireContact(db, org.id, input.contactId);
  const eventDate = input.eventDate === undefined ? todayUtc() : parseEventDate(input.eventDate, org, input.type);
  const id = randomUUID();
  await withModels(db, (transaction) => PastoralLifeEvent.create({
    id, orgId: org.id, contactId: input.contactId, eventType: input.type, intent: input.intent ?? DEFAULT_INTENT[input.type],
    title: input.title, details: input.details ?? null, eventDate, shareWithCommunity: input.shareWithCommunity ?? false,
    privacy: input.privacy, confidentialityLevel: input.confidentialityLevel, recordedByUserId: userId,
  }, { transaction }));
  if (input.type === 'bereavement') await createGriefTouchpoints(db, org.id, id, eventDate, griefPlan, todayUtc());
  const lifeEvent = await requireVisibleLifeEvent(db, org.id, id, true);
  const touchpoints = input.type === 'bereavement' ? await listGriefTouchpoints(db, org.id, true, { lifeEventId: id, status: 'all', limit: 100 }) : [];
  return { lifeEvent, touchpoints };
}

/**
 * One row per step of the plan. Steps whose date had already passed when the bereavement was
 * recorded are skipped, except the latest of them: that one stays pending, so the plan surfaces it
 * at once (someone hearing late should still reach out, once, not five times).
 */
async function createGriefTouchpoints(db: Queryable, orgId: string, lifeEventId: string, eventDate: string, plan: readonly GriefPlanStep[], today: string) {
  const steps = griefPlanOf(plan, eventDate);
  const past = steps.filter((step) => step.dueOn < today);
  const latestPast = past.length > 0 ? past[past.length - 1] : undefined;
  await withModels(db, (transaction) => PastoralGriefTouchpoint.bulkCreate(steps.map((step, position) => ({
    id: randomUUID(), orgId, lifeEventId, position, label: step.label, dueOn: step.dueOn,
    status: step.dueOn < today && step !== latestPast ? 'skipped' : 'pending',
  })), { transaction }));
}

export interface LifeEventFilter {
  contactId?: string;
  type?: LifeEventType;
  intent?: LifeEventIntent;
  status?: LifeEventStatus | 'open' | 'all';
  from?: string;
  to?: string;
  limit: number;
  offset?: number;
}

/** Open: anything not yet resolved. */
const OPEN_STATUSES: readonly LifeEventStatus[] = ['new', 'acknowledged', 'ongoing'];

function filterSql(filter: LifeEventFilter, canSeeRestricted: boolean): { where: string; bind: unknown[] } {
  const statuses = filter.status === undefined || filter.status === 'all' ? null : filter.status === 'open' ? [...OPEN_STATUSES] : [filter.status];
  return {
    where: `e.org_id = $1 AND ${visibleRecordSql('e', canSeeRestricted)}
      AND ($2::uuid IS NULL OR e.contact_id = $2) AND ($3::text IS NULL OR e.event_type = $3) AND ($4::text IS NULL OR e.intent = $4)
      AND ($5::text[] IS NULL OR e.status = ANY($5)) AND ($6::date IS NULL OR e.event_date >= $6) AND ($7::date IS NULL OR e.event_date <= $7)`,
    bind: [filter.contactId ?? null, filter.type ?? null, filter.intent ?? null, statuses, filter.from ?? null, filter.to ?? null],
  };
}

/** Life events by the filter, newest event date first, with how many match in all (counted under the same visibility rule). */
export async function listLifeEvents(
  db: Queryable, orgId: string, canSeeRestricted: boolean, filter: LifeEventFilter,
): Promise<{ lifeEvents: LifeEvent[]; total: number }> {
  if (filter.contactId) await requireContact(db, orgId, filter.contactId);
  const { where, bind } = filterSql(filter, canSeeRestricted);
  const rows = await queryRows<LifeEventRow>(db, `${SELECT_EVENT} WHERE ${where}
    ORDER BY e.event_date DESC, e.created_at DESC, e.id LIMIT $8 OFFSET $9`, [orgId, ...bind, filter.limit, filter.offset ?? 0]);
  const counted = await queryOne<{ total: number }>(db, `SELECT count(*)::int AS total
    FROM pastoral_life_events e JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL WHERE ${where}`, [orgId, ...bind]);
  return { lifeEvents: rows.map(lifeEventView), total: counted?.total ?? 0 };
}

export interface LifeEventChanges {
  title?: string;
  details?: string | null;
  eventDate?: string;
  intent?: LifeEventIntent;
  shareWithCommunity?: boolean;
  privacy?: PastoralPrivacy['privacy'];
  confidentialityLevel?: PastoralPrivacy['confidentialityLevel'];
}

export interface UpdatedLifeEvent {
  lifeEvent: LifeEvent;
  changed: string[];
  /** The bereavement's plan moved with a new date: its workflow is told to look again. */
  planRescheduled: boolean;
}

/**
 * Changes the given fields. A new date on a bereavement moves its touchpoints that are still
 * pending; a privacy change re-marks the event's care-timeline entries, so they follow it at once.
 */
export async function updateLifeEvent(
  db: Queryable, org: OrgSettings, canSeeRestricted: boolean, lifeEventId: string, changes: LifeEventChanges, griefPlan: readonly GriefPlanStep[],
): Promise<UpdatedLifeEvent> {
  const current = await requireVisibleLifeEvent(db, org.id, lifeEventId, canSeeRestricted, true);
  const values: Partial<Pick<PastoralLifeEvent, 'title' | 'details' | 'eventDate' | 'intent' | 'shareWithCommunity' | 'privacy' | 'confidentialityLevel'>> = {};
  if (changes.title !== undefined) values.title = changes.title;
  if (changes.details !== undefined) values.details = changes.details;
  if (changes.eventDate !== undefined) values.eventDate = parseEventDate(changes.eventDate, org, current.type);
  if (changes.intent !== undefined) values.intent = changes.intent;
  if (changes.shareWithCommunity !== undefined) values.shareWithCommunity = changes.shareWithCommunity;
  if (changes.privacy !== undefined) values.privacy = changes.privacy;
  if (changes.confidentialityLevel !== undefined) values.confidentialityLevel = changes.confidentialityLevel;
  const changed = Object.keys(values);
  if (changed.length === 0) {
    throw new StewardError('validation_failed', 'Nothing to update: give title, details, eventDate, intent, shareWithCommunity, privacy or confidentialityLevel');
  }
  await withModels(db, (transaction) => PastoralLifeEvent.update(values, { where: { orgId: org.id, id: lifeEventId }, transaction }));
  const updated = await requireVisibleLifeEvent(db, org.id, lifeEventId, true);
  await db.query(`UPDATE timeline_entries t SET restricted = $3
    WHERE t.org_id = $1 AND ((t.source_kind = '${LIFE_EVENT_SOURCE}' AND t.source_id = $2)
      OR (t.source_kind = '${GRIEF_TOUCHPOINT_SOURCE}' AND t.source_id IN (SELECT g.id FROM pastoral_grief_touchpoints g WHERE g.org_id = $1 AND g.life_event_id = $2)))`,
  [org.id, lifeEventId, isRestrictedLifeEvent(updated)]);
  let planRescheduled = false;
  if (values.eventDate !== undefined && values.eventDate !== current.eventDate && current.type === 'bereavement') {
    planRescheduled = await rescheduleGriefTouchpoints(db, org.id, lifeEventId, values.eventDate, griefPlan);
  }
  return { lifeEvent: updated, changed, planRescheduled };
}

/** Pending touchpoints take the dates the plan gives from the new bereavement date; surfaced and completed ones stand. */
async function rescheduleGriefTouchpoints(db: Queryable, orgId: string, lifeEventId: string, eventDate: string, griefPlan: readonly GriefPlanStep[]): Promise<boolean> {
  const rows = await queryRows<{ id: string; label: string; position: number }>(db, `
    SELECT id, label, position FROM pastoral_grief_touchpoints WHERE org_id = $1 AND life_event_id = $2 AND status = 'pending' ORDER BY position`,
  [orgId, lifeEventId]);
  // The stored label names the step; a step since removed from the settings keeps its offset from the old plan by position.
  const steps = griefPlanOf(griefPlan, eventDate);
  for (const row of rows) {
    const step = steps.find((candidate) => candidate.label === row.label) ?? steps[row.position];
    if (step) await db.query('UPDATE pastoral_grief_touchpoints SET due_on = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, row.id, step.dueOn]);
  }
  return rows.length > 0;
}

export async function setLifeEventStatus(
  db: Queryable, orgId: string, canSeeRestricted: boolean, lifeEventId: string, status: LifeEventStatus,
): Promise<{ lifeEvent: LifeEvent; previousStatus: LifeEventStatus }> {
  const current = await requireVisibleLifeEvent(db, orgId, lifeEventId, canSeeRestricted, true);
  if (current.status === status) {
    throw new StewardError('conflict', `This life event is already ${status}`, { hint: `Statuses: ${LIFE_EVENT_STATUSES.join(', ')}.` });
  }
  await db.query('UPDATE pastoral_life_events SET status = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, lifeEventId, status]);
  return { lifeEvent: await requireVisibleLifeEvent(db, orgId, lifeEventId, true), previousStatus: current.status };
}

/**
 * Marks a celebrate-intent event celebrated (a card sent, a mention on Sunday). Once only: the
 * conditional update makes two calls at the same moment record one celebration, and the other is told.
 */
export async function celebrateLifeEvent(db: Queryable, orgId: string, userId: string, canSeeRestricted: boolean, lifeEventId: string): Promise<LifeEvent> {
  const current = await requireVisibleLifeEvent(db, orgId, lifeEventId, canSeeRestricted);
  if (current.intent !== 'celebrate') {
    throw new StewardError('conflict', 'This life event is one to support the person through, not to celebrate', {
      hint: 'Change its intent with people_update_life_event if it really is a celebration.',
    });
  }
  const result = await db.query(`UPDATE pastoral_life_events SET celebrated_at = now(), celebrated_by_user_id = $3, updated_at = now(),
      status = CASE WHEN status = 'new' THEN 'acknowledged' ELSE status END
    WHERE org_id = $1 AND id = $2 AND celebrated_at IS NULL`, [orgId, lifeEventId, userId]);
  // Nothing updated: celebrated meanwhile, or removed meanwhile (then the read below answers not_found).
  const after = await requireVisibleLifeEvent(db, orgId, lifeEventId, true);
  if ((result.rowCount ?? 0) === 0) throw new StewardError('conflict', 'This life event has already been celebrated');
  return after;
}

/**
 * Deletes the event with its grief plan and its care-timeline entries; the caller's timeline sync
 * leaves a detail-free removal entry in their place. The plan's workflow is ended after the call
 * (and would find nothing to do if it were not).
 */
export async function removeLifeEvent(db: Queryable, orgId: string, canSeeRestricted: boolean, lifeEventId: string): Promise<LifeEvent> {
  const event = await requireVisibleLifeEvent(db, orgId, lifeEventId, canSeeRestricted, true);
  await db.query(`DELETE FROM timeline_entries t WHERE t.org_id = $1 AND ((t.source_kind = '${LIFE_EVENT_SOURCE}' AND t.source_id = $2)
      OR (t.source_kind = '${GRIEF_TOUCHPOINT_SOURCE}' AND t.source_id IN (SELECT g.id FROM pastoral_grief_touchpoints g WHERE g.org_id = $1 AND g.life_event_id = $2)))`,
  [orgId, lifeEventId]);
  await withModels(db, (transaction) => PastoralLifeEvent.destroy({ where: { orgId, id: lifeEventId }, transaction }));
  return event;
}

type TouchpointRow = Pick<RowOf<PastoralGriefTouchpoint>, 'id' | 'life_event_id' | 'label' | 'due_on' | 'status' | 'surfaced_at' | 'completed_at' | 'completion_note'>
  & Pick<RowOf<PastoralLifeEvent>, 'contact_id' | 'privacy' | 'confidentiality_level'> & { event_title: string } & Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email'>;

/** A touchpoint with its bereavement's title and privacy (a touchpoint is as restricted as its bereavement). */
const SELECT_TOUCHPOINT = `
  SELECT g.id, g.life_event_id, e.contact_id, e.title AS event_title, g.label, to_char(g.due_on, 'YYYY-MM-DD') AS due_on, g.status,
    g.surfaced_at, g.completed_at, g.completion_note, e.privacy, e.confidentiality_level, c.first_name, c.last_name, c.preferred_name, c.email
  FROM pastoral_grief_touchpoints g
  JOIN pastoral_life_events e ON e.id = g.life_event_id AND e.org_id = g.org_id
  JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL`;

function touchpointView(row: TouchpointRow): GriefTouchpoint {
  return {
    id: row.id, lifeEventId: row.life_event_id, contactId: row.contact_id, contactName: displayNameOf(row), eventTitle: row.event_title,
    label: row.label, dueOn: row.due_on, status: row.status, surfacedAt: row.surfaced_at?.toISOString() ?? null,
    completedAt: row.completed_at?.toISOString() ?? null, completionNote: row.completion_note,
  };
}

export interface TouchpointFilter {
  contactId?: string;
  lifeEventId?: string;
  status: GriefTouchpoint['status'] | 'open' | 'all';
  dueBefore?: string;
  limit: number;
}

/** Touchpoints follow their bereavement's visibility: a restricted bereavement's plan is invisible without safeguarding. */
export async function listGriefTouchpoints(db: Queryable, orgId: string, canSeeRestricted: boolean, filter: TouchpointFilter): Promise<GriefTouchpoint[]> {
  if (filter.contactId) await requireContact(db, orgId, filter.contactId);
  if (filter.lifeEventId) await requireVisibleLifeEvent(db, orgId, filter.lifeEventId, canSeeRestricted);
  const statuses = filter.status === 'all' ? null : filter.status === 'open' ? ['pending', 'due'] : [filter.status];
  const rows = await queryRows<TouchpointRow>(db, `${SELECT_TOUCHPOINT}
    WHERE g.org_id = $1 AND ${visibleRecordSql('e', canSeeRestricted)} AND ($2::uuid IS NULL OR e.contact_id = $2)
      AND ($3::uuid IS NULL OR g.life_event_id = $3) AND ($4::text[] IS NULL OR g.status = ANY($4)) AND ($5::date IS NULL OR g.due_on <= $5)
    ORDER BY g.due_on, g.position, g.id LIMIT $6`,
  [orgId, filter.contactId ?? null, filter.lifeEventId ?? null, statuses, filter.dueBefore ?? null, filter.limit]);
  return rows.map(touchpointView);
}

async function requireVisibleTouchpoint(db: Queryable, orgId: string, touchpointId: string, canSeeRestricted: boolean): Promise<{ touchpoint: GriefTouchpoint; restricted: boolean }> {
  const row = await queryOne<TouchpointRow>(db, `${SELECT_TOUCHPOINT}
    WHERE g.org_id = $1 AND g.id = $2 AND ${visibleRecordSql('e', canSeeRestricted)}`, [orgId, touchpointId]);
  if (!row) throw new StewardError('not_found', `Grief touchpoint ${touchpointId} was not found`, { hint: 'people_list_grief_touchpoints lists them.' });
  return { touchpoint: touchpointView(row), restricted: isRestrictedRecord({ privacy: row.privacy, confidentialityLevel: row.confidentiality_level }) };
}

/**
 * Completes a touchpoint (early completion is allowed: a visit made before the date counts). One
 * completion only: the conditional update lets exactly one of two simultaneous calls through.
 * The bereavement moves from new to ongoing: care has begun.
 */
export async function completeGriefTouchpoint(
  db: Queryable, orgId: string, userId: string, canSeeRestricted: boolean, input: { touchpointId: string; note?: string },
): Promise<{ touchpoint: GriefTouchpoint; restricted: boolean }> {
  const { touchpoint } = await requireVisibleTouchpoint(db, orgId, input.touchpointId, canSeeRestricted);
  const result = await db.query(`UPDATE pastoral_grief_touchpoints SET status = 'completed', completed_at = now(), completed_by_user_id = $3,
      completion_note = $4, updated_at = now()
    WHERE org_id = $1 AND id = $2 AND status <> 'completed'`, [orgId, input.touchpointId, userId, input.note ?? null]);
  if ((result.rowCount ?? 0) === 0) {
    // Completed meanwhile, or its bereavement removed meanwhile (then this read answers not_found).
    await requireVisibleTouchpoint(db, orgId, input.touchpointId, canSeeRestricted);
    throw new StewardError('conflict', `Touchpoint "${touchpoint.label}" is already completed`);
  }
  await db.query(`UPDATE pastoral_life_events SET status = 'ongoing', updated_at = now() WHERE org_id = $1 AND id = $2 AND status = 'new'`,
    [orgId, touchpoint.lifeEventId]);
  return requireVisibleTouchpoint(db, orgId, input.touchpointId, true);
}

/** A contact's name for messages, from the people module's own reader. */
export async function contactNameOf(db: Queryable, orgId: string, contactId: string): Promise<{ name: string; firstName: string }> {
  const contact = await requireContact(db, orgId, contactId);
  const name = displayNameOf({ first_name: contact.firstName ?? null, last_name: contact.lastName ?? null, preferred_name: contact.preferredName ?? null, email: contact.email ?? null });
  return { name, firstName: contact.preferredName ?? contact.firstName ?? name };
}
