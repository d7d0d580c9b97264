import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { addDays } from '../../metrics';
import { listCheckins } from '../checkin/published';
import { eventsOf, queryCards, utcToday, type CardStatus, type CardView, type JourneyStep } from './cards';
import { listStages } from './stages';

/** Open cards as follow-up tasks, soonest due first; `assigneeUserId` narrows to one person's. */
export async function listFollowupTasks(
  db: Queryable, orgId: string, filter: { assigneeUserId?: string; status?: Exclude<CardStatus, 'completed'>; stageId?: string; limit: number; today?: string },
): Promise<CardView[]> {
  const today = filter.today ?? utcToday();
  return queryCards(db, orgId, today, `AND c.completed_at IS NULL AND ($3::uuid IS NULL OR c.assignee_user_id = $3) AND ($4::uuid IS NULL OR c.stage_id = $4)
    AND ($5::text IS NULL OR (${STATUS_OF_CARD}) = $5)`,
  [filter.assigneeUserId ?? null, filter.stageId ?? null, filter.status ?? null], `ORDER BY c.due_date, c.created_at, c.id LIMIT ${filter.limit}`);
}

const STATUS_OF_CARD = `CASE WHEN c.snoozed_until IS NOT NULL AND c.snoozed_until > $2::date THEN 'snoozed' WHEN c.due_date < $2::date THEN 'overdue' ELSE 'ready' END`;

/** Open, unsnoozed cards due on or before `by` (default today): what someone should do now. */
export async function listFollowupsDue(db: Queryable, orgId: string, filter: { by?: string; assigneeUserId?: string; limit: number; today?: string }): Promise<CardView[]> {
  const today = filter.today ?? utcToday();
  return queryCards(db, orgId, today, `AND c.completed_at IS NULL AND (c.snoozed_until IS NULL OR c.snoozed_until <= $3::date) AND c.due_date <= $3::date
    AND ($4::uuid IS NULL OR c.assignee_user_id = $4)`, [filter.by ?? today, filter.assigneeUserId ?? null], `ORDER BY c.due_date, c.created_at, c.id LIMIT ${filter.limit}`);
}

export interface Journey extends CardView {
  steps: JourneyStep[];
}

/** Guests' cards with every step they went through, newest cards first. */
export async function listJourneys(
  db: Queryable, orgId: string, filter: { contactId?: string; status?: CardStatus; limit: number; today?: string },
): Promise<Journey[]> {
  const today = filter.today ?? utcToday();
  const cards = await queryCards(db, orgId, today, `AND ($3::uuid IS NULL OR c.contact_id = $3) AND ($4::text IS NULL OR (CASE WHEN c.completed_at IS NOT NULL THEN 'completed' ELSE ${STATUS_OF_CARD} END) = $4)`,
    [filter.contactId ?? null, filter.status ?? null], `ORDER BY c.created_at DESC, c.id DESC LIMIT ${filter.limit}`);
  const steps = await eventsOf(db, orgId, cards.map((card) => card.id));
  return cards.map((card) => ({ ...card, steps: steps.get(card.id) ?? [] }));
}

export interface PipelineSummary {
  asOf: string;
  stages: Array<{ stageId: string; name: string; position: number; expectedDays: number; open: number; ready: number; overdue: number; snoozed: number }>;
  open: number;
  overdue: number;
  snoozed: number;
  openedLast7Days: number;
  completedLast30Days: number;
  medianDaysToComplete: number | null;
}

/** Counts per stage and overall, as of today. */
export async function pipelineSummary(db: Queryable, orgId: string, today = utcToday()): Promise<PipelineSummary> {
  const stages = await listStages(db, orgId);
  const counts = await queryRows<{ stage_id: string; status: string; n: number }>(db, `SELECT c.stage_id, ${STATUS_OF_CARD} AS status, count(*)::int AS n
    FROM guests_pipeline_cards c JOIN people_directory d ON d.id = c.contact_id AND d.org_id = c.org_id
    WHERE c.org_id = $1 AND c.completed_at IS NULL GROUP BY 1, 2`, [orgId, today]);
  const totals = await queryOne<{ opened: number; completed: number; median_days: number | null }>(db, `SELECT
      count(*) FILTER (WHERE c.created_at >= $2::date - 6)::int AS opened,
      count(*) FILTER (WHERE c.completed_at >= $2::date - 29)::int AS completed,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM c.completed_at - c.created_at) / 86400) FILTER (WHERE c.completed_at IS NOT NULL) AS median_days
    FROM guests_pipeline_cards c JOIN people_directory d ON d.id = c.contact_id AND d.org_id = c.org_id WHERE c.org_id = $1`, [orgId, today]);
  const count = (stageId: string | null, status?: string) => counts.filter((row) => (stageId === null || row.stage_id === stageId) && (!status || row.status === status)).reduce((sum, row) => sum + row.n, 0);
  return {
    asOf: today,
    stages: stages.map((stage) => ({
      stageId: stage.id, name: stage.name, position: stage.position, expectedDays: stage.expectedDays,
      open: count(stage.id), ready: count(stage.id, 'ready'), overdue: count(stage.id, 'overdue'), snoozed: count(stage.id, 'snoozed'),
    })),
    open: count(null), overdue: count(null, 'overdue'), snoozed: count(null, 'snoozed'),
    openedLast7Days: totals?.opened ?? 0, completedLast30Days: totals?.completed ?? 0,
    medianDaysToComplete: totals?.median_days === null || totals?.median_days === undefined ? null : Math.round(Number(totals.median_days) * 10) / 10,
  };
}

