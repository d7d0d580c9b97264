import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listPage, notFound, type RowOf } from '../kit';
import { displayNameOf, requireContact } from '../people/api';
import type { OrgSettings } from '../tool';
import { addMonths, countOccurrencesBetween } from './recurring/calendar';
import { todayUtc } from '../metrics';
import { requireFund } from './funds';
import type { GivingPledgeCampaign } from './models/pledge-campaigns';
import type { GivingPledge } from './models/pledges';
import { minorUnits } from './money';
import { organisationCurrency } from './settings';

/**
 * Pledge campaigns and pledges. A pledge promises `amount` once (one_off) or every period
 * (weekly, monthly, quarterly, yearly) from its start to its end (its own end date, else the
 * campaign's); what it promises in all is `amount` times the occurrences in that span.
 * Progress is never stored: it is computed from the donations linked to the pledge
 * (donations.pledge_id) that are in committed batches, net of their refunds, so it can never
 * disagree with the donations themselves. Uncommitted donations count nowhere.
 */

export const PLEDGE_PERIODS = ['one_off', 'weekly', 'monthly', 'quarterly', 'yearly'] as const;
export type PledgePeriod = (typeof PLEDGE_PERIODS)[number];

/** The longest span a periodic pledge may cover, so its total stays meaningful (and a safe integer). */
export const MAX_PLEDGE_YEARS = 10;

export const campaignSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  fundId: z.uuid(),
  fundName: z.string(),
  goalAmount: z.number().int().nullable(),
  currency: z.string(),
  startsOn: z.string(),
  endsOn: z.string().nullable(),
  status: z.enum(['active', 'closed']),
  createdAt: z.string(),
}).strict();
export type CampaignView = z.infer<typeof campaignSchema>;

export const pledgeSchema = z.object({
  id: z.uuid(),
  campaignId: z.uuid(),
  contactId: z.uuid().nullable(),
  contactName: z.string().nullable(),
  amount: z.number().int().describe('Minor units per period (or once, for one_off)'),
  currency: z.string(),
  period: z.enum(PLEDGE_PERIODS),
  startsOn: z.string(),
  endsOn: z.string().nullable().describe("The pledge's own end date; null when it runs to the campaign's end"),
  status: z.enum(['open', 'fulfilled', 'cancelled']),
  spansFunds: z.boolean().describe("Gifts to any fund may pay it; otherwise only gifts to the campaign's fund may be linked"),
  pledgedTotal: z.number().int().describe('What the pledge promises in all, in minor units'),
  expectedToDate: z.number().int().describe('What should have been given by today at the promised rate'),
  received: z.number().int().describe('Linked donations in committed batches, net of refunds'),
  outstanding: z.number().int().describe('pledgedTotal less received, never below zero'),
  fulfilled: z.boolean().describe('received has reached pledgedTotal'),
  donationCount: z.number().int(),
  lastGiftOn: z.string().nullable(),
  createdAt: z.string(),
}).strict();
export type PledgeView = z.infer<typeof pledgeSchema>;

export const campaignProgressSchema = z.object({
  campaign: campaignSchema,
  goalAmount: z.number().int().nullable(),
  pledgedTotal: z.number().int().describe('Promised by pledges that are not cancelled'),
  received: z.number().int().describe("Linked donations in committed batches, net of refunds (a cancelled pledge's gifts still count)"),
  expectedToDate: z.number().int(),
  outstanding: z.number().int().describe('Still promised by open pledges and not yet received'),
  percentOfGoal: z.number().int().nullable().describe('received as a whole percentage of the goal, rounded down; null without a goal'),
  percentOfPledged: z.number().int().nullable().describe('received as a whole percentage of pledgedTotal, rounded down'),
  pledgeCount: z.number().int(),
  openPledgeCount: z.number().int(),
  cancelledPledgeCount: z.number().int(),
  fulfilledPledgeCount: z.number().int(),
}).strict();
export type CampaignProgress = z.infer<typeof campaignProgressSchema>;

// ---------------------------------------------------------------- shared checks

function invalid(field: string, message: string, hint?: string): StewardError {
  return new StewardError('validation_failed', message, { ...(hint ? { hint } : {}), issues: [{ path: field, message }] });
}

