import { z } from 'zod';
import { queryRows } from '../../db/pool';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange } from '../metrics';
import { campaignPerformance } from './campaign-metrics';

/** What grow answers through platform_analytics_query. */
const formSubmissions = defineMetric({
  name: 'form_submissions',
  description: 'Form submissions over a range (default: this month so far), per form: how many, and how many created a new contact or matched an existing one.',
  scope: 'grow:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(),
    forms: z.array(z.object({ formId: z.string(), name: z.string(), submissions: z.number().int(), newContacts: z.number().int(), matchedContacts: z.number().int() }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const rows = await queryRows<{ form_id: string; name: string; submissions: number; created: number; matched: number }>(ctx.db, `SELECT s.form_id, f.name, count(*)::int AS submissions,
        count(*) FILTER (WHERE s.contact_outcome = 'created')::int AS created, count(*) FILTER (WHERE s.contact_outcome = 'matched')::int AS matched
      FROM grow_submissions s JOIN grow_forms f ON f.id = s.form_id WHERE s.org_id = $1 AND s.created_at >= $2::date AND s.created_at < $3::date + 1
      GROUP BY s.form_id, f.name ORDER BY submissions DESC, f.name`, [ctx.org.id, from, to]);
    const total = rows.reduce((sum, row) => sum + row.submissions, 0);
    return {
      data: { from, to, forms: rows.map((r) => ({ formId: r.form_id, name: r.name, submissions: r.submissions, newContacts: r.created, matchedContacts: r.matched })) },
      speakToUser: total === 0 ? `No form submissions ${spokenRange(from, to)}.` : `${countOf(total, 'form submission')} ${spokenRange(from, to)} across ${countOf(rows.length, 'form')}.`,
    };
  },
});

export const growMetrics = [formSubmissions, campaignPerformance];
