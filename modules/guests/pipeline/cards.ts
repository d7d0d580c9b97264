import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound, type RowOf } from '../../kit';
import { displayNameOf, requireContact } from '../../people/api';
import type { PipelineCard } from './models';
import { assertTeamMember, stagesOrDefaults, type StageView } from './stages';

export const CARD_SOURCES = ['welcome_card', 'first_visit', 'manual'] as const;
export type CardSource = (typeof CARD_SOURCES)[number];
export const CARD_STATUSES = ['ready', 'snoozed', 'overdue', 'completed'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];
export const EVENT_KINDS = ['opened', 'advanced', 'moved', 'snoozed', 'completed', 'reopened', 'assigned', 'stage_removed', 'welcome_card_sent', 'card_submitted'] as const;

export interface CardView {
  id: string;
  contactId: string;
  guestName: string;
  stageId: string;
  stageName: string;
  stagePosition: number | null;
  status: CardStatus;
  source: CardSource;
  instanceId: string | null;
  assigneeUserId: string | null;
  stageEnteredAt: string;
  dueDate: string;
  snoozedUntil: string | null;
  snoozeReason: string | null;
  completedAt: string | null;
  outcome: string | null;
  openedAt: string;
}

type CardRow = Pick<RowOf<PipelineCard>, 'id' | 'contact_id' | 'stage_id' | 'source' | 'instance_id' | 'assignee_user_id' | 'stage_entered_at'
  | 'due_date' | 'snoozed_until' | 'snooze_reason' | 'completed_at' | 'outcome' | 'created_at'> & {
  stage_name: string; stage_position: number | null;
  first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; status: CardStatus;
};

/** Today as the pipeline counts it (UTC), so due dates and statuses agree across every list. */
export const utcToday = (now = new Date()) => now.toISOString().slice(0, 10);

/**
 * A card's status on `$2` (today): completed; snoozed while its snooze runs; overdue once its due date
 * has passed; otherwise ready. One expression, so every list and count agrees.
 */
const STATUS_SQL = `CASE WHEN c.completed_at IS NOT NULL THEN 'completed'
  WHEN c.snoozed_until IS NOT NULL AND c.snoozed_until > $2::date THEN 'snoozed'
  WHEN c.due_date < $2::date THEN 'overdue' ELSE 'ready' END`;

/** Cards joined to their stage and guest; a deleted guest's card is not shown. `$1` org, `$2` today. */
export const CARD_SELECT = `SELECT c.id, c.contact_id, c.stage_id, s.name AS stage_name, CASE WHEN s.archived_at IS NULL THEN s.position END AS stage_position,
    c.source, c.instance_id, c.assignee_user_id, c.stage_entered_at, to_char(c.due_date, 'YYYY-MM-DD') AS due_date,
    to_char(c.snoozed_until, 'YYYY-MM-DD') AS snoozed_until, c.snooze_reason, c.completed_at, c.outcome, c.created_at,
    d.first_name, d.last_name, d.preferred_name, d.email, ${STATUS_SQL} AS status
  FROM guests_pipeline_cards c
  JOIN guests_pipeline_stages s ON s.id = c.stage_id AND s.org_id = c.org_id
  JOIN people_directory d ON d.id = c.contact_id AND d.org_id = c.org_id
  WHERE c.org_id = $1`;

export function cardView(row: CardRow): CardView {
  return {
    id: row.id, contactId: row.contact_id, guestName: displayNameOf(row), stageId: row.stage_id, stageName: row.stage_name, stagePosition: row.stage_position,
    status: row.status, source: row.source, instanceId: row.instance_id, assigneeUserId: row.assignee_user_id,
    stageEnteredAt: row.stage_entered_at.toISOString(), dueDate: row.due_date, snoozedUntil: row.snoozed_until, snoozeReason: row.snooze_reason,
    completedAt: row.completed_at?.toISOString() ?? null, outcome: row.outcome, openedAt: row.created_at.toISOString(),
  };
}

export async function queryCards(db: Queryable, orgId: string, today: string, where = '', values: unknown[] = [], tail = 'ORDER BY c.due_date, c.id'): Promise<CardView[]> {
  const rows = await queryRows<CardRow>(db, `${CARD_SELECT} ${where} ${tail}`, [orgId, today, ...values]);
  return rows.map(cardView);
}

