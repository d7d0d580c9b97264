import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { PER_TIME_KEY, neededGranularity, requireEditablePlan, requirePlan, requireServiceType } from './common';

/** A template's running order (items with their header, no times) and the positions it needs. */
interface TemplateItem { ref: string; parentRef: string | null; kind: string; title: string; lengthSeconds: number; songId: string | null; arrangementId: string | null; key: string | null; notes: Record<string, string> }
interface TemplatePosition { positionId: string; quantity: number }

export async function createTemplate(db: Queryable, orgId: string, input: { name: string; fromPlanId: string; serviceTypeId?: string }): Promise<string> {
  const plan = await requirePlan(db, orgId, input.fromPlanId);
  if (input.serviceTypeId) await requireServiceType(db, orgId, input.serviceTypeId);
  const items = await queryRows<{ id: string; parent_id: string | null; kind: string; title: string; length_seconds: number; song_id: string | null; arrangement_id: string | null; music_key: string | null; notes: Record<string, string> }>(db,
    'SELECT id, parent_id, kind, title, length_seconds, song_id, arrangement_id, music_key, notes FROM runsheet_items WHERE org_id = $1 AND plan_id = $2 ORDER BY parent_id NULLS FIRST, sort_order', [orgId, plan.id]);
  // Templates have no times: a position needed per time keeps the most any one time needs.
  const positions = await queryRows<{ position_id: string; quantity: number }>(db, 'SELECT position_id, max(quantity)::int AS quantity FROM runsheet_needed_positions WHERE org_id = $1 AND plan_id = $2 GROUP BY position_id', [orgId, plan.id]);
  const templateItems: TemplateItem[] = items.map((item) => ({
    ref: item.id, parentRef: item.parent_id, kind: item.kind, title: item.title, lengthSeconds: item.length_seconds, songId: item.song_id, arrangementId: item.arrangement_id, key: item.music_key, notes: item.notes,
  }));
  const templatePositions: TemplatePosition[] = positions.map((row) => ({ positionId: row.position_id, quantity: row.quantity }));
  const row = await queryOne<{ id: string }>(db, `INSERT INTO runsheet_templates (id, org_id, service_type_id, name, items, positions) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (org_id, lower(name)) DO NOTHING RETURNING id`, [randomUUID(), orgId, input.serviceTypeId ?? plan.service_type_id, input.name, JSON.stringify(templateItems), JSON.stringify(templatePositions)]);
  if (!row) throw new StewardError('conflict', `A template named "${input.name}" exists already`, { hint: 'runsheet_list_templates shows it; choose another name.' });
  return row.id;
}

async function requireTemplate(db: Queryable, orgId: string, templateId: string) {
  const row = await queryOne<{ id: string; name: string; service_type_id: string | null; items: TemplateItem[]; positions: TemplatePosition[] }>(db,
    'SELECT id, name, service_type_id, items, positions FROM runsheet_templates WHERE org_id = $1 AND id = $2', [orgId, templateId]);
  if (!row) throw notFound('Template', templateId, 'runsheet_list_templates lists the templates there are.');
  return row;
}

export async function listTemplates(db: Queryable, orgId: string, input: { serviceTypeId?: string }) {
  if (input.serviceTypeId) await requireServiceType(db, orgId, input.serviceTypeId);
  const rows = await queryRows<{ id: string; name: string; service_type_id: string | null; items: TemplateItem[]; positions: TemplatePosition[] }>(db,
    'SELECT id, name, service_type_id, items, positions FROM runsheet_templates WHERE org_id = $1 AND ($2::uuid IS NULL OR service_type_id = $2) ORDER BY lower(name)', [orgId, input.serviceTypeId ?? null]);
  return rows.map((row) => ({
    id: row.id, name: row.name, serviceTypeId: row.service_type_id,
    items: row.items.map((item) => ({ kind: item.kind, title: item.title, lengthSeconds: item.lengthSeconds, inHeader: item.parentRef !== null })),
    positions: row.positions,
  }));
}

