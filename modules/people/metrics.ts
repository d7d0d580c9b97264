import { z } from 'zod';
import { addDays, countOf, defineMetric, periodRange, rangeOr, spokenRange, todayUtc, type AnyMetric } from '../metrics';
import { countContacts, countByMembershipStatus } from './contacts';
import { countUnsubscribes } from './contact-reports';
import { CONTACT_STATUSES, MEMBERSHIP_STATUSES } from './schemas';
import { countFirstVisits } from './welcome-desk';

// What people answers through platform_analytics_query: standing contact counts, and dated counts of changes.

/** Every known key with a count, zero when none: a caller reads absent and none alike. */
function withZeros(keys: readonly string[], counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries([...new Set([...keys, ...Object.keys(counts)])].map((key) => [key, counts[key] ?? 0]));
}

/** "3 members, 1 regular attender": the non-zero parts, largest first, with readable labels. */
function spokenBreakdown(counts: Record<string, number>, label: (key: string, n: number) => string): string {
  const parts = Object.entries(counts).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  return parts.map(([key, n]) => label(key, n)).join(', ');
}

const MEMBERSHIP_LABELS: Record<string, [string, string]> = {
  first_time_visitor: ['first-time visitor', 'first-time visitors'],
  returning_visitor: ['returning visitor', 'returning visitors'],
  regular_attender: ['regular attender', 'regular attenders'],
  member: ['member', 'members'],
  inactive: ['inactive contact', 'inactive contacts'],
  unknown: ['with no stage set', 'with no stage set'],
};

const totalContacts = defineMetric({
  name: 'total_contacts',
  description: 'How many live contacts the organisation holds now.',
  scope: 'people:read',
  params: [],
  output: z.object({ total: z.number().int() }).strict(),
  compute: async (ctx) => {
    const { total } = await countContacts(ctx.db, ctx.org.id);
    return { data: { total }, speakToUser: `You have ${countOf(total, 'contact')}.` };
  },
});

const byMembershipStatus = defineMetric({
  name: 'contacts_by_membership_status',
  description: 'Live contacts by Welcome Desk stage (first-time visitor to member); unknown counts contacts with no stage.',
  scope: 'people:read',
  params: [],
  output: z.object({ total: z.number().int(), byMembershipStatus: z.record(z.string(), z.number().int()) }).strict(),
  compute: async (ctx) => {
    const counts = withZeros([...MEMBERSHIP_STATUSES, 'unknown'], await countByMembershipStatus(ctx.db, ctx.org.id));
    const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
    const parts = spokenBreakdown(counts, (key, n) => countOf(n, ...(MEMBERSHIP_LABELS[key] ?? [key, key])));
    return { data: { total, byMembershipStatus: counts }, speakToUser: total ? `Of ${countOf(total, 'contact')}: ${parts}.` : 'You have no contacts yet.' };
  },
  chart: (data) => {
    const stages = Object.entries(data.byMembershipStatus);
    const label = (key: string) => (MEMBERSHIP_LABELS[key]?.[1] ?? key).replace(/^./, (c) => c.toUpperCase());
    return {
      name: 'membership-stages', title: 'Contacts by Welcome Desk stage',
      summary: `Contacts by stage: ${stages.map(([key, n]) => `${label(key)} ${n}`).join('; ')}`,
      labels: stages.map(([key]) => label(key)),
      series: [{ label: 'Contacts', values: stages.map(([, n]) => n) }],
      unit: { kind: 'count' },
    };
  },
});

const byStatus = defineMetric({
  name: 'contacts_by_status',
  description: 'Live contacts by email consent status (subscribed, unsubscribed, non_subscribed, bounced).',
  scope: 'people:read',
  params: [],
  output: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }).strict(),
  compute: async (ctx) => {
    const { total, byStatus: counts } = await countContacts(ctx.db, ctx.org.id);
    const all = withZeros(CONTACT_STATUSES, counts);
    const parts = spokenBreakdown(all, (key, n) => `${n.toLocaleString('en-GB')} ${key.replace('_', '-')}`);
    return { data: { total, byStatus: all }, speakToUser: total ? `Of ${countOf(total, 'contact')}: ${parts}.` : 'You have no contacts yet.' };
  },
});

const unsubscribes = defineMetric({
  name: 'count_unsubscribes',
  description: 'How many times contacts unsubscribed from email in a range (default: the last 7 days), and how many contacts that was.',
  scope: 'people:read',
  params: ['range'],
  output: z.object({ from: z.string(), to: z.string(), unsubscribes: z.number().int(), contacts: z.number().int() }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => ({ from: addDays(todayUtc(), -6), to: todayUtc() }));
    const data = await countUnsubscribes(ctx.db, ctx.org.id, from, to);
    return { data, speakToUser: `${countOf(data.contacts, 'contact')} unsubscribed from email ${spokenRange(from, to)}.` };
  },
});

const firstTimeVisitors = defineMetric({
  name: 'first_time_visitors',
  description: 'How many people made their first visit in a range (default: this month so far), by the first-visit date the Welcome Desk records.',
  scope: 'people:read',
  params: ['range'],
  output: z.object({ from: z.string(), to: z.string(), firstTimeVisitors: z.number().int() }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const n = await countFirstVisits(ctx.db, ctx.org.id, from, to);
    return { data: { from, to, firstTimeVisitors: n }, speakToUser: `${countOf(n, 'first-time visitor')} came ${spokenRange(from, to)}.` };
  },
});

export const peopleMetrics: readonly AnyMetric[] = [totalContacts, byMembershipStatus, byStatus, unsubscribes, firstTimeVisitors];
