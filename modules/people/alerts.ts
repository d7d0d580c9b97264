import { hasScope } from '../../core/principal';
import { SAFEGUARDING_SCOPE } from '../../core/scopes';
import { queryOne } from '../../db/pool';
import type { AlertRule } from '../module';
import { countOf } from '../metrics';
import { listWelfareDueContacts } from './automations';
import { visibleNoteSql } from './notes';
import { getPastoralSettings } from './pastoral/care/settings';

/**
 * The people module's alert rules (platform_proactive_alerts). Both read pastoral records, so
 * both count exactly what the caller's own lists would show: restricted notes (private, amber,
 * red) only for a caller holding people:safeguarding. An alert can then never reveal, by a count
 * or a date, a record its reader may not see.
 */

/** Counting stops here: the alert says "more than" instead of walking every contact. */
const WELFARE_COUNT_CAP = 1000;

export const welfareDueRule: AlertRule = {
  id: 'people.welfare_due',
  description: 'People with no pastoral contact (note, visit or pastoral message) for the welfare interval of the pastoral settings (180 days unless changed).',
  scope: 'people:read',
  async evaluate(ctx) {
    const days = (await getPastoralSettings(ctx.db, ctx.org.id)).welfareIntervalDays;
    const due = await listWelfareDueContacts(ctx.db, ctx.org.id, { days, limit: WELFARE_COUNT_CAP + 1, canSeeRestricted: hasScope(ctx.principal, SAFEGUARDING_SCOPE) });
    if (due.length === 0) return [];
    const many = due.length > WELFARE_COUNT_CAP;
    const count = many ? WELFARE_COUNT_CAP : due.length;
    const who = many ? `More than ${WELFARE_COUNT_CAP.toLocaleString('en-GB')} people have` : `${countOf(count, 'person has', 'people have')}`;
    return [{
      severity: 'warning',
      title: `${many ? `More than ${WELFARE_COUNT_CAP.toLocaleString('en-GB')}` : count} ${count === 1 && !many ? 'person is' : 'people are'} due a welfare check`,
      reason: `${who} had no pastoral contact for at least ${days} days (the welfare interval); the longest gap is ${due[0].daysSinceContact} days.`,
      count,
      actWith: { tool: 'people_list_welfare_due_contacts', args: { days } },
    }];
  },
};

/** Follow-ups this many days late are urgent rather than a warning. */
const FOLLOW_UP_URGENT_DAYS = 14;

export const overdueFollowUpsRule: AlertRule = {
  id: 'people.follow_ups_overdue',
  description: `Open note follow-ups whose date has passed (urgent when one is ${FOLLOW_UP_URGENT_DAYS} or more days late).`,
  scope: 'people:read',
  async evaluate(ctx) {
    const row = await queryOne<{ n: number; oldest: string | null }>(ctx.db, `
      SELECT count(*)::int AS n, to_char(min(n.follow_up_date), 'YYYY-MM-DD') AS oldest
      FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.org_id = n.org_id AND c.deleted_at IS NULL
      WHERE n.org_id = $1 AND n.follow_up_date IS NOT NULL AND NOT n.follow_up_completed AND n.follow_up_date < (now() AT TIME ZONE 'UTC')::date
        AND ${visibleNoteSql('n', hasScope(ctx.principal, SAFEGUARDING_SCOPE))}`, [ctx.org.id]);
    if (!row || row.n === 0 || !row.oldest) return [];
    const daysLate = Math.floor((Date.now() - Date.parse(`${row.oldest}T00:00:00Z`)) / 86_400_000);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    return [{
      severity: daysLate >= FOLLOW_UP_URGENT_DAYS ? 'urgent' : 'warning',
      title: `${countOf(row.n, 'pastoral follow-up is', 'pastoral follow-ups are')} overdue`,
      reason: `${countOf(row.n, 'note has', 'notes have')} a follow-up date that has passed without the follow-up being marked done; the oldest was due ${daysLate} days ago.`,
      count: row.n,
      actWith: { tool: 'people_list_pastoral_note_followups', args: { status: 'open', dueBefore: yesterday } },
    }];
  },
};

export const peopleAlertRules: readonly AlertRule[] = [welfareDueRule, overdueFollowUpsRule];