export interface Suggestion {
  cardId: string;
  contactId: string;
  guestName: string;
  stageName: string;
  status: CardStatus;
  action: 'send_welcome_card' | 'follow_up_now' | 'advance' | 'complete' | 'wait';
  suggestion: string;
  reason: string;
  tool: string;
  args: Record<string, unknown>;
}

const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/**
 * The next step for each open card, from its stage and its history, with the reason in plain
 * words: a first card with no welcome card yet → send one; a guest who came back since the card
 * entered its stage → advance; the last stage's time passed → complete; overdue → follow up now;
 * otherwise wait until it is due. Rules, not a score, so anyone can check them.
 */
export async function followupSuggestions(db: Queryable, orgId: string, filter: { contactId?: string; assigneeUserId?: string; limit: number; today?: string }): Promise<Suggestion[]> {
  const today = filter.today ?? utcToday();
  const cards = await queryCards(db, orgId, today, `AND c.completed_at IS NULL AND ($3::uuid IS NULL OR c.contact_id = $3) AND ($4::uuid IS NULL OR c.assignee_user_id = $4)`,
    [filter.contactId ?? null, filter.assigneeUserId ?? null], `ORDER BY c.due_date, c.created_at, c.id LIMIT ${filter.limit}`);
  if (cards.length === 0) return [];
  const stages = await listStages(db, orgId);
  const lastPosition = stages.length > 0 ? stages[stages.length - 1].position : null;
  const welcomed = new Set((await queryRows<{ contact_id: string }>(db, `SELECT DISTINCT contact_id FROM guests_welcome_cards WHERE org_id = $1 AND status <> 'cancelled' AND contact_id = ANY($2::uuid[])`,
    [orgId, cards.map((card) => card.contactId)])).map((row) => row.contact_id));
  const earliest = cards.reduce((min, card) => (card.openedAt < min ? card.openedAt : min), cards[0].openedAt).slice(0, 10);
  const visits = await listCheckins(db, orgId, { from: addDays(earliest, -1), to: today });
  return cards.map((card) => suggestionFor(card, {
    today, welcomed: welcomed.has(card.contactId), isLast: card.stagePosition !== null && card.stagePosition === lastPosition,
    visitsSinceStage: [...new Set(visits.filter((visit) => visit.contactId === card.contactId && visit.checkedInAt > card.stageEnteredAt).map((visit) => visit.localDate))],
  }));
}

function suggestionFor(card: CardView, facts: { today: string; welcomed: boolean; isLast: boolean; visitsSinceStage: string[] }): Suggestion {
  const base = { cardId: card.id, contactId: card.contactId, guestName: card.guestName, stageName: card.stageName, status: card.status };
  const inStage = daysBetween(card.stageEnteredAt.slice(0, 10), facts.today);
  if (card.status === 'snoozed') {
    return { ...base, action: 'wait', suggestion: `Wait until ${card.snoozedUntil}`, reason: `Snoozed until ${card.snoozedUntil}${card.snoozeReason ? ` (${card.snoozeReason})` : ''}.`, tool: 'guests_list_followups_due', args: { by: card.snoozedUntil } };
  }
  if (!facts.welcomed && card.stagePosition === 0) {
    return { ...base, action: 'send_welcome_card', suggestion: `Send ${card.guestName} a welcome card`, reason: `In "${card.stageName}" for ${inStage} day(s) and no welcome card has been sent or queued yet.`, tool: 'guests_send_welcome_card', args: { contactId: card.contactId } };
  }
  if (facts.visitsSinceStage.length > 0 && !facts.isLast) {
    return { ...base, action: 'advance', suggestion: `Move ${card.guestName} to the next stage`, reason: `Checked in again on ${facts.visitsSinceStage.join(', ')} since entering "${card.stageName}".`, tool: 'guests_advance_guest_card', args: { cardId: card.id } };
  }
  if (facts.isLast && card.status === 'overdue') {
    return { ...base, action: 'complete', suggestion: `Complete ${card.guestName}'s journey`, reason: `In the last stage "${card.stageName}" for ${inStage} day(s), past its due date ${card.dueDate}.`, tool: 'guests_complete_guest_card', args: { cardId: card.id } };
  }
  if (card.status === 'overdue') {
    return { ...base, action: 'follow_up_now', suggestion: `Follow up with ${card.guestName} now`, reason: `Due ${card.dueDate} in "${card.stageName}", ${daysBetween(card.dueDate, facts.today)} day(s) overdue, no visit since entering the stage.`, tool: 'guests_advance_guest_card', args: { cardId: card.id } };
  }
  return { ...base, action: 'wait', suggestion: `Follow up by ${card.dueDate}`, reason: `In "${card.stageName}" for ${inStage} day(s); due ${card.dueDate}.`, tool: 'guests_list_followups_due', args: { by: card.dueDate } };
}
