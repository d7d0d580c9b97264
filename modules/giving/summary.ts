import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { hasScope } from '../../core/principal';
import { queryRows, type Queryable } from '../../db/pool';
import type { OverviewContribution } from '../module';
import { displayNameOf } from '../people/api';
import type { OrgSettings } from '../tool';
import { todayUtc } from '../metrics';
import { minorUnits } from './money';
import { givingSettingsOf } from './settings';

/**
 * Totals of what was given. Every figure counts committed gifts only (an uncommitted batch is a
 * staging area), by the date each gift was received, net of refunds: each designation's amount
 * less what was refunded from it, with adjusting entries counted where they fall.
 */

/** Net given per designation row: `n` is the amount after refunds, `d` its donation, `g` the designation. */
const NET_DESIGNATIONS = `
  SELECT d.id AS donation_id, d.contact_id, d.received_on, g.fund_id,
    g.amount - COALESCE((SELECT sum(r.amount) FROM giving_refunds r WHERE r.donation_id = d.id AND r.fund_id = g.fund_id), 0) AS n
  FROM giving_designations g
  JOIN giving_donations d ON d.id = g.donation_id
  JOIN giving_batches b ON b.id = d.batch_id AND b.status = 'committed'
  WHERE g.org_id = $1`;

export const PERIODS = ['day', 'week', 'month', 'quarter', 'year'] as const;

export const summarySchema = z.object({
  currency: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  period: z.enum(PERIODS),
  total: z.number().int().describe('Minor units given in the range, net of refunds'),
  donationCount: z.number().int(),
  byFund: z.array(z.object({
    fundId: z.uuid(), fundName: z.string(), total: z.number().int(), donationCount: z.number().int(),
    lastYearTotal: z.number().int().describe('What the fund received over the same dates a year earlier, net of refunds'),
  }).strict()),
  byPeriod: z.array(z.object({
    periodStart: z.string(), total: z.number().int(), donationCount: z.number().int(),
    lastYearTotal: z.number().int().describe('What was given in the same period a year earlier (its gifts moved on a year), net of refunds'),
  }).strict()).describe('Each period with giving this year or the year before, in order'),
  thisMonth: z.object({
    from: z.string(), to: z.string(), total: z.number().int(),
    sameMonthLastYear: z.number().int().describe('The same days of the same month a year earlier'),
    change: z.number().int().describe('total − sameMonthLastYear, in minor units'),
  }).strict(),
}).strict();
export type GivingSummary = z.infer<typeof summarySchema>;