export async function requireCard(db: Queryable, orgId: string, cardId: string, today: string, lock = false): Promise<CardView> {
  if (lock) await db.query('SELECT id FROM guests_pipeline_cards WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, cardId]);
  const [card] = await queryCards(db, orgId, today, 'AND c.id = $3', [cardId]);
  if (!card) throw notFound('Guest card', cardId, 'guests_list_guest_journeys and guests_list_followup_tasks list guest cards.');
  return card;
}

export async function recordEvent(
  db: Queryable, orgId: string, cardId: string, kind: (typeof EVENT_KINDS)[number], fields: { from?: string | null; to?: string | null; note?: string | null; actorUserId?: string | null } = {},
): Promise<void> {
  await db.query(`INSERT INTO guests_pipeline_events (id, org_id, card_id, kind, from_stage_id, to_stage_id, note, actor_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [randomUUID(), orgId, cardId, kind, fields.from ?? null, fields.to ?? null, fields.note ?? null, fields.actorUserId ?? null]);
}

export interface OpenCardInput {
  contactId: string;
  source: CardSource;
  instanceId?: string | null;
  note?: string | null;
  assigneeUserId?: string | null;
  actorUserId?: string | null;
  today?: string;
}

/**
 * Opens the guest's card in the first stage, or finds the one they already have: a guest has one card,
 * ever (the unique index decides between concurrent callers; the loser gets the winner's card).
 */
export async function openGuestCard(db: Queryable, orgId: string, input: OpenCardInput): Promise<{ cardId: string; created: boolean }> {
  const today = input.today ?? utcToday();
  await requireContact(db, orgId, input.contactId);
  if (input.assigneeUserId) await assertTeamMember(db, orgId, input.assigneeUserId, 'assigneeUserId');
  const [first] = await stagesOrDefaults(db, orgId);
  const id = randomUUID();
  const inserted = await queryOne<{ id: string }>(db, `INSERT INTO guests_pipeline_cards
      (id, org_id, contact_id, stage_id, assignee_user_id, source, instance_id, due_date, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8::date + $9::int, $10) ON CONFLICT (org_id, contact_id) DO NOTHING RETURNING id`,
  [id, orgId, input.contactId, first.id, input.assigneeUserId ?? first.defaultAssigneeUserId, input.source, input.instanceId ?? null, today, first.expectedDays, input.actorUserId ?? null]);
  if (inserted) {
    await recordEvent(db, orgId, id, 'opened', { to: first.id, note: input.note ?? null, actorUserId: input.actorUserId });
    return { cardId: id, created: true };
  }
  const existing = await queryOne<{ id: string }>(db, 'SELECT id FROM guests_pipeline_cards WHERE org_id = $1 AND contact_id = $2', [orgId, input.contactId]);
  if (!existing) throw new StewardError('conflict', 'The guest card changed while it was being opened', { hint: 'Try again.' });
  return { cardId: existing.id, created: false };
}

function requireOpen(card: CardView, action: string): void {
  if (card.status === 'completed') {
    throw new StewardError('conflict', `This guest card is completed, so it cannot be ${action}`, { hint: 'guests_reopen_guest_card puts it back in a stage.' });
  }
}

function stageByIdOrName(stages: readonly StageView[], ref: { stageId?: string; stageName?: string }): StageView {
  const stage = ref.stageId ? stages.find((s) => s.id === ref.stageId) : stages.find((s) => s.name.toLowerCase() === ref.stageName!.toLowerCase());
  if (!stage) throw notFound('Stage', ref.stageId ?? `"${ref.stageName}"`, 'guests_list_pipeline_stages lists the current stages.');
  return stage;
}

async function enterStage(db: Queryable, orgId: string, card: CardView, stage: StageView, today: string, assigneeUserId: string | null): Promise<void> {
  await db.query(`UPDATE guests_pipeline_cards SET stage_id = $3, stage_entered_at = now(), due_date = $4::date + $5::int, snoozed_until = NULL, snooze_reason = NULL,
      completed_at = NULL, outcome = NULL, assignee_user_id = $6, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, card.id, stage.id, today, stage.expectedDays, assigneeUserId]);
}

/**
 * Moves a card to the next stage (or the one named). A card past the last stage is completed, not
 * advanced. The new stage's default assignee takes over unless the card's own assignee is kept.
 */
export async function advanceCard(
  db: Queryable, orgId: string, actorUserId: string | null, input: { cardId: string; stageId?: string; stageName?: string; note?: string; keepAssignee?: boolean; today?: string },
): Promise<CardView> {
  const today = input.today ?? utcToday();
  const card = await requireCard(db, orgId, input.cardId, today, true);
  requireOpen(card, 'advanced');
  const stages = await stagesOrDefaults(db, orgId);
  let target: StageView;
  if (input.stageId || input.stageName) {
    target = stageByIdOrName(stages, input);
    if (target.id === card.stageId) throw new StewardError('conflict', `The card is already in "${target.name}"`, { hint: 'Name another stage, or snooze or complete the card.' });
  } else {
    const next = stages.find((stage) => card.stagePosition === null || stage.position > card.stagePosition);
    if (!next) throw new StewardError('conflict', `"${card.stageName}" is the last stage`, { hint: 'guests_complete_guest_card completes the journey.' });
    target = next;
  }
  const assignee = input.keepAssignee ? card.assigneeUserId : (target.defaultAssigneeUserId ?? card.assigneeUserId);
  await enterStage(db, orgId, card, target, today, assignee);
  const forward = card.stagePosition === null || target.position > card.stagePosition;
  await recordEvent(db, orgId, card.id, forward ? 'advanced' : 'moved', { from: card.stageId, to: target.id, note: input.note, actorUserId });
  return requireCard(db, orgId, card.id, today);
}