/** An active fund of the organisation, or not_found (a foreign id too) / validation_failed when archived. */
export async function requireActiveFund(db: Queryable, orgId: string, fundId: string, field = 'fundId'): Promise<{ id: string; name: string }> {
  return requireFund(db, orgId, fundId, { active: true, field });
}

// ---------------------------------------------------------------- campaigns

type CampaignRow = RowOf<GivingPledgeCampaign> & { fund_name: string };

const toCampaign = (row: CampaignRow): CampaignView => ({
  id: row.id, name: row.name, fundId: row.fund_id, fundName: row.fund_name,
  goalAmount: row.goal_amount === null ? null : minorUnits(row.goal_amount), currency: row.currency,
  startsOn: row.starts_on, endsOn: row.ends_on, status: row.status, createdAt: new Date(row.created_at).toISOString(),
});

const CAMPAIGN_SELECT = `SELECT c.*, f.name AS fund_name FROM giving_pledge_campaigns c JOIN giving_funds f ON f.id = c.fund_id`;

export async function requireCampaign(db: Queryable, orgId: string, campaignId: string, lock = false): Promise<CampaignView> {
  const row = await queryOne<CampaignRow>(db, `${CAMPAIGN_SELECT} WHERE c.org_id = $1 AND c.id = $2${lock ? ' FOR UPDATE OF c' : ''}`, [orgId, campaignId]);
  if (!row) throw notFound('Pledge campaign', campaignId, 'giving_list_pledge_campaigns lists them.');
  return toCampaign(row);
}

export interface CampaignInput {
  name: string;
  fundId: string;
  goalAmount?: number;
  startsOn?: string;
  endsOn?: string;
}

