import { z } from 'zod';
import { queryRows } from '../../db/pool';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange } from '../metrics';
import { formatMinorUnits } from '../../core/money';

/** What billing answers through platform_analytics_query. */

const stewardInvoiced = defineMetric({
  name: 'steward_invoiced',
  description: 'What the organisation was invoiced for its own Steward plan over a range (default: this year so far), by invoice date: invoices, amount due and paid per currency, and how many are still open.',
  scope: 'billing:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(), invoices: z.number().int(), open: z.number().int(),
    totals: z.array(z.object({ currency: z.string(), due: z.number().int(), paid: z.number().int() }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_year'));
    const rows = await queryRows<{ currency: string; n: number; open: number; due: number; paid: number }>(ctx.db, `SELECT currency, count(*)::int AS n,
        count(*) FILTER (WHERE status = 'open')::int AS open, sum(amount_due_minor)::int AS due, sum(amount_paid_minor)::int AS paid
      FROM billing_invoices WHERE org_id = $1 AND status <> 'void' AND created_at >= $2::date AND created_at < $3::date + 1 GROUP BY currency ORDER BY currency`, [ctx.org.id, from, to]);
    const invoices = rows.reduce((sum, row) => sum + row.n, 0);
    const open = rows.reduce((sum, row) => sum + row.open, 0);
    const totals = rows.map((row) => ({ currency: row.currency, due: row.due, paid: row.paid }));
    const paid = totals.map((row) => formatMinorUnits(row.paid, row.currency)).join(' and ');
    return {
      data: { from, to, invoices, open, totals },
      speakToUser: invoices === 0 ? `No Steward invoices ${spokenRange(from, to)}.` : `${countOf(invoices, 'Steward invoice')} ${spokenRange(from, to)}, ${paid} paid${open ? `; ${open} still open` : ''}.`,
    };
  },
});

export const billingMetrics = [stewardInvoiced];
