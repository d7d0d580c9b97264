import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import type { RowOf } from '../../kit';
import { listTeam } from '../../platform/api';
import type { PipelineStage } from './models';

export interface StageView {
  id: string;
  name: string;
  description: string | null;
  position: number;
  expectedDays: number;
  defaultAssigneeUserId: string | null;
}

type StageRow = Pick<RowOf<PipelineStage>, 'id' | 'name' | 'description' | 'position' | 'expected_days' | 'default_assignee_user_id'>;

/** What a church starts with when it has not set its own stages: the first month after a first visit. */
export const DEFAULT_STAGES: ReadonlyArray<Omit<StageView, 'id' | 'position' | 'defaultAssigneeUserId'>> = [
  { name: 'Welcome', description: 'Thank them for coming and send a welcome card', expectedDays: 2 },
  { name: 'First conversation', description: 'A call or a coffee: get to know them and answer questions', expectedDays: 7 },
  { name: 'Second visit', description: 'Invite them back and look out for them', expectedDays: 14 },
  { name: 'Connected', description: 'Help them into a group, a team or a course', expectedDays: 30 },
];

const stageView = (row: StageRow): StageView => ({
  id: row.id, name: row.name, description: row.description, position: row.position, expectedDays: row.expected_days, defaultAssigneeUserId: row.default_assignee_user_id,
});

/** Stage changes for one organisation take turns, so two syncs (or a sync and the first card) never interleave. */
async function lockStages(db: Queryable, orgId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext('guests_pipeline_stages'), hashtext($1))", [orgId]);
}

export async function listStages(db: Queryable, orgId: string): Promise<StageView[]> {
  const rows = await queryRows<StageRow>(db, `SELECT id, name, description, position, expected_days, default_assignee_user_id
    FROM guests_pipeline_stages WHERE org_id = $1 AND archived_at IS NULL ORDER BY position, id`, [orgId]);
  return rows.map(stageView);
}

/** The organisation's stages, creating the default set the first time a card needs one. */
export async function stagesOrDefaults(db: Queryable, orgId: string): Promise<StageView[]> {
  const stages = await listStages(db, orgId);
  if (stages.length > 0) return stages;
  await lockStages(db, orgId);
  const again = await listStages(db, orgId);
  if (again.length > 0) return again;
  for (const [position, stage] of DEFAULT_STAGES.entries()) {
    await db.query(`INSERT INTO guests_pipeline_stages (id, org_id, name, description, position, expected_days) VALUES ($1, $2, $3, $4, $5, $6)`,
      [randomUUID(), orgId, stage.name, stage.description, position, stage.expectedDays]);
  }
  return listStages(db, orgId);
}

/** A stage by id, archived ones included (events and cards keep naming them). */
export async function stageName(db: Queryable, orgId: string, stageId: string): Promise<string | null> {
  return (await queryOne<{ name: string }>(db, 'SELECT name FROM guests_pipeline_stages WHERE org_id = $1 AND id = $2', [orgId, stageId]))?.name ?? null;
}

export async function assertTeamMember(db: Queryable, orgId: string, userId: string, path: string): Promise<void> {
  const team = await listTeam(db, orgId);
  if (!team.some((member) => member.userId === userId)) {
    throw new StewardError('not_found', `Team member ${userId} was not found`, {
      hint: 'platform_list_team_members lists the people who can be given follow-ups.', issues: [{ path, message: 'not a member of this organisation' }],
    });
  }
}

export const REMOVED_STAGE_CARDS = ['refuse', 'move_to_previous', 'move_to_first', 'complete'] as const;
export type RemovedStageCards = (typeof REMOVED_STAGE_CARDS)[number];

export interface StageInput {
  id?: string;
  name: string;
  description?: string | null;
  expectedDays: number;
  defaultAssigneeUserId?: string | null;
}

export interface SyncResult {
  stages: StageView[];
  created: string[];
  updated: string[];
  removed: string[];
  cardsMoved: number;
  cardsCompleted: number;
  changed: boolean;
}

