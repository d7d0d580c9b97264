import { z } from 'zod';
import { queryOne, type Queryable } from '../../../../db/pool';
import { sequelize, withModels } from '../../../../db/sequelize';
import { listWelfareDueContacts } from '../../automations';
import { displayNameOf } from '../../contacts';
import { Note as NoteModel } from '../../models';
import { visibleNoteSql } from '../../notes';
import { noteSchema } from '../../schemas';
import { visibleRecordSql } from '../privacy';
import { tableExists } from './care-status';
import { countActiveCrisisHolds } from './crisis';
import { countChecksByStatus } from './safeguarding';
import { getPastoralSettings } from './settings';

/** The most welfare-due people the dashboard counts exactly; past it the count says "at least". */
const WELFARE_COUNT_CAP = 5000;

const count = z.number().int();

export const pastoralDashboardSchema = z.object({
  welfareDue: count.describe('People with no pastoral contact for the welfare interval'),
  welfareDueCapped: z.boolean().describe('true when there are at least this many (the count stops there)'),
  welfareIntervalDays: count,
  openNoteFollowUps: count,
  overdueNoteFollowUps: count.describe('Open follow-ups whose date has passed'),
  pendingOutreach: count.describe('Messages waiting for approval'),
  approvedUnsentOutreach: count.describe('Approved messages not sent (refused or waiting to retry)'),
  crisisHolds: count.describe('People on a crisis hold'),
  safeguarding: z.object({ expiringChecks: count, overdueChecks: count, pendingChecks: count }).strict().nullable()
    .describe('Only with people:safeguarding'),
  lifeEvents: z.object({ openSupport: count.describe('Support life events not yet resolved'), griefTouchpointsDue: count.describe('Grief touchpoints due today or earlier, not done') }).strict().nullable()
    .describe('null when life events are not available here'),
  prayerAndVisits: z.object({ activePrayerRequests: count, visitsLast30Days: count }).strict().nullable()
    .describe('null when prayer requests and visits are not available here'),
}).strict();

export async function pastoralDashboard(db: Queryable, orgId: string, canSeeRestricted: boolean): Promise<z.infer<typeof pastoralDashboardSchema>> {
  const { welfareIntervalDays } = await getPastoralSettings(db, orgId);
  const due = await listWelfareDueContacts(db, orgId, { days: welfareIntervalDays, limit: WELFARE_COUNT_CAP, canSeeRestricted });
  const counts = await queryOne<{ open_follow_ups: number; overdue_follow_ups: number; pending: number; approved: number }>(db, `SELECT
      count(*) FILTER (WHERE n.id IS NOT NULL)::int AS open_follow_ups,
      count(*) FILTER (WHERE n.follow_up_date < CURRENT_DATE)::int AS overdue_follow_ups,
      (SELECT count(*)::int FROM outreach_items o WHERE o.org_id = $1 AND o.status = 'pending_review') AS pending,
      (SELECT count(*)::int FROM outreach_items o WHERE o.org_id = $1 AND o.status = 'approved') AS approved
    FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.org_id = n.org_id AND c.deleted_at IS NULL
    WHERE n.org_id = $1 AND n.follow_up_date IS NOT NULL AND NOT n.follow_up_completed AND ${visibleNoteSql('n', canSeeRestricted)}`, [orgId]);
  const checks = canSeeRestricted ? await countChecksByStatus(db, orgId) : null;
  return {
    welfareDue: due.length, welfareDueCapped: due.length >= WELFARE_COUNT_CAP, welfareIntervalDays,
    openNoteFollowUps: counts!.open_follow_ups, overdueNoteFollowUps: counts!.overdue_follow_ups,
    pendingOutreach: counts!.pending, approvedUnsentOutreach: counts!.approved,
    crisisHolds: await countActiveCrisisHolds(db, orgId),
    safeguarding: checks && { expiringChecks: checks.expiring, overdueChecks: checks.overdue, pendingChecks: checks.pending },
    lifeEvents: await lifeEventCounts(db, orgId, canSeeRestricted),
    prayerAndVisits: await prayerAndVisitCounts(db, orgId, canSeeRestricted),
  };
}

