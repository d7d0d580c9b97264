import { z } from 'zod';
import { cursorInput, cursorOutput, toolsFor } from '../../kit';
import { GAP_STATUS_FILTERS, listCapabilityGaps, reportCapabilityGap, resolveCapabilityGap } from '../capability-gaps';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

export const gapSchema = z.object({
  gapId: z.uuid(),
  tool: z.string().nullable().describe('The tool that fell short, if one did'),
  missing: z.string(),
  example: z.string().nullable(),
  reportedByUserId: z.uuid().nullable(),
  credentialKind: z.string().describe('api_key or oauth: how the reporting agent was connected'),
  reportedAt: z.string(),
  status: z.enum(['open', 'resolved']),
  resolution: z.string().nullable().describe('How it was dealt with, once resolved'),
  resolvedAt: z.string().nullable(),
  resolvedByUserId: z.uuid().nullable(),
}).strict();

export const reportCapabilityGapTool = tools.write('report_capability_gap', {
  title: 'Report a capability gap',
  description: 'Tell the organisation\'s owners and admins that you were asked for something no Steward tool could do (or a tool could only partly do): what was missing, the tool that fell short if any, and an example request. Use it after searching the tools (platform_search_tools) found nothing fitting, instead of improvising; say to the person that it was reported.',
  keywords: ['missing feature', 'cannot do', 'feature request', 'limitation', 'unsupported'],
  examples: ['tell the owners Steward cannot book minibuses', 'report that exporting rotas is missing', "let the admins know you couldn't print name badges", "flag that there's no way to book the minibus", 'log a feature request for exporting the pew sheet', "tell the owners Steward can't handle hymn numbers", "note that the system couldn't invoice recurring hall hire", 'raise it with the owners that the rota tool only half did the job', 'report a missing feature', "you couldn't split the raffle takings by stall, so let the owners know that's missing", "can you flag to the admins that the tool couldn't do it?"],
  input: z.object({
    tool: z.string().trim().regex(/^[a-z][a-z0-9_]*$/, 'a tool name in snake_case').max(100).optional().describe('The tool that fell short, if one did'),
    missing: z.string().trim().min(1).max(2000).describe('What could not be done, in a sentence or two'),
    example: z.string().trim().min(1).max(2000).optional().describe('The request as the person made it'),
  }),
  output: z.object({ gap: gapSchema, speakToUser: z.string().describe('A sentence to relay to the person') }).strict(),
  run: async (ctx, input) => ({
    gap: await reportCapabilityGap(ctx.db, ctx.principal, input),
    speakToUser: 'I could not do that with Steward, so I have told your organisation\'s owners what was missing.',
  }),
});

export const listCapabilityGapsTool = tools.read('list_capability_gaps', {
  title: 'List capability gap reports',
  description: 'The capability gaps agents reported (platform_report_capability_gap), newest first: what was missing, the tool that fell short, an example, and whether it is resolved. Owners and admins only.',
  keywords: ['feature requests', 'missing features', 'gaps', 'wish list', 'things it cannot do'],
  examples: ['what have the assistants not been able to do', "what features have people asked for that we don't have", "show the list of things Steward couldn't do", 'any unresolved missing feature reports', 'what limitations have the agents reported this month', 'list the feature requests logged by the assistants', 'which tools have fallen short recently', 'what has Steward told us it cannot do yet', 'list the open capability gaps', 'which requests have the AI assistants flagged as unsupported?', 'show our wish list of missing features from the agents'],
  input: z.object({
    status: z.enum(GAP_STATUS_FILTERS).default('all').describe('open, resolved or all (default)'),
    ...cursorInput,
  }),
  output: z.object({ gaps: z.array(gapSchema), ...cursorOutput }).strict(),
  run: (ctx, input) => listCapabilityGaps(ctx.db, ctx.principal, input),
});

export const resolveCapabilityGapTool = tools.write('resolve_capability_gap', {
  title: 'Resolve a capability gap report',
  description: 'Closes a reported capability gap with how it was dealt with (a tool now does it, a workaround, or a decision not to); platform_overview then stops counting it as open. Owners and admins only.',
  keywords: ['close feature request', 'gap handled', 'mark gap done', 'resolve gap', 'close gap report'],
  examples: ['the minibus booking gap is handled now', 'close the rota export request', 'mark the pew sheet export request as sorted', "close the minibus gap, we're using a spreadsheet instead", 'we decided not to do hymn numbers, close that report', 'the name badge printing issue is resolved now', 'tick off the feature request about hall invoices', 'that missing feature has been built, mark it done', 'resolve the gap about exporting the rota to Excel', 'the gift aid export gap is fixed by a new tool now, close it', "we won't build the hall key tracker, close that gap", 'mark the missing feature report on wedding fees as dealt with'],
  input: z.object({
    gapId: z.uuid().describe('From platform_list_capability_gaps'),
    resolution: z.string().trim().min(1).max(500).describe('How it was dealt with, in a sentence'),
  }),
  output: z.object({ gap: gapSchema }).strict(),
  run: async (ctx, input) => ({ gap: await resolveCapabilityGap(ctx.db, ctx.principal, input.gapId, input.resolution) }),
});

export const capabilityGapTools = [reportCapabilityGapTool, listCapabilityGapsTool, resolveCapabilityGapTool];