function assertDistinctNames(stages: readonly StageInput[]): void {
  const seen = new Set<string>();
  for (const [index, stage] of stages.entries()) {
    const key = stage.name.toLowerCase();
    if (seen.has(key)) throw new StewardError('validation_failed', `Two stages are named "${stage.name}"`, { issues: [{ path: `stages.${index}.name`, message: 'stage names must be distinct' }] });
    seen.add(key);
  }
}

/** Which existing stage each input stands for: by id when given (it must be one of the live stages), else by name. */
function matchStages(current: readonly StageView[], wanted: readonly StageInput[]): Array<StageView | null> {
  const claimed = new Set<string>();
  return wanted.map((stage, index) => {
    const match = stage.id
      ? current.find((existing) => existing.id === stage.id)
      : current.find((existing) => existing.name.toLowerCase() === stage.name.toLowerCase());
    if (stage.id && !match) {
      throw new StewardError('not_found', `Stage ${stage.id} was not found`, { hint: 'guests_list_pipeline_stages lists the current stages; omit id to add a new one.', issues: [{ path: `stages.${index}.id`, message: 'not a current stage' }] });
    }
    if (match && claimed.has(match.id)) throw new StewardError('validation_failed', `Stage "${match.name}" is given twice`, { issues: [{ path: `stages.${index}`, message: 'each stage once' }] });
    if (match) claimed.add(match.id);
    return match ?? null;
  });
}

/**
 * Replaces the organisation's stages with `wanted`, in that order. A stage is kept (and updated) when
 * its id or name matches; the others are created; current stages not named are archived. Open cards
 * in an archived stage are handled as `removedStageCards` says, never left in a stage that is gone:
 * `refuse` (the default) answers conflict naming them. The same call twice changes nothing.
 */