function shiftYear(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number);
  // 29 February falls back to the 28th in a year without one.
  const last = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  return `${String(y + years).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

async function totalBetween(db: Queryable, orgId: string, from: string, to: string, fundId?: string): Promise<{ total: number; count: number }> {
  const [row] = await queryRows<{ total: string; n: number }>(db, `SELECT COALESCE(sum(n), 0)::text AS total, count(DISTINCT donation_id)::int AS n
    FROM (${NET_DESIGNATIONS}) x WHERE received_on BETWEEN $2::date AND $3::date AND ($4::uuid IS NULL OR fund_id = $4::uuid)`, [orgId, from, to, fundId ?? null]);
  return { total: minorUnits(row.total), count: row.n };
}

/** This month so far against the same days of the same month last year. */
export async function thisMonthVersusLastYear(db: Queryable, orgId: string, fundId?: string): Promise<GivingSummary['thisMonth']> {
  const to = todayUtc();
  const from = `${to.slice(0, 8)}01`;
  const now = await totalBetween(db, orgId, from, to, fundId);
  const before = await totalBetween(db, orgId, shiftYear(from, -1), shiftYear(to, -1), fundId);
  return { from, to, total: now.total, sameMonthLastYear: before.total, change: now.total - before.total };
}

export async function givingSummary(
  db: Queryable, org: OrgSettings, input: { from?: string; to?: string; period: (typeof PERIODS)[number]; fundId?: string },
): Promise<GivingSummary> {
  const to = input.to ?? todayUtc();
  const from = input.from ?? `${to.slice(0, 4)}-01-01`;
  if (from > to) throw new StewardError('validation_failed', 'to: must not be before from', { issues: [{ path: 'to', message: 'before from' }] });
  const values = [org.id, from, to, input.fundId ?? null];
  const inRange = 'received_on BETWEEN $2::date AND $3::date AND ($4::uuid IS NULL OR fund_id = $4::uuid)';
  const byFund = await queryRows<{ fund_id: string; name: string; total: string; n: number }>(db, `SELECT x.fund_id, f.name, sum(x.n)::text AS total,
      count(DISTINCT x.donation_id)::int AS n
    FROM (${NET_DESIGNATIONS}) x JOIN giving_funds f ON f.id = x.fund_id WHERE ${inRange} GROUP BY x.fund_id, f.name ORDER BY sum(x.n) DESC, f.name`, values);
  const byPeriod = await queryRows<{ start: string; total: string; n: number }>(db, `SELECT to_char(date_trunc('${input.period}', received_on), 'YYYY-MM-DD') AS start,
      sum(n)::text AS total, count(DISTINCT donation_id)::int AS n
    FROM (${NET_DESIGNATIONS}) x WHERE ${inRange} GROUP BY 1 ORDER BY 1`, values);
  // The same dates a year earlier, each gift moved on a year so it falls in the period it sits beside.
  const lastYearValues = [org.id, shiftYear(from, -1), shiftYear(to, -1), input.fundId ?? null];
  const lastYearByFund = new Map((await queryRows<{ fund_id: string; total: string }>(db, `SELECT fund_id, sum(n)::text AS total
    FROM (${NET_DESIGNATIONS}) x WHERE ${inRange} GROUP BY fund_id`, lastYearValues)).map((row) => [row.fund_id, minorUnits(row.total)]));
  const lastYearByPeriod = new Map((await queryRows<{ start: string; total: string }>(db, `SELECT to_char(date_trunc('${input.period}', (received_on + interval '1 year')::date), 'YYYY-MM-DD') AS start,
      sum(n)::text AS total
    FROM (${NET_DESIGNATIONS}) x WHERE ${inRange} GROUP BY 1`, lastYearValues)).map((row) => [row.start, minorUnits(row.total)]));
  const periods = new Map(byPeriod.map((row) => [row.start, { periodStart: row.start, total: minorUnits(row.total), donationCount: row.n, lastYearTotal: 0 }]));
  for (const [start, total] of lastYearByPeriod) {
    const row = periods.get(start) ?? { periodStart: start, total: 0, donationCount: 0, lastYearTotal: 0 };
    row.lastYearTotal += total;
    periods.set(start, row);
  }
  const overall = await totalBetween(db, org.id, from, to, input.fundId);
  return {
    currency: (await givingSettingsOf(db, org)).currency, from, to, period: input.period, total: overall.total, donationCount: overall.count,
    byFund: byFund.map((row) => ({ fundId: row.fund_id, fundName: row.name, total: minorUnits(row.total), donationCount: row.n, lastYearTotal: lastYearByFund.get(row.fund_id) ?? 0 })),
    byPeriod: [...periods.values()].sort((a, b) => a.periodStart.localeCompare(b.periodStart)),
    thisMonth: await thisMonthVersusLastYear(db, org.id, input.fundId),
  };
}

export const TOP_GIVER_PURPOSES = ['thank_you_letters', 'pastoral_stewardship_review'] as const;

export const topGiverSchema = z.object({
  contactId: z.uuid(),
  displayName: z.string(),
  total: z.number().int(),
  giftCount: z.number().int(),
  firstGiftOn: z.string(),
  lastGiftOn: z.string(),
}).strict();

/**
 * The most generous givers over a whole period (at least three months, so a single large gift
 * does not single anyone out), for thank-you letters or a stewardship review. Anonymous gifts and
 * erased givers are never listed; amounts are net of refunds.
 */
export async function topGivers(db: Queryable, orgId: string, input: { months: number; endingOn?: string; limit: number }) {
  const to = input.endingOn ?? todayUtc();
  if (to > todayUtc()) throw new StewardError('validation_failed', 'endingOn: cannot be in the future', { issues: [{ path: 'endingOn', message: 'in the future' }] });
  const [y, m, d] = to.split('-').map(Number);
  const start = new Date(Date.UTC(y, m - 1 - input.months, d + 1));
  const from = start.toISOString().slice(0, 10);
  return { from, to, givers: await topGiversBetween(db, orgId, from, to, input.limit) };
}

/** The top givers between two dates; callers keep the range long enough that no single gift singles anyone out. */
export async function topGiversBetween(db: Queryable, orgId: string, from: string, to: string, limit: number): Promise<Array<z.infer<typeof topGiverSchema>>> {
  const rows = await queryRows<{ contact_id: string; total: string; n: number; first: string; last: string; preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }>(db, `
    SELECT x.contact_id, sum(x.n)::text AS total, count(DISTINCT x.donation_id)::int AS n, min(x.received_on)::text AS first, max(x.received_on)::text AS last,
      c.preferred_name, c.first_name, c.last_name, c.email
    FROM (${NET_DESIGNATIONS}) x JOIN people_directory c ON c.id = x.contact_id
    WHERE x.received_on BETWEEN $2::date AND $3::date
    GROUP BY x.contact_id, c.preferred_name, c.first_name, c.last_name, c.email
    HAVING sum(x.n) > 0
    ORDER BY sum(x.n) DESC, x.contact_id LIMIT $4`, [orgId, from, to, limit]);
  return rows.map((row) => ({
    contactId: row.contact_id, displayName: displayNameOf(row), total: minorUnits(row.total), giftCount: row.n, firstGiftOn: row.first, lastGiftOn: row.last,
  }));
}

/** What giving adds to platform_overview: this month's giving, only for callers who may see giving. */
export const givingOverview: OverviewContribution = {
  shape: {
    givingThisMonth: z.object({
      currency: z.string().nullable(),
      total: z.number().int(),
      sameMonthLastYear: z.number().int(),
    }).strict().nullable().describe('Committed giving this month so far, net of refunds, in minor units; null without giving:read'),
  },
  async compute(ctx) {
    if (!hasScope(ctx.principal, 'giving:read')) return { givingThisMonth: null };
    const month = await thisMonthVersusLastYear(ctx.db, ctx.org.id);
    return { givingThisMonth: { currency: (await givingSettingsOf(ctx.db, ctx.org)).currency, total: month.total, sameMonthLastYear: month.sameMonthLastYear } };
  },
};