/** People on the plan in positions the template does not need: those a replacing apply would take off. */
export async function peopleDisplacedBy(db: Queryable, orgId: string, planId: string, templateId: string): Promise<number> {
  const template = await requireTemplate(db, orgId, templateId);
  const kept = template.positions.filter((position) => position.quantity > 0).map((position) => position.positionId);
  const row = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM runsheet_plan_people WHERE org_id = $1 AND plan_id = $2 AND NOT (position_id = ANY($3::uuid[]))',
    [orgId, planId, kept]);
  return row?.n ?? 0;
}

/**
 * Applies a template to a plan. merge: its items are added after the plan's and its needed positions
 * added or raised. replace: the plan's items and needed positions become the template's, and people in
 * positions it does not need come off (a call that would take anyone off waits for a person's approval).
 */
export async function applyTemplate(db: Queryable, orgId: string, input: { planId: string; templateId: string; mode: 'merge' | 'replace' }) {
  const plan = await requireEditablePlan(db, orgId, input.planId);
  const template = await requireTemplate(db, orgId, input.templateId);
  let removedPeople = 0;
  if (input.mode === 'replace') {
    await db.query('DELETE FROM runsheet_items WHERE org_id = $1 AND plan_id = $2', [orgId, plan.id]);
    const kept = template.positions.filter((position) => position.quantity > 0).map((position) => position.positionId);
    removedPeople = (await db.query('DELETE FROM runsheet_plan_people WHERE org_id = $1 AND plan_id = $2 AND NOT (position_id = ANY($3::uuid[]))', [orgId, plan.id, kept])).rowCount ?? 0;
    await db.query('DELETE FROM runsheet_needed_positions WHERE org_id = $1 AND plan_id = $2', [orgId, plan.id]);
  }
  const base = await queryOne<{ n: number }>(db, 'SELECT COALESCE(max(sort_order), 0)::int AS n FROM runsheet_items WHERE org_id = $1 AND plan_id = $2 AND parent_id IS NULL', [orgId, plan.id]);
  const ids = new Map(template.items.map((item) => [item.ref, randomUUID()]));
  const songs = new Set((await queryRows<{ id: string }>(db, 'SELECT id FROM runsheet_songs WHERE org_id = $1', [orgId])).map((row) => row.id));
  const orderWithin = new Map<string | null, number>();
  for (const item of template.items) {
    const order = (orderWithin.get(item.parentRef) ?? (item.parentRef === null ? base?.n ?? 0 : 0)) + 1;
    orderWithin.set(item.parentRef, order);
    const songId = item.songId && songs.has(item.songId) ? item.songId : null;
    await db.query(`INSERT INTO runsheet_items (id, org_id, plan_id, parent_id, kind, title, length_seconds, sort_order, song_id, arrangement_id, music_key, notes)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, (SELECT id FROM runsheet_arrangements WHERE org_id = $2 AND id = $10 AND song_id = $9), $11, $12)`,
    [ids.get(item.ref), orgId, plan.id, item.parentRef ? ids.get(item.parentRef) ?? null : null, item.kind, item.title, item.lengthSeconds, order, songId,
      songId ? item.arrangementId : null, item.key, JSON.stringify(item.notes)]);
  }
  let positions = 0;
  for (const position of template.positions) {
    const exists = await queryOne(db, 'SELECT 1 FROM runsheet_positions WHERE org_id = $1 AND id = $2', [orgId, position.positionId]);
    if (!exists || position.quantity <= 0) continue;
    // A position the plan needs per time keeps its times' needs (a merge never mixes the two).
    if (await neededGranularity(db, orgId, plan.id, position.positionId) === 'per_time') continue;
    await db.query(`INSERT INTO runsheet_needed_positions (id, org_id, plan_id, position_id, quantity) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (org_id, plan_id, position_id, ${PER_TIME_KEY}) DO UPDATE SET quantity = GREATEST(runsheet_needed_positions.quantity, EXCLUDED.quantity)`,
    [randomUUID(), orgId, plan.id, position.positionId, position.quantity]);
    positions += 1;
  }
  return { planId: plan.id, templateId: template.id, mode: input.mode, itemsAdded: template.items.length, positionsSet: positions, peopleRemoved: removedPeople };
}
