import { z } from 'zod';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange, type AnyMetric } from '../metrics';
import type { AlertRule } from '../module';

/** Open places (needed minus scheduled, declines not counted) over the upcoming plans within `days`. */
export async function openPlaces(db: Queryable, orgId: string, days: number): Promise<{ plans: number; needed: number; open: number }> {
  const row = await queryOne<{ plans: number; needed: number; open: number }>(db, `SELECT count(DISTINCT p.id)::int AS plans, COALESCE(sum(n.quantity), 0)::int AS needed,
      COALESCE(sum(GREATEST(0, n.quantity - (SELECT count(*) FROM runsheet_plan_people pp WHERE pp.org_id = n.org_id AND pp.plan_id = n.plan_id
        AND pp.position_id = n.position_id AND pp.plan_time_id IS NOT DISTINCT FROM n.plan_time_id AND pp.status <> 'declined'))), 0)::int AS open
    FROM runsheet_plans p LEFT JOIN runsheet_needed_positions n ON n.plan_id = p.id AND n.org_id = p.org_id
    WHERE p.org_id = $1 AND p.ends_at > now() AND p.starts_at < now() + make_interval(days => $2::int)`, [orgId, days]);
  return row ?? { plans: 0, needed: 0, open: 0 };
}

const rotaFill = defineMetric({
  name: 'rota_fill',
  description: 'How full the rota is for the plans of the next 30 days: places needed, places open, and how many of the scheduled have accepted.',
  scope: 'runsheet:read',
  params: [],
  output: z.object({ plans: z.number().int(), needed: z.number().int(), open: z.number().int(), scheduled: z.number().int(), accepted: z.number().int() }).strict(),
  compute: async (ctx) => {
    const places = await openPlaces(ctx.db, ctx.org.id, 30);
    const answers = await queryOne<{ scheduled: number; accepted: number }>(ctx.db, `SELECT count(*)::int AS scheduled, count(*) FILTER (WHERE pp.status = 'accepted')::int AS accepted
      FROM runsheet_plan_people pp JOIN runsheet_plans p ON p.id = pp.plan_id AND p.org_id = pp.org_id
      WHERE pp.org_id = $1 AND pp.status <> 'declined' AND p.ends_at > now() AND p.starts_at < now() + interval '30 days'`, [ctx.org.id]);
    const data = { ...places, scheduled: answers?.scheduled ?? 0, accepted: answers?.accepted ?? 0 };
    const speakToUser = data.plans === 0
      ? 'No service plans in the next 30 days.'
      : `${countOf(data.plans, 'plan')} in the next 30 days need ${countOf(data.needed, 'place')}; ${data.open} still open, and ${data.accepted} of ${data.scheduled} scheduled have accepted.`;
    return { data, speakToUser };
  },
});

const declines = defineMetric({
  name: 'rota_declines',
  description: 'Declines over a range of plan dates (default: this month), and how the substitute searches they started ended: filled, unfilled, still searching.',
  scope: 'runsheet:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(), declines: z.number().int(),
    searches: z.object({ filled: z.number().int(), unfilled: z.number().int(), searching: z.number().int(), cancelled: z.number().int() }).strict(),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const declined = await queryOne<{ n: number }>(ctx.db, `SELECT count(*)::int AS n FROM runsheet_plan_people pp JOIN runsheet_plans p ON p.id = pp.plan_id AND p.org_id = pp.org_id
      WHERE pp.org_id = $1 AND pp.status = 'declined' AND p.plan_date BETWEEN $2::date AND $3::date`, [ctx.org.id, from, to]);
    const rows = await queryRows<{ status: 'filled' | 'unfilled' | 'searching' | 'cancelled'; n: number }>(ctx.db, `SELECT s.status, count(*)::int AS n FROM runsheet_substitutions s
      JOIN runsheet_plans p ON p.id = s.plan_id AND p.org_id = s.org_id WHERE s.org_id = $1 AND p.plan_date BETWEEN $2::date AND $3::date GROUP BY s.status`, [ctx.org.id, from, to]);
    const searches = { filled: 0, unfilled: 0, searching: 0, cancelled: 0 };
    for (const row of rows) searches[row.status] = row.n;
    const speakToUser = `${countOf(declined?.n ?? 0, 'decline')} ${spokenRange(from, to)}; substitutes filled ${searches.filled} place(s) by themselves, ${searches.unfilled} went back to the scheduler.`;
    return { data: { from, to, declines: declined?.n ?? 0, searches }, speakToUser };
  },
});

export const runsheetMetrics: AnyMetric[] = [rotaFill, declines];

/** Plans in the next 7 days with needed places nobody fills: a warning, acted on with the readiness check of the soonest. */
export const openPlacesRule: AlertRule = {
  id: 'runsheet.open_places',
  description: 'Service plans in the next 7 days with needed rota places nobody fills (declines not counted as filled): a warning per organisation, naming the soonest plan.',
  scope: 'runsheet:read',
  async evaluate(ctx) {
    const plans = await queryRows<{ id: string; plan_date: string; title: string | null; open: number }>(ctx.db, `SELECT p.id, p.plan_date::text AS plan_date, p.title,
        sum(GREATEST(0, n.quantity - (SELECT count(*) FROM runsheet_plan_people pp WHERE pp.org_id = n.org_id AND pp.plan_id = n.plan_id
          AND pp.position_id = n.position_id AND pp.plan_time_id IS NOT DISTINCT FROM n.plan_time_id AND pp.status <> 'declined')))::int AS open
      FROM runsheet_plans p JOIN runsheet_needed_positions n ON n.plan_id = p.id AND n.org_id = p.org_id
      WHERE p.org_id = $1 AND p.starts_at > now() AND p.starts_at < now() + interval '7 days'
      GROUP BY p.id ORDER BY min(p.starts_at), p.id`, [ctx.org.id]);
    const short = plans.filter((plan) => plan.open > 0);
    if (short.length === 0) return [];
    const places = short.reduce((sum, plan) => sum + plan.open, 0);
    const first = short[0];
    return [{
      severity: 'warning',
      title: `${countOf(places, 'rota place')} open in the next 7 days`,
      reason: `${countOf(short.length, 'service plan')} in the next 7 days ${short.length === 1 ? 'has' : 'have'} needed places nobody fills; the soonest is ${first.title ?? 'the plan'} on ${first.plan_date} with ${first.open} open.`,
      count: places,
      actWith: { tool: 'runsheet_check_readiness', args: { planId: first.id } },
    }];
  },
};
