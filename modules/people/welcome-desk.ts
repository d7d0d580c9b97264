import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { displayNameOf } from './contacts';

const WELCOME_FOLLOW_UP_DAYS = 3;
export const VISITOR_STAGES = ['first_time_visitor', 'returning_visitor'] as const;

/**
 * A contact becoming a first-time visitor gets their first-visit date and a
 * Welcome Desk follow-up task, so nobody who walked in once is forgotten.
 */
export async function openWelcomeFollowUp(
  db: Queryable, orgId: string, contact: { id: string; displayName: string; membershipStatus: string | null }, previousStage: string | null,
): Promise<void> {
  if (contact.membershipStatus !== 'first_time_visitor' || previousStage === 'first_time_visitor') return;
  await db.query('UPDATE contacts SET first_visit_date = COALESCE(first_visit_date, current_date) WHERE org_id = $1 AND id = $2', [orgId, contact.id]);
  await db.query(`INSERT INTO follow_up_tasks (id, org_id, contact_id, title, due_date) VALUES ($1, $2, $3, $4, current_date + $5::int)`,
    [randomUUID(), orgId, contact.id, `Welcome ${contact.displayName} after their first visit`, WELCOME_FOLLOW_UP_DAYS]);
}

export async function listWelcomeDeskVisitors(db: Queryable, orgId: string, filter: { stage?: string; since?: string; limit: number }) {
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; phone: string | null; membership_status: string; first_visit_date: string | null; open_tasks: number }>(db, `
    SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, c.phone, c.membership_status, c.first_visit_date,
      (SELECT count(*)::int FROM follow_up_tasks t WHERE t.contact_id = c.id AND t.status = 'open') AS open_tasks
    FROM contacts c
    WHERE c.org_id = $1 AND c.deleted_at IS NULL AND c.membership_status = ANY($2::text[])
      AND ($3::date IS NULL OR c.first_visit_date >= $3::date)
    ORDER BY c.first_visit_date DESC NULLS LAST, c.created_at DESC LIMIT $4`,
    [orgId, filter.stage ? [filter.stage] : [...VISITOR_STAGES], filter.since ?? null, filter.limit]);
  return rows.map((row) => ({
    contactId: row.id, displayName: displayNameOf(row), email: row.email, phone: row.phone,
    membershipStatus: row.membership_status, firstVisitDate: row.first_visit_date, openFollowUpTasks: row.open_tasks,
  }));
}

interface TaskRow {
  id: string; contact_id: string; title: string; due_date: string | null; status: 'open' | 'completed'; outcome: string | null;
  completed_at: Date | null; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null;
}

function toTask(row: TaskRow) {
  return {
    id: row.id, contactId: row.contact_id, contactName: displayNameOf(row), title: row.title, dueDate: row.due_date,
    status: row.status, outcome: row.outcome, completedAt: row.completed_at ? row.completed_at.toISOString() : null,
  };
}

const TASK_SELECT = `
  SELECT t.*, c.first_name, c.last_name, c.preferred_name, c.email
  FROM follow_up_tasks t JOIN contacts c ON c.id = t.contact_id AND c.deleted_at IS NULL`;

export async function listFollowUpTasks(db: Queryable, orgId: string, filter: { status: 'open' | 'completed' | 'all'; contactId?: string; limit: number }) {
  const rows = await queryRows<TaskRow>(db, `${TASK_SELECT}
    WHERE t.org_id = $1 AND ($2 = 'all' OR t.status = $2) AND ($3::uuid IS NULL OR t.contact_id = $3)
    ORDER BY t.due_date NULLS LAST, t.created_at LIMIT $4`, [orgId, filter.status, filter.contactId ?? null, filter.limit]);
  return rows.map(toTask);
}

export async function completeFollowUpTask(db: Queryable, orgId: string, taskId: string, userId: string, outcome?: string) {
  const row = await queryOne<TaskRow>(db, `${TASK_SELECT} WHERE t.org_id = $1 AND t.id = $2`, [orgId, taskId]);
  if (!row) throw new StewardError('not_found', `Follow-up task ${taskId} was not found`, { hint: 'people_list_follow_up_tasks lists open tasks.' });
  if (row.status === 'completed') throw new StewardError('conflict', 'This follow-up task is already completed');
  await db.query(`UPDATE follow_up_tasks SET status = 'completed', outcome = $3, completed_at = now(), completed_by = $4 WHERE org_id = $1 AND id = $2`,
    [orgId, taskId, outcome ?? null, userId]);
  return toTask((await queryOne<TaskRow>(db, `${TASK_SELECT} WHERE t.org_id = $1 AND t.id = $2`, [orgId, taskId]))!);
}
