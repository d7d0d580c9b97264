import { queryRows } from '../../../db/pool';
import type { Alert, AlertRule } from '../../module';
import { countOf } from '../../metrics';
import { usageSummary } from '../../../kernel/billing';

/**
 * The platform's own alert rules: allowances running out, and messages the outbox could not
 * deliver. Each says the figures it used, so a person can check the reason against the data.
 */

/** From this share of an allowance used, the organisation is told before it runs out. */
export const ALLOWANCE_WARNING_SHARE = 0.8;
/** How far back failed sends are reported. */
export const FAILED_SEND_DAYS = 7;

const FEATURE_WORDS: Readonly<Record<string, [string, string]>> = {
  email_sends: ['email send', 'email sends'], messaging_credits: ['messaging credit', 'messaging credits'], contacts: ['contact', 'contacts'],
  runsheet_access_seats: ['runsheet access seat', 'runsheet access seats'], donations: ['donation', 'donations'], tickets: ['ticket', 'tickets'],
  check_ins: ['check-in', 'check-ins'], rooms: ['room', 'rooms'], streams: ['stream', 'streams'], media_items: ['media item', 'media items'],
  mediahub_items: ['Media Hub item', 'Media Hub items'], mediahub_storage_mb: ['MiB of Media Hub storage', 'MiB of Media Hub storage'],
};

export const allowanceNearLimitRule: AlertRule = {
  id: 'platform.allowance_near_limit',
  description: `A metered feature has used ${ALLOWANCE_WARNING_SHARE * 100}% or more of the plan's allowance (warning), or all of it (urgent).`,
  scope: 'platform:read',
  async evaluate(ctx) {
    const alerts: Alert[] = [];
    for (const usage of await usageSummary(ctx.db, ctx.org.id)) {
      if (usage.limit === null || usage.limit <= 0 || usage.used < usage.limit * ALLOWANCE_WARNING_SHARE) continue;
      const [singular, plural] = FEATURE_WORDS[usage.feature] ?? [usage.feature, usage.feature];
      const share = Math.floor((usage.used / usage.limit) * 100);
      const when = usage.period === 'month' ? ' this month' : '';
      const full = usage.used >= usage.limit;
      alerts.push({
        severity: full ? 'urgent' : 'warning',
        title: full ? `The ${plural} allowance is used up` : `The ${plural} allowance is ${share}% used`,
        reason: `${countOf(usage.used, singular, plural)} used${when} of the ${usage.limit.toLocaleString('en-GB')} the ${ctx.org.planCode} plan allows (${share}%)${full ? '; more are refused until the allowance renews or the plan changes' : ''}.`,
        count: usage.used,
        actWith: { tool: 'platform_usage' },
      });
    }
    return alerts;
  },
};

/** Where a failed message of each source is looked after; a source not named here is shown in the overview. */
const FAILED_SEND_TOOLS: Readonly<Record<string, string>> = {
  'people.outreach': 'people_list_pending_outreach',
  'platform.team_invite': 'platform_list_pending_team_invites',
  'giving.statement': 'giving_list_statements',
};

const SOURCE_WORDS: Readonly<Record<string, [string, string]>> = {
  'people.outreach': ['pastoral message', 'pastoral messages'], 'platform.team_invite': ['team invitation', 'team invitations'],
  'giving.statement': ['giving statement', 'giving statements'],
};

export const failedSendsRule: AlertRule = {
  id: 'platform.failed_sends',
  description: `Messages the outbox could not deliver in the last ${FAILED_SEND_DAYS} days (failed), or stopped because an earlier attempt may have arrived (needs review), by kind of message.`,
  scope: 'platform:read',
  async evaluate(ctx) {
    // Counts only: who the messages were for and what they said stay with the module that sent them.
    const rows = await queryRows<{ source_kind: string; failed: number; needs_review: number }>(ctx.db, `
      SELECT source_kind, count(*) FILTER (WHERE status = 'failed')::int AS failed, count(*) FILTER (WHERE status = 'needs_review')::int AS needs_review
      FROM outbox_messages
      WHERE org_id = $1 AND status IN ('failed', 'needs_review') AND COALESCE(claimed_at, created_at) >= now() - make_interval(days => $2)
      GROUP BY source_kind ORDER BY source_kind`, [ctx.org.id, FAILED_SEND_DAYS]);
    return rows.map((row): Alert => {
      const [singular, plural] = SOURCE_WORDS[row.source_kind] ?? [`message (${row.source_kind})`, `messages (${row.source_kind})`];
      const total = row.failed + row.needs_review;
      const parts = [
        row.failed ? `${countOf(row.failed, 'message')} failed` : null,
        row.needs_review ? `${countOf(row.needs_review, 'message')} stopped for review because an earlier attempt may already have arrived` : null,
      ].filter(Boolean);
      return {
        severity: row.failed ? 'urgent' : 'warning',
        title: `${countOf(total, `${singular} was`, `${plural} were`)} not delivered`,
        reason: `In the last ${FAILED_SEND_DAYS} days, ${parts.join(' and ')}.`,
        count: total,
        actWith: { tool: FAILED_SEND_TOOLS[row.source_kind] ?? 'platform_overview' },
      };
    });
  },
};

export const platformAlertRules: readonly AlertRule[] = [allowanceNearLimitRule, failedSendsRule];
