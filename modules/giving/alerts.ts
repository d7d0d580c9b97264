import { queryOne, queryRows } from '../../db/pool';
import type { AlertRule } from '../module';
import { countOf } from '../metrics';

/**
 * The giving module's alert rules (platform_proactive_alerts): money recorded but counting
 * nowhere, statements that did not reach givers, and recurring gifts the scheduled run has not
 * kept up with. Counts only; which givers are involved the giving tools show to those who may see.
 */

/** A batch still open after this many days is probably forgotten rather than being counted. */
export const OPEN_BATCH_DAYS = 7;
/** How far back failed statement emails are reported. */
export const FAILED_STATEMENT_DAYS = 30;
/** The recurring run records each day's gifts daily; this many days behind means it has stalled. */
export const RECURRING_BEHIND_DAYS = 2;

export const batchesLeftOpenRule: AlertRule = {
  id: 'giving.batches_left_open',
  description: `Batches of gifts begun ${OPEN_BATCH_DAYS} or more days ago and still not committed, so their gifts count in no total or statement.`,
  scope: 'giving:read',
  async evaluate(ctx) {
    const row = await queryOne<{ batches: number; gifts: number }>(ctx.db, `
      SELECT count(DISTINCT b.id)::int AS batches, count(d.id)::int AS gifts
      FROM giving_batches b LEFT JOIN giving_donations d ON d.org_id = b.org_id AND d.batch_id = b.id
      WHERE b.org_id = $1 AND b.status = 'in_progress' AND b.created_at <= now() - make_interval(days => $2)`, [ctx.org.id, OPEN_BATCH_DAYS]);
    if (!row || row.batches === 0) return [];
    return [{
      severity: 'warning',
      title: `${countOf(row.batches, 'batch', 'batches')} of gifts left uncommitted`,
      reason: `${countOf(row.batches, 'batch was', 'batches were')} begun ${OPEN_BATCH_DAYS} or more days ago and not committed; ${countOf(row.gifts, 'gift', 'gifts')} in ${row.batches === 1 ? 'it' : 'them'} count in no total until committed.`,
      count: row.batches,
      actWith: { tool: 'giving_list_batches', args: { status: 'in_progress' } },
    }];
  },
};

export const statementEmailsFailedRule: AlertRule = {
  id: 'giving.statement_emails_failed',
  description: `Giving statements made in the last ${FAILED_STATEMENT_DAYS} days whose email could not be sent.`,
  scope: 'giving:read',
  async evaluate(ctx) {
    const row = await queryOne<{ n: number }>(ctx.db, `
      SELECT count(*)::int AS n FROM giving_statements
      WHERE org_id = $1 AND delivery_status = 'failed' AND created_at >= now() - make_interval(days => $2)`, [ctx.org.id, FAILED_STATEMENT_DAYS]);
    if (!row || row.n === 0) return [];
    return [{
      severity: 'warning',
      title: `${countOf(row.n, 'giving statement was', 'giving statements were')} not emailed`,
      reason: `The email of ${countOf(row.n, 'statement', 'statements')} made in the last ${FAILED_STATEMENT_DAYS} days failed, so ${row.n === 1 ? 'that giver has' : 'those givers have'} not received ${row.n === 1 ? 'it' : 'them'}.`,
      count: row.n,
      actWith: { tool: 'giving_list_statements' },
    }];
  },
};

export const recurringGiftsBehindRule: AlertRule = {
  id: 'giving.recurring_gifts_behind',
  description: `Active recurring gifts whose next gift is ${RECURRING_BEHIND_DAYS} or more days overdue for recording: the scheduled run has not kept up.`,
  scope: 'giving:read',
  async evaluate(ctx) {
    const rows = await queryRows<{ n: number; oldest: string | null }>(ctx.db, `
      SELECT count(*)::int AS n, to_char(min(next_on), 'YYYY-MM-DD') AS oldest FROM giving_recurring_gifts
      WHERE org_id = $1 AND status = 'active' AND next_on <= (now() AT TIME ZONE 'UTC')::date - $2::int`, [ctx.org.id, RECURRING_BEHIND_DAYS]);
    const row = rows[0];
    if (!row || row.n === 0 || !row.oldest) return [];
    return [{
      severity: 'urgent',
      title: `${countOf(row.n, 'recurring gift is', 'recurring gifts are')} not being recorded`,
      reason: `${countOf(row.n, 'active recurring gift has', 'active recurring gifts have')} a gift due since ${row.oldest} that has not been recorded; recurring gifts are recorded daily, so the schedule has stalled.`,
      count: row.n,
      actWith: { tool: 'giving_list_recurring_gifts' },
    }];
  },
};

export const givingAlertRules: readonly AlertRule[] = [batchesLeftOpenRule, statementEmailsFailedRule, recurringGiftsBehindRule];