async function lifeEventCounts(db: Queryable, orgId: string, canSeeRestricted: boolean) {
  if (!(await tableExists(db, 'pastoral_life_events')) || !(await tableExists(db, 'pastoral_grief_touchpoints'))) return null;
  const row = await queryOne<{ open_support: number; touchpoints_due: number }>(db, `SELECT
      (SELECT count(*)::int FROM pastoral_life_events e JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
        WHERE e.org_id = $1 AND e.intent = 'support' AND e.status <> 'resolved' AND ${visibleRecordSql('e', canSeeRestricted)}) AS open_support,
      (SELECT count(*)::int FROM pastoral_grief_touchpoints t JOIN pastoral_life_events e ON e.id = t.life_event_id AND e.org_id = t.org_id
        JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
        WHERE t.org_id = $1 AND t.status IN ('pending', 'due') AND t.due_on <= CURRENT_DATE AND ${visibleRecordSql('e', canSeeRestricted)}) AS touchpoints_due`, [orgId]);
  return { openSupport: row!.open_support, griefTouchpointsDue: row!.touchpoints_due };
}

async function prayerAndVisitCounts(db: Queryable, orgId: string, canSeeRestricted: boolean) {
  if (!(await tableExists(db, 'prayer_requests')) || !(await tableExists(db, 'pastoral_visits'))) return null;
  const row = await queryOne<{ prayer: number; visits: number }>(db, `SELECT
      (SELECT count(*)::int FROM prayer_requests p JOIN contacts c ON c.id = p.contact_id AND c.org_id = p.org_id AND c.deleted_at IS NULL
        WHERE p.org_id = $1 AND p.status = 'active' AND ${visibleRecordSql('p', canSeeRestricted)}) AS prayer,
      (SELECT count(*)::int FROM pastoral_visits v JOIN contacts c ON c.id = v.contact_id AND c.org_id = v.org_id AND c.deleted_at IS NULL
        WHERE v.org_id = $1 AND v.visit_date >= CURRENT_DATE - 30 AND ${visibleRecordSql('v', canSeeRestricted)}) AS visits`, [orgId]);
  return { activePrayerRequests: row!.prayer, visitsLast30Days: row!.visits };
}

export const pastoralNoteListSchema = noteSchema.extend({ contactName: z.string() }).strict();

/** Notes across contacts, newest first, under the note visibility rule (visibleNoteSql). */
export async function listPastoralNotes(
  db: Queryable, orgId: string, canSeeRestricted: boolean,
  filter: { contactId?: string; authorUserId?: string; since?: string; followUp?: 'open' | 'any'; limit: number },
) {
  const notes = await withModels(db, (transaction) => sequelize.query(`
    SELECT n.*, c.first_name AS contact_first_name, c.last_name AS contact_last_name, c.preferred_name AS contact_preferred_name, c.email AS contact_email
    FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.org_id = n.org_id AND c.deleted_at IS NULL
    WHERE n.org_id = $1 AND ${visibleNoteSql('n', canSeeRestricted)}
      AND ($2::uuid IS NULL OR n.contact_id = $2) AND ($3::uuid IS NULL OR n.author_user_id = $3) AND ($4::date IS NULL OR n.created_at >= $4::date)
      AND ($5 = 'any' OR (n.follow_up_date IS NOT NULL AND NOT n.follow_up_completed))
    ORDER BY n.created_at DESC, n.id DESC LIMIT $6`,
  { bind: [orgId, filter.contactId ?? null, filter.authorUserId ?? null, filter.since ?? null, filter.followUp ?? 'any', filter.limit], transaction, model: NoteModel, mapToModel: true }));
  return notes.map((note) => {
    const name = (column: string) => note.get(`contact_${column}`) as string | null;
    return {
      id: note.id, contactId: note.contactId, content: note.content, privacy: note.privacy as 'public' | 'team' | 'private',
      confidentialityLevel: note.confidentialityLevel as 'green' | 'amber' | 'red', followUpDate: note.followUpDate, followUpCompleted: note.followUpCompleted,
      authorUserId: note.authorUserId, createdAt: note.createdAt.toISOString(), updatedAt: note.updatedAt.toISOString(),
      contactName: displayNameOf({ first_name: name('first_name'), last_name: name('last_name'), preferred_name: name('preferred_name'), email: name('email') }),
    };
  });
}
