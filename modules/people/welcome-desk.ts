import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { fn, literal, type Transaction } from 'sequelize';
import { queryRows, type Queryable } from '../../db/pool';
import { sequelize, withModels } from '../../db/sequelize';
import { displayNameOf } from './display-name';
import { Contact, FollowUpTask } from './models';

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
  await withModels(db, async (transaction) => {
    // Only a first visit date not yet known is set, to the database's today. The date is bookkeeping, not an
    // edit of the contact: updated_at stays (silent), and the row is found whether or not it is soft-deleted.
    await Contact.update({ firstVisitDate: literal('current_date') }, {
      where: { orgId, id: contact.id, firstVisitDate: null }, silent: true, paranoid: false, transaction,
    });
    await FollowUpTask.create({
      id: randomUUID(), orgId, contactId: contact.id, title: `Welcome ${contact.displayName} after their first visit`,
      // Due counted from the database's today (its time zone, like first_visit_date); create()'s types take no literal, Sequelize does.
      dueDate: literal(`current_date + ${WELCOME_FOLLOW_UP_DAYS}`) as unknown as string,
    }, { transaction });
  });
}

// Visitors with a count of their open tasks: a subquery, so SQL.
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

/** A task as the tools show it, named after its contact (whose name columns TASK_SELECT adds to the model). */
function taskView(task: FollowUpTask) {
  const name = (column: string) => task.get(`contact_${column}`) as string | null;
  return {
    id: task.id, contactId: task.contactId,
    contactName: displayNameOf({ first_name: name('first_name'), last_name: name('last_name'), preferred_name: name('preferred_name'), email: name('email') }),
    title: task.title, dueDate: task.dueDate, status: task.status as 'open' | 'completed', outcome: task.outcome,
    completedAt: task.completedAt ? task.completedAt.toISOString() : null,
  };
}

// Tasks of live contacts only, each with its contact's name: a join, so SQL, read into FollowUpTask models.
const TASK_SELECT = `
  SELECT t.*, c.first_name AS contact_first_name, c.last_name AS contact_last_name,
    c.preferred_name AS contact_preferred_name, c.email AS contact_email
  FROM follow_up_tasks t JOIN contacts c ON c.id = t.contact_id AND c.deleted_at IS NULL`;

function selectTasks(transaction: Transaction, where: string, bind: unknown[]): Promise<FollowUpTask[]> {
  return sequelize.query(`${TASK_SELECT} ${where}`, { bind, transaction, model: FollowUpTask, mapToModel: true });
}

export async function listFollowUpTasks(db: Queryable, orgId: string, filter: { status: 'open' | 'completed' | 'all'; contactId?: string; limit: number }) {
  const tasks = await withModels(db, (transaction) => selectTasks(transaction, `
    WHERE t.org_id = $1 AND ($2 = 'all' OR t.status = $2) AND ($3::uuid IS NULL OR t.contact_id = $3)
    ORDER BY t.due_date NULLS LAST, t.created_at LIMIT $4`, [orgId, filter.status, filter.contactId ?? null, filter.limit]));
  return tasks.map(taskView);
}

export async function completeFollowUpTask(db: Queryable, orgId: string, taskId: string, userId: string, outcome?: string) {
  return withModels(db, async (transaction) => {
    const byId = 'WHERE t.org_id = $1 AND t.id = $2';
    const [task] = await selectTasks(transaction, byId, [orgId, taskId]);
    if (!task) throw new StewardError('not_found', `Follow-up task ${taskId} was not found`, { hint: 'people_list_follow_up_tasks lists open tasks.' });
    if (task.status === 'completed') throw new StewardError('conflict', 'This follow-up task is already completed');
    // completed_at is the transaction's now(), as every other timestamp here.
    await FollowUpTask.update({ status: 'completed', outcome: outcome ?? null, completedAt: fn('now'), completedBy: userId }, {
      where: { orgId, id: taskId }, transaction,
    });
    const [completed] = await selectTasks(transaction, byId, [orgId, taskId]);
    return taskView(completed);
  });
}

/** Live contacts whose first visit fell within the range, whatever their stage is now (they may have come back since). */
export async function countFirstVisits(db: Queryable, orgId: string, from: string, to: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(db, `
    SELECT count(*)::int AS n FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL AND first_visit_date BETWEEN $2::date AND $3::date`, [orgId, from, to]);
  return rows[0]?.n ?? 0;
}
