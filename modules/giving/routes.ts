import { z } from 'zod';
import { routesFor } from '../routes';
import { getBatch, listBatches } from './batches';
import { adjustmentIdsOf, getDonation, getDonations } from './donations';
import { refundsOf } from './refunds';
import { listFunds } from './funds';
import { requireGiver } from './givers';
import { givingSettingsOf } from './settings';
import { getBatchTool, getDonationTool, getGiverTool, getSettingsTool, listBatchesTool, listFundsTool, updateFundTool } from './tools/core';

/**
 * The giving module's dashboard API routes: the reads a giving page needs. Writes a curated
 * tool covers name it, so the invoke bridges send callers to the tool.
 */
const routes = routesFor('giving', { read: 'giving:read', write: 'giving:write' });
const id = z.uuid();

export const givingRoutes = [
  routes.get('settings', {
    summary: "The organisation's giving currency and batch commit approval threshold",
    response: getSettingsTool.output,
    run: async (ctx) => ({ settings: await givingSettingsOf(ctx.db, ctx.org) }),
  }),
  routes.get('funds', {
    summary: 'List funds (active by default)',
    query: z.object({ status: z.enum(['active', 'archived', 'all']).default('active') }).strict(),
    response: listFundsTool.output,
    run: async (ctx, { query }) => ({ funds: await listFunds(ctx.db, ctx.org.id, query.status) }),
  }),
  routes.patch('funds/{fundId}', {
    summary: "Change a fund's name, code, description, Gift Aid eligibility or default",
    params: z.object({ fundId: id }).strict(),
    body: z.object({
      name: z.string().trim().min(1).max(120).optional(), code: z.string().trim().min(1).max(30).nullable().optional(),
      description: z.string().trim().max(1000).nullable().optional(), giftAidEligible: z.boolean().optional(), isDefault: z.boolean().optional(),
    }).strict(),
    response: updateFundTool.output,
    curatedTool: 'giving_update_fund',
  }),
  routes.get('batches', {
    summary: 'List batches, newest first, with gift counts and totals',
    query: z.object({
      status: z.enum(['in_progress', 'committed']).optional(),
      limit: z.coerce.number().int().min(1).max(100).default(25),
      cursor: z.string().max(200).optional(),
    }).strict(),
    response: listBatchesTool.output,
    run: async (ctx, { query }) => listBatches(ctx.db, ctx.org.id, query),
  }),
  routes.get('batches/{batchId}', {
    summary: 'One batch with its gift count, total and status',
    params: z.object({ batchId: id }).strict(),
    response: getBatchTool.output,
    run: async (ctx, { params }) => ({ batch: await getBatch(ctx.db, ctx.org.id, params.batchId) }),
  }),
  routes.get('givers/{giverId}', {
    summary: "A giver's details (only the last four digits of a bank account)",
    params: z.object({ giverId: id }).strict(),
    response: getGiverTool.output,
    run: async (ctx, { params }) => ({ giver: await requireGiver(ctx.db, ctx.org.id, { giverId: params.giverId }) }),
  }),
  routes.get('donations/{donationId}', {
    summary: 'One gift with its funds, batch, refunded amount and Gift Aid status',
    params: z.object({ donationId: id }).strict(),
    response: getDonationTool.output,
    run: async (ctx, { params }) => {
      const donation = await getDonation(ctx.db, ctx.org.id, params.donationId);
      return { donation, refunds: await refundsOf(ctx.db, ctx.org.id, donation.id), adjustments: await getDonations(ctx.db, ctx.org.id, await adjustmentIdsOf(ctx.db, ctx.org.id, donation.id)) };
    },
  }),
];