export async function syncStages(
  db: Queryable, orgId: string, actorUserId: string | null, wanted: readonly StageInput[], removedStageCards: RemovedStageCards,
): Promise<SyncResult> {
  assertDistinctNames(wanted);
  for (const [index, stage] of wanted.entries()) {
    if (stage.defaultAssigneeUserId) await assertTeamMember(db, orgId, stage.defaultAssigneeUserId, `stages.${index}.defaultAssigneeUserId`);
  }
  await lockStages(db, orgId);
  const current = await listStages(db, orgId);
  const matches = matchStages(current, wanted);
  const keptIds = new Set(matches.filter((match): match is StageView => match !== null).map((match) => match.id));
  const removed = current.filter((stage) => !keptIds.has(stage.id));
  const openInRemoved = removed.length === 0 ? [] : await queryRows<{ stage_id: string; open: number }>(db, `SELECT stage_id, count(*)::int AS open
    FROM guests_pipeline_cards WHERE org_id = $1 AND stage_id = ANY($2::uuid[]) AND completed_at IS NULL GROUP BY stage_id`, [orgId, removed.map((stage) => stage.id)]);
  if (openInRemoved.length > 0 && removedStageCards === 'refuse') {
    const named = openInRemoved.map((row) => `${current.find((stage) => stage.id === row.stage_id)!.name} (${row.open})`).join(', ');
    throw new StewardError('conflict', `Stages being removed still hold open guest cards: ${named}`, {
      hint: 'Call again with removedStageCards: move_to_previous, move_to_first or complete, or keep those stages.',
      details: { stages: openInRemoved.map((row) => ({ stageId: row.stage_id, openCards: row.open })) },
    });
  }
  // Names are freed first, so a stage may take a name another one is giving up in the same sync.
  if (removed.length > 0) {
    await db.query('UPDATE guests_pipeline_stages SET archived_at = now(), updated_at = now() WHERE org_id = $1 AND id = ANY($2::uuid[])', [orgId, removed.map((stage) => stage.id)]);
  }
  const created: string[] = [];
  const updated: string[] = [];
  const finalIds: string[] = [];
  for (const [position, stage] of wanted.entries()) {
    const match = matches[position];
    const description = stage.description ?? null;
    const assignee = stage.defaultAssigneeUserId ?? null;
    if (!match) {
      const id = randomUUID();
      await db.query(`INSERT INTO guests_pipeline_stages (id, org_id, name, description, position, expected_days, default_assignee_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [id, orgId, stage.name, description, position, stage.expectedDays, assignee]);
      created.push(id);
      finalIds.push(id);
      continue;
    }
    finalIds.push(match.id);
    const same = match.name === stage.name && match.description === description && match.position === position
      && match.expectedDays === stage.expectedDays && match.defaultAssigneeUserId === assignee;
    if (same) continue;
    await db.query(`UPDATE guests_pipeline_stages SET name = $3, description = $4, position = $5, expected_days = $6, default_assignee_user_id = $7, updated_at = now()
      WHERE org_id = $1 AND id = $2`, [orgId, match.id, stage.name, description, position, stage.expectedDays, assignee]);
    updated.push(match.id);
  }
  const moved = await settleRemovedStageCards(db, orgId, actorUserId, current, removed, finalIds, removedStageCards);
  return {
    stages: await listStages(db, orgId), created, updated, removed: removed.map((stage) => stage.id),
    cardsMoved: moved.moved, cardsCompleted: moved.completed, changed: created.length + updated.length + removed.length > 0,
  };
}

/** Open cards of archived stages go where the caller said, each move recorded on the card. */
async function settleRemovedStageCards(
  db: Queryable, orgId: string, actorUserId: string | null, before: readonly StageView[], removed: readonly StageView[], finalIds: readonly string[], how: RemovedStageCards,
): Promise<{ moved: number; completed: number }> {
  let moved = 0;
  let completed = 0;
  for (const stage of removed) {
    if (how === 'complete') {
      const rows = await queryRows<{ id: string }>(db, `UPDATE guests_pipeline_cards SET completed_at = now(), outcome = $3, updated_at = now()
        WHERE org_id = $1 AND stage_id = $2 AND completed_at IS NULL RETURNING id`, [orgId, stage.id, `Completed when stage "${stage.name}" was removed`]);
      await recordStageRemoved(db, orgId, rows.map((row) => row.id), stage.id, null, actorUserId, `Stage "${stage.name}" was removed; card completed`);
      completed += rows.length;
      continue;
    }
    const target = targetStage(before, stage, finalIds, how);
    if (!target) {
      throw new StewardError('validation_failed', 'A sync must leave at least one stage to move open cards into', { issues: [{ path: 'stages', message: 'give at least one stage, or removedStageCards: complete' }] });
    }
    const rows = await queryRows<{ id: string }>(db, `UPDATE guests_pipeline_cards c SET stage_id = $3, stage_entered_at = now(),
        due_date = (now() AT TIME ZONE 'UTC')::date + (SELECT expected_days FROM guests_pipeline_stages s WHERE s.id = $3), updated_at = now()
      WHERE c.org_id = $1 AND c.stage_id = $2 AND c.completed_at IS NULL RETURNING c.id`, [orgId, stage.id, target]);
    await recordStageRemoved(db, orgId, rows.map((row) => row.id), stage.id, target, actorUserId, `Stage "${stage.name}" was removed`);
    moved += rows.length;
  }
  return { moved, completed };
}

/** The kept stage a removed one's cards move to: the nearest earlier kept stage, or the first. */
function targetStage(before: readonly StageView[], stage: StageView, finalIds: readonly string[], how: 'move_to_previous' | 'move_to_first' | 'refuse'): string | null {
  if (finalIds.length === 0) return null;
  if (how === 'move_to_previous') {
    const earlier = before.filter((candidate) => candidate.position < stage.position && finalIds.includes(candidate.id));
    if (earlier.length > 0) return earlier[earlier.length - 1].id;
  }
  return finalIds[0];
}

async function recordStageRemoved(db: Queryable, orgId: string, cardIds: readonly string[], from: string, to: string | null, actorUserId: string | null, note: string): Promise<void> {
  for (const cardId of cardIds) {
    await db.query(`INSERT INTO guests_pipeline_events (id, org_id, card_id, kind, from_stage_id, to_stage_id, note, actor_user_id) VALUES ($1, $2, $3, 'stage_removed', $4, $5, $6, $7)`,
      [randomUUID(), orgId, cardId, from, to, note, actorUserId]);
  }
}