export async function createCampaign(db: Queryable, org: OrgSettings, input: CampaignInput): Promise<CampaignView> {
  await requireActiveFund(db, org.id, input.fundId);
  const currency = await organisationCurrency(db, org);
  const startsOn = input.startsOn ?? todayUtc();
  if (input.endsOn && input.endsOn < startsOn) throw invalid('endsOn', 'The campaign cannot end before it starts');
  const taken = await queryOne(db, 'SELECT id FROM giving_pledge_campaigns WHERE org_id = $1 AND lower(name) = lower($2)', [org.id, input.name]);
  if (taken) throw new StewardError('conflict', `A pledge campaign named "${input.name}" already exists`, { hint: 'Choose another name, or use the existing campaign.' });
  const id = randomUUID();
  await db.query(`INSERT INTO giving_pledge_campaigns (id, org_id, name, fund_id, goal_amount, currency, starts_on, ends_on)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [id, org.id, input.name, input.fundId, input.goalAmount ?? null, currency, startsOn, input.endsOn ?? null]);
  return requireCampaign(db, org.id, id);
}

export async function listCampaigns(db: Queryable, orgId: string, options: { limit: number; cursor?: string; status?: 'active' | 'closed' }) {
  const page = await listPage<{ id: string; created_at: Date }>(db, {
    table: 'giving_pledge_campaigns', orgId, limit: options.limit, cursor: options.cursor, includeDeleted: true,
    ...(options.status ? { where: 'status = $4', values: [options.status] } : {}),
  });
  const campaigns: CampaignProgress[] = [];
  for (const row of page.rows) campaigns.push(await campaignProgress(db, orgId, row.id));
  return { campaigns, nextCursor: page.nextCursor };
}

export async function closeCampaign(db: Queryable, orgId: string, campaignId: string): Promise<CampaignView> {
  const campaign = await requireCampaign(db, orgId, campaignId, true);
  if (campaign.status === 'closed') throw new StewardError('conflict', 'The campaign is already closed', { details: { campaignId } });
  await db.query("UPDATE giving_pledge_campaigns SET status = 'closed', updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, campaignId]);
  return requireCampaign(db, orgId, campaignId);
}

// ---------------------------------------------------------------- pledges

type PledgeRow = RowOf<GivingPledge> & {
  campaign_ends_on: string | null;
  preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null;
};

const PLEDGE_SELECT = `SELECT p.*, c.ends_on AS campaign_ends_on, ct.preferred_name, ct.first_name, ct.last_name, ct.email
  FROM giving_pledges p JOIN giving_pledge_campaigns c ON c.id = p.campaign_id LEFT JOIN people_directory ct ON ct.id = p.contact_id`;

/** The last day a pledge runs to: its own end, else its campaign's (a one-off pledge has no span). */
function endOf(row: { ends_on: string | null; campaign_ends_on: string | null }): string | null {
  return row.ends_on ?? row.campaign_ends_on;
}

/** What a pledge promises from its start up to `until` (included). */
function promisedUntil(row: { amount: number | string; period: PledgePeriod; starts_on: string }, until: string | null): number {
  const amount = minorUnits(row.amount);
  if (row.period === 'one_off') return until === null || until >= row.starts_on ? amount : 0;
  if (until === null) return 0;
  return amount * countOccurrencesBetween(row.starts_on, row.period, row.starts_on, until);
}

interface Received { count: number; net: number; lastOn: string | null }

/** Committed donations linked to each pledge, net of their refunds. */
async function receivedByPledge(db: Queryable, orgId: string, pledgeIds: readonly string[]): Promise<Map<string, Received>> {
  if (pledgeIds.length === 0) return new Map();
  const rows = await queryRows<{ pledge_id: string; n: number; gross: string; refunded: string | null; last_on: string }>(db, `
    SELECT d.pledge_id, count(*)::int AS n, sum(d.amount) AS gross, sum(r.refunded) AS refunded, max(d.received_on) AS last_on
    FROM giving_donations d
    JOIN giving_batches b ON b.id = d.batch_id AND b.status = 'committed'
    LEFT JOIN (SELECT donation_id, sum(amount) AS refunded FROM giving_refunds WHERE org_id = $1 GROUP BY donation_id) r ON r.donation_id = d.id
    WHERE d.org_id = $1 AND d.pledge_id = ANY($2::uuid[])
    GROUP BY d.pledge_id`, [orgId, pledgeIds]);
  return new Map(rows.map((row) => [row.pledge_id, { count: row.n, net: minorUnits(row.gross) - minorUnits(row.refunded), lastOn: row.last_on }]));
}

function toPledge(row: PledgeRow, received: Received | undefined, today: string): PledgeView {
  const end = endOf(row);
  const pledgedTotal = promisedUntil(row, row.period === 'one_off' ? null : end);
  const expectedToDate = promisedUntil(row, end !== null && end < today ? end : today);
  const net = received?.net ?? 0;
  return {
    id: row.id, campaignId: row.campaign_id, contactId: row.contact_id,
    contactName: row.contact_id ? displayNameOf(row) : null,
    amount: minorUnits(row.amount), currency: row.currency, period: row.period, startsOn: row.starts_on, endsOn: row.ends_on,
    status: row.status, spansFunds: row.spans_funds, pledgedTotal, expectedToDate: Math.min(expectedToDate, pledgedTotal), received: net,
    outstanding: row.status === 'cancelled' ? 0 : Math.max(0, pledgedTotal - net), fulfilled: net >= pledgedTotal,
    donationCount: received?.count ?? 0, lastGiftOn: received?.lastOn ?? null, createdAt: new Date(row.created_at).toISOString(),
  };
}

async function pledgesWithProgress(db: Queryable, orgId: string, rows: PledgeRow[]): Promise<PledgeView[]> {
  const received = await receivedByPledge(db, orgId, rows.map((row) => row.id));
  const today = todayUtc();
  return rows.map((row) => toPledge(row, received.get(row.id), today));
}

export async function getPledge(db: Queryable, orgId: string, pledgeId: string, lock = false): Promise<PledgeView> {
  const row = await queryOne<PledgeRow>(db, `${PLEDGE_SELECT} WHERE p.org_id = $1 AND p.id = $2${lock ? ' FOR UPDATE OF p' : ''}`, [orgId, pledgeId]);
  if (!row) throw notFound('Pledge', pledgeId, 'giving_list_pledges lists pledges.');
  return (await pledgesWithProgress(db, orgId, [row]))[0];
}

/**
 * For linking a donation to a pledge (donations.pledge_id): the organisation's pledge, not
 * cancelled, and (unless the pledge spans funds) a gift wholly to the campaign's fund: otherwise
 * a General-fund gift would count towards a Building-fund promise. A missing or foreign id is
 * not_found; a cancelled pledge or a gift to another fund is validation_failed.
 */
export async function requireOpenPledge(
  db: Queryable, orgId: string, pledgeId: string, giftFundIds: readonly string[], field = 'pledgeId',
): Promise<{ id: string; campaignId: string; contactId: string | null; currency: string }> {
  const row = await queryOne<{ id: string; campaign_id: string; contact_id: string | null; currency: string; status: string; spans_funds: boolean; fund_id: string; fund_name: string }>(db,
    `SELECT p.id, p.campaign_id, p.contact_id, p.currency, p.status, p.spans_funds, c.fund_id, f.name AS fund_name
     FROM giving_pledges p JOIN giving_pledge_campaigns c ON c.id = p.campaign_id JOIN giving_funds f ON f.id = c.fund_id
     WHERE p.org_id = $1 AND p.id = $2`, [orgId, pledgeId]);
  if (!row) throw notFound('Pledge', pledgeId, 'giving_list_pledges lists pledges.');
  if (row.status === 'cancelled') throw invalid(field, 'The pledge was cancelled; a gift cannot be linked to it', 'Record the gift without pledgeId, or link it to an open pledge.');
  if (!row.spans_funds && giftFundIds.some((fundId) => fundId !== row.fund_id)) {
    throw invalid(field, `The pledge is to the ${row.fund_name} fund; a gift linked to it must be wholly to that fund`,
      `Designate the gift to ${row.fund_name}, record it without pledgeId, or record the pledge with spansFunds when it is to any fund.`);
  }
  return { id: row.id, campaignId: row.campaign_id, contactId: row.contact_id, currency: row.currency };
}

export interface PledgeInput {
  campaignId: string;
  contactId: string;
  amount: number;
  period: PledgePeriod;
  startsOn?: string;
  endsOn?: string;
  spansFunds?: boolean;
}

/** Today, within the campaign's dates; a campaign already over (pledge cards entered late) starts its pledges with it. */
function defaultStart(campaign: CampaignView, today: string): string {
  if (today < campaign.startsOn) return campaign.startsOn;
  if (campaign.endsOn && today > campaign.endsOn) return campaign.startsOn;
  return today;
}

export async function createPledge(db: Queryable, org: OrgSettings, input: PledgeInput): Promise<PledgeView> {
  const campaign = await requireCampaign(db, org.id, input.campaignId);
  if (campaign.status !== 'active') throw invalid('campaignId', 'The campaign is closed to new pledges', 'giving_list_pledge_campaigns lists active campaigns.');
  await requireContact(db, org.id, input.contactId);
  const startsOn = input.startsOn ?? defaultStart(campaign, todayUtc());
  if (startsOn < campaign.startsOn) throw invalid('startsOn', `The pledge cannot start before its campaign (${campaign.startsOn})`);
  if (campaign.endsOn && startsOn > campaign.endsOn) throw invalid('startsOn', `The pledge cannot start after its campaign ends (${campaign.endsOn})`);
  if (input.endsOn !== undefined) {
    if (input.period === 'one_off') throw invalid('endsOn', 'A one-off pledge has no end date', 'Leave endsOn out, or choose a period.');
    if (input.endsOn < startsOn) throw invalid('endsOn', 'The pledge cannot end before it starts');
    if (campaign.endsOn && input.endsOn > campaign.endsOn) throw invalid('endsOn', `The pledge cannot run past its campaign's end (${campaign.endsOn})`);
  }
  const end = input.endsOn ?? campaign.endsOn;
  if (input.period !== 'one_off') {
    if (!end) throw invalid('endsOn', 'A periodic pledge needs an end date: its own, or its campaign\'s', 'Give endsOn, so what is promised in all is known.');
    if (end > addMonths(startsOn, MAX_PLEDGE_YEARS * 12)) throw invalid('endsOn', `A pledge may run for at most ${MAX_PLEDGE_YEARS} years`);
    if (countOccurrencesBetween(startsOn, input.period, startsOn, end) === 0) throw invalid('endsOn', 'The pledge has no payment between its start and end');
  }
  const id = randomUUID();
  await db.query(`INSERT INTO giving_pledges (id, org_id, campaign_id, contact_id, amount, currency, period, starts_on, ends_on, spans_funds)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  [id, org.id, campaign.id, input.contactId, input.amount, campaign.currency, input.period, startsOn, input.endsOn ?? null, input.spansFunds ?? false]);
  return getPledge(db, org.id, id);
}

export async function cancelPledge(db: Queryable, orgId: string, pledgeId: string): Promise<PledgeView> {
  const pledge = await getPledge(db, orgId, pledgeId, true);
  if (pledge.status === 'cancelled') throw new StewardError('conflict', 'The pledge is already cancelled', { details: { pledgeId } });
  await db.query("UPDATE giving_pledges SET status = 'cancelled', updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, pledgeId]);
  return getPledge(db, orgId, pledgeId);
}

export interface PledgeFilters {
  limit: number;
  cursor?: string;
  campaignId?: string;
  contactId?: string;
  status?: 'open' | 'fulfilled' | 'cancelled';
}

export async function listPledges(db: Queryable, orgId: string, filters: PledgeFilters): Promise<{ pledges: PledgeView[]; nextCursor: string | null }> {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    values.push(value);
    clauses.push(clause.replace('?', `$${values.length + 3}`));
  };
  if (filters.campaignId) add('campaign_id = ?', filters.campaignId);
  if (filters.contactId) add('contact_id = ?', filters.contactId);
  if (filters.status) add('status = ?', filters.status);
  const page = await listPage<{ id: string; created_at: Date }>(db, {
    table: 'giving_pledges', orgId, limit: filters.limit, cursor: filters.cursor, includeDeleted: true,
    where: clauses.length ? clauses.join(' AND ') : undefined, values,
  });
  if (page.rows.length === 0) return { pledges: [], nextCursor: page.nextCursor };
  const rows = await queryRows<PledgeRow>(db, `${PLEDGE_SELECT} WHERE p.org_id = $1 AND p.id = ANY($2::uuid[])`, [orgId, page.rows.map((row) => row.id)]);
  const views = new Map((await pledgesWithProgress(db, orgId, rows)).map((view) => [view.id, view]));
  return { pledges: page.rows.map((row) => views.get(row.id)!), nextCursor: page.nextCursor };
}

// ---------------------------------------------------------------- campaign progress

const percent = (part: number, whole: number | null) => (whole && whole > 0 ? Math.floor((part * 100) / whole) : null);

/** Every pledge of the campaign and its linked donations, summed. */
export async function campaignProgress(db: Queryable, orgId: string, campaignId: string): Promise<CampaignProgress> {
  const campaign = await requireCampaign(db, orgId, campaignId);
  const rows = await queryRows<PledgeRow>(db, `${PLEDGE_SELECT} WHERE p.org_id = $1 AND p.campaign_id = $2`, [orgId, campaignId]);
  const pledges = await pledgesWithProgress(db, orgId, rows);
  const live = pledges.filter((pledge) => pledge.status !== 'cancelled');
  const pledgedTotal = live.reduce((sum, pledge) => sum + pledge.pledgedTotal, 0);
  const received = pledges.reduce((sum, pledge) => sum + pledge.received, 0);
  return {
    campaign,
    goalAmount: campaign.goalAmount,
    pledgedTotal,
    received,
    expectedToDate: live.reduce((sum, pledge) => sum + pledge.expectedToDate, 0),
    outstanding: live.reduce((sum, pledge) => sum + pledge.outstanding, 0),
    percentOfGoal: percent(received, campaign.goalAmount),
    percentOfPledged: percent(received, pledgedTotal),
    pledgeCount: pledges.length,
    openPledgeCount: pledges.filter((pledge) => pledge.status === 'open').length,
    cancelledPledgeCount: pledges.length - live.length,
    fulfilledPledgeCount: live.filter((pledge) => pledge.fulfilled).length,
  };
}
