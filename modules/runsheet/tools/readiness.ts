import { z } from 'zod';
import { checkReadiness } from '../readiness';
import { tools } from './plans';

const findingSchema = z.object({
  rank: z.number().int(), severity: z.enum(['blocker', 'warning', 'info']), area: z.string(), title: z.string(), detail: z.string(),
  fix: z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()), approvalGated: z.boolean().optional() }).strict().nullable()
    .describe('The tool call that fixes it (approvalGated: it will wait for a person\'s approval)'),
}).strict();

export const checkReadinessTool = tools.read('check_readiness', {
  title: 'Sunday readiness check',
  description: 'Checks one upcoming service across modules and answers a ranked fix list of tool calls: every needed position filled by someone cleared, not blocked out and not double-booked; everyone asked; songs licensed (CCLI number or public domain); approvals waiting that concern it; expected children per room from the series\' recent check-ins against capacity and ratio (guests); rooms and setup (spaces, when installed). Says plainly what it could not check.',
  keywords: ['ready for Sunday', 'readiness', 'gaps', 'holes in the rota', 'volunteer rota gaps', 'what is missing', 'double booked'],
  examples: ['are there gaps in this Sunday\'s volunteer rota', 'any holes in the team for the 10:30', 'are we ready for Sunday', 'what still needs doing for the 10:30', 'any gaps on this week\'s rota', 'is anyone double-booked on Sunday', 'check the carol service is ready', 'what could go wrong this Sunday', 'is everything sorted for Easter Sunday', 'ready check for Sunday', 'the bishop is visiting on the 12th, so is anything missing for that service?', 'have we got every slot filled and every song licensed for the 10:30'],
  input: z.object({ planId: z.uuid() }),
  output: z.object({
    planId: z.uuid(), date: z.string(), state: z.enum(['draft', 'scheduled', 'locked', 'live', 'past']),
    ready: z.boolean().describe('No blocker and no warning'), blockers: z.number().int(), warnings: z.number().int(),
    fixes: z.array(findingSchema),
    children: z.array(z.object({
      locationId: z.uuid(), name: z.string(), expectedChildren: z.number().int(), capacity: z.number().int().nullable(), childrenPerAdult: z.number().nullable(), adultsNeeded: z.number().int().nullable(),
    }).strict()),
    notChecked: z.array(z.string()).describe('Checks that could not be made, and why (a module not installed, no history)'),
  }).strict(),
  run: async (ctx, input) => checkReadiness(ctx.db, ctx.org.id, input.planId),
});