export async function snoozeCard(db: Queryable, orgId: string, actorUserId: string | null, input: { cardId: string; until: string; reason?: string; today?: string }): Promise<CardView> {
  const today = input.today ?? utcToday();
  if (input.until <= today) {
    throw new StewardError('validation_failed', 'A snooze must end after today', { issues: [{ path: 'until', message: `must be after ${today}` }] });
  }
  const card = await requireCard(db, orgId, input.cardId, today, true);
  requireOpen(card, 'snoozed');
  // The follow-up is due when the snooze ends, unless it was due later anyway.
  await db.query(`UPDATE guests_pipeline_cards SET snoozed_until = $3, snooze_reason = $4, due_date = greatest(due_date, $3::date), updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, card.id, input.until, input.reason ?? null]);
  await recordEvent(db, orgId, card.id, 'snoozed', { note: input.reason ? `Until ${input.until}: ${input.reason}` : `Until ${input.until}`, actorUserId });
  return requireCard(db, orgId, card.id, today);
}

export async function completeCard(db: Queryable, orgId: string, actorUserId: string | null, input: { cardId: string; outcome: string; today?: string }): Promise<CardView> {
  const today = input.today ?? utcToday();
  const card = await requireCard(db, orgId, input.cardId, today, true);
  requireOpen(card, 'completed again');
  await db.query('UPDATE guests_pipeline_cards SET completed_at = now(), outcome = $3, snoozed_until = NULL, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, card.id, input.outcome]);
  await recordEvent(db, orgId, card.id, 'completed', { from: card.stageId, note: input.outcome, actorUserId });
  return requireCard(db, orgId, card.id, today);
}

export async function reopenCard(db: Queryable, orgId: string, actorUserId: string | null, input: { cardId: string; stageId?: string; stageName?: string; note?: string; today?: string }): Promise<CardView> {
  const today = input.today ?? utcToday();
  const card = await requireCard(db, orgId, input.cardId, today, true);
  if (card.status !== 'completed') throw new StewardError('conflict', 'Only a completed guest card can be reopened', { hint: 'guests_advance_guest_card moves an open card.' });
  const stages = await stagesOrDefaults(db, orgId);
  const target = input.stageId || input.stageName ? stageByIdOrName(stages, input) : (stages.find((stage) => stage.id === card.stageId) ?? stages[0]);
  await enterStage(db, orgId, card, target, today, card.assigneeUserId ?? target.defaultAssigneeUserId);
  await recordEvent(db, orgId, card.id, 'reopened', { to: target.id, note: input.note, actorUserId });
  return requireCard(db, orgId, card.id, today);
}

export async function assignCard(db: Queryable, orgId: string, actorUserId: string | null, input: { cardId: string; assigneeUserId: string; today?: string }): Promise<CardView> {
  const today = input.today ?? utcToday();
  await assertTeamMember(db, orgId, input.assigneeUserId, 'assigneeUserId');
  const card = await requireCard(db, orgId, input.cardId, today, true);
  requireOpen(card, 'reassigned');
  await db.query('UPDATE guests_pipeline_cards SET assignee_user_id = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, card.id, input.assigneeUserId]);
  await recordEvent(db, orgId, card.id, 'assigned', { actorUserId });
  return requireCard(db, orgId, card.id, today);
}

export interface JourneyStep {
  kind: (typeof EVENT_KINDS)[number];
  fromStage: string | null;
  toStage: string | null;
  note: string | null;
  actorUserId: string | null;
  at: string;
}

export async function eventsOf(db: Queryable, orgId: string, cardIds: readonly string[]): Promise<Map<string, JourneyStep[]>> {
  const rows = cardIds.length === 0 ? [] : await queryRows<{ card_id: string; kind: JourneyStep['kind']; from_name: string | null; to_name: string | null; note: string | null; actor_user_id: string | null; at: Date }>(db, `
    SELECT e.card_id, e.kind, f.name AS from_name, t.name AS to_name, e.note, e.actor_user_id, e.at
    FROM guests_pipeline_events e
    LEFT JOIN guests_pipeline_stages f ON f.id = e.from_stage_id AND f.org_id = e.org_id
    LEFT JOIN guests_pipeline_stages t ON t.id = e.to_stage_id AND t.org_id = e.org_id
    WHERE e.org_id = $1 AND e.card_id = ANY($2::uuid[]) ORDER BY e.at, e.id`, [orgId, cardIds]);
  const byCard = new Map<string, JourneyStep[]>();
  for (const row of rows) {
    const steps = byCard.get(row.card_id) ?? [];
    steps.push({ kind: row.kind, fromStage: row.from_name, toStage: row.to_name, note: row.note, actorUserId: row.actor_user_id, at: row.at.toISOString() });
    byCard.set(row.card_id, steps);
  }
  return byCard;
}
