import { z } from 'zod';
import { StewardError } from '../../../../core/errors';
import { toolsFor } from '../../../kit';
import { requireContact } from '../../contacts';
import { askForInsights, findSimilarContacts, listInsights, peopleAiSettings, storeInsights, type Insight } from '../ai';
import {
  MAX_BULK_OPERATION_CONTACTS, PREVIEW_LIFETIME_MINUTES, bulkOperationSchema, bulkSelectionSchema, getBulkOperation, previewBulkOperation, startBulkOperation,
} from '../bulk';
import { MAX_SHARED_CONTACTS, SHAREABLE_FIELDS, SHARE_SOURCES, createShare, listPartnerContacts, listShares, revokeShare, shareAudit } from '../shares';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

// ---------------------------------------------------------------- partner shares

const shareSchema = z.object({
  id: z.uuid(), partnerName: z.string(), partnerEmail: z.string().nullable(),
  source: z.object({ kind: z.enum(SHARE_SOURCES), id: z.uuid(), name: z.string().nullable() }).strict(),
  fields: z.array(z.string()), purpose: z.string(), state: z.enum(['active', 'revoked', 'expired']),
  createdAt: z.string(), expiresAt: z.string().nullable(), revokedAt: z.string().nullable(), revokeReason: z.string().nullable(),
  partnerViews: z.number().int(), lastViewedAt: z.string().nullable(),
}).strict();

export const createPartnerShareTool = tools.write('create_partner_share', {
  title: 'Share a contact list with a partner',
  description: `Shares one contact list (a segment, a ministry team or a tag) read-only with another organisation, for a stated purpose: names always, plus only the fields chosen (${SHAREABLE_FIELDS.join(', ')}). Returns a token, shown once, with which the partner reads the list at /people/partner-share (Authorization: Bearer <token>, at most ${MAX_SHARED_CONTACTS} contacts); the list follows its source as it changes. Revoke with people_revoke_partner_share. Every create, partner read and revoke is recorded.`,
  keywords: ['partner share', 'share list with another organisation', 'food bank list', 'data sharing'],
  examples: ['share the food bank volunteers list with the local food bank', 'give the diocese read-only access to our wardens team', 'share names and phone numbers of the lunch club with Age UK', 'set up a data share with our partner charity for 30 days', 'give the Trussell Trust read-only access to the pantry volunteers tag', 'share the Alpha segment names only with the diocese for 60 days', 'share the lunch club list with Age UK including addresses', 'let the council see the warm space volunteers, names and phones', 'share the warm space list with the council', "the night shelter needs our volunteer team's names for a month, share that team read-only", 'I need to give the food bank the names of our drivers, with phone numbers'],
  input: z.object({
    partnerName: z.string().trim().min(1).max(200),
    partnerEmail: z.email().max(254).optional(),
    source: z.object({
      kind: z.enum(SHARE_SOURCES),
      id: z.uuid().optional().describe('The segment, team or tag id (a segment needs its id)'),
      name: z.string().trim().min(1).max(200).optional().describe('A team or tag name, when the id is not known'),
    }),
    fields: z.array(z.enum(SHAREABLE_FIELDS)).max(SHAREABLE_FIELDS.length).default([]).describe('Fields shared besides the name'),
    purpose: z.string().trim().min(1).max(500).describe('Why the list is shared (recorded and shown to staff)'),
    expiresInDays: z.number().int().min(1).max(365).optional(),
  }),
  output: z.object({ share: shareSchema, token: z.string().describe('Shown once: give it to the partner; only its hash is kept') }).strict(),
  run: async (ctx, input) => createShare(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

export const listPartnerSharesTool = tools.read('list_partner_shares', {
  title: 'Partner shares',
  description: 'The contact lists shared with other organisations: partner, list, fields, purpose, state (active, revoked, expired), how often the partner read it and when last. withAudit adds one share\'s trail (created, viewed, revoked, by whom).',
  keywords: ['data shares', 'who have we shared data with', 'partner access', 'outside organisations', 'given our lists to'],
  examples: ['which organisations can see our contact lists', 'list our partner data shares', 'when did the food bank last look at our list', 'show the audit trail of the diocese share', 'which partner shares are active', 'list revoked and expired data shares', 'how many times has Age UK opened our list', 'which fields have we shared with the diocese', 'our data shares', "for the GDPR review I need every list we've given to outside organisations", 'has the night shelter opened our shared list?'],
  input: z.object({ state: z.enum(['active', 'all']).default('active'), auditShareId: z.uuid().optional().describe('Add this share\'s audit trail') }),
  output: z.object({
    shares: z.array(shareSchema),
    audit: z.array(z.object({ action: z.string(), actorUserId: z.uuid().nullable(), detail: z.string().nullable(), at: z.string() }).strict()).optional(),
  }).strict(),
  run: async (ctx, input) => ({
    shares: await listShares(ctx.db, ctx.org.id, input.state),
    ...(input.auditShareId ? { audit: await shareAudit(ctx.db, ctx.org.id, input.auditShareId) } : {}),
  }),
});

export const listPartnerContactsTool = tools.read('list_partner_contacts', {
  title: 'Contacts a partner sees',
  description: 'Exactly what a partner share shows the partner now: the list\'s live contacts with only the shared fields. Empty once the share is revoked or expired.',
  keywords: ['shared contacts', 'what the partner can see', 'what can they see of our list', 'partner share contacts', 'partner organisation', 'shared with partner'],
  examples: ['what can the food bank see on our share', 'show the contacts in the diocese share', 'check what we are sharing with Age UK', 'preview the partner view of share 3', 'who is visible on the Trussell Trust share', 'which fields does the council see on our list', 'list the people in the lunch club partner share', 'what would Age UK see right now', 'what does the food bank see of the people we share with them', 'which of our contacts can our partner charity see', 'what the night shelter sees', 'before the audit I want to check exactly which people the council can see'],
  input: z.object({ shareId: z.uuid(), limit: z.number().int().min(1).max(MAX_SHARED_CONTACTS).default(100) }),
  output: z.object({
    share: shareSchema,
    contacts: z.array(z.object({ name: z.string(), email: z.string().nullable().optional(), phone: z.string().nullable().optional(), address: z.string().nullable().optional(), membershipStatus: z.string().nullable().optional() }).strict()),
    count: z.number().int(),
  }).strict(),
  run: async (ctx, input) => listPartnerContacts(ctx.db, ctx.org.id, input.shareId, input.limit),
});

export const revokePartnerShareTool = tools.write('revoke_partner_share', {
  title: 'Revoke a partner share',
  description: 'Ends a partner share at once: its token stops working and the revoke is recorded with who and why. A revoked share stays listed (state revoked) for the record.',
  keywords: ['revoke share', 'stop sharing', 'withdraw partner access', 'cut off access', 'no longer needs our list'],
  examples: ['stop sharing the volunteers list with the food bank', 'revoke the diocese\'s access to our list', 'end the data share with Age UK, the project finished', "cut off the food bank's access now", 'revoke partner share 3, the project ended', "withdraw the council's access to the warm space list", 'cancel the diocese data share token', 'the partnership ended, stop the share', 'stop the night shelter share', "the warm space scheme ended in March so cut the council's access to our list", "can we withdraw Age UK's access today?"],
  destructive: true,
  input: z.object({ shareId: z.uuid(), reason: z.string().trim().min(1).max(500).optional() }),
  output: z.object({ share: shareSchema }).strict(),
  run: async (ctx, input) => ({ share: await revokeShare(ctx.db, ctx.org.id, ctx.principal.userId, input.shareId, input.reason) }),
});

// ---------------------------------------------------------------- bulk operations

const operationSchema = z.object({
  id: z.uuid(), operation: z.record(z.string(), z.unknown()), status: z.enum(['previewed', 'running', 'completed', 'failed']),
  total: z.number().int(), done: z.number().int(), changed: z.number().int(), skipped: z.number().int(), percent: z.number().int(),
  error: z.string().nullable(), createdAt: z.string(), startedAt: z.string().nullable(), finishedAt: z.string().nullable(),
}).strict();

export const runContactsBulkOperationTool = tools.write('run_contacts_bulk_operation', {
  title: 'Bulk operation on contacts',
  description: `Changes many contacts at once (add or remove tags, set the Welcome Desk stage, add to or remove from a ministry team), at most ${MAX_BULK_OPERATION_CONTACTS} selected by ids, a segment or a tag. Always two calls: mode "preview" says who is selected and, for a sample, what would change, and gives a previewId; mode "run" with that previewId (within ${PREVIEW_LIFETIME_MINUTES} minutes) starts a job that works through them in batches. Follow it with people_get_contacts_bulk_operation (done / total). For up to 50 field edits, people_bulk_update_contacts.`,
  keywords: ['bulk edit', 'mass update', 'bulk tag', 'select many contacts', 'batch change'],
  examples: ['tag everyone in the Alpha segment as Alpha 2025', 'move all the visitors tagged youth to returning visitor', 'add the whole choir segment to the music team', 'take the newcomer tag off everyone who has it', 'preview a bulk change before I run it', 'add all 300 visitors to the welcome team at once', 'remove the Alpha 2024 tag from everyone with it', 'run the bulk change from preview 88', 'tag all 200 of them', 'after the Alpha course ends, move everyone in that segment onto the welcome team at once', 'can I label everyone in the parents segment in one go?'],
  input: z.object({
    mode: z.enum(['preview', 'run']),
    operation: bulkOperationSchema.optional().describe('With preview: what to do'),
    selection: bulkSelectionSchema.optional().describe('With preview: whom to do it to (exactly one way)'),
    previewId: z.uuid().optional().describe('With run: the previewId the preview gave'),
  }),
  output: z.object({
    mode: z.enum(['preview', 'run']),
    operation: operationSchema,
    previewId: z.uuid().optional(),
    selected: z.number().int().optional(), wouldChange: z.number().int().optional(), unchanged: z.number().int().optional(),
    sample: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), wouldChange: z.boolean(), detail: z.string() }).strict()).optional(),
  }).strict(),
  followUp: { kind: 'people.contacts_bulk_operation' },
  run: async (ctx, input) => {
    if (input.mode === 'preview') {
      if (!input.operation || !input.selection) {
        throw new StewardError('validation_failed', 'A preview needs operation and selection', { issues: [{ path: input.operation ? 'selection' : 'operation', message: 'required with mode "preview"' }] });
      }
      const preview = await previewBulkOperation(ctx.db, ctx.org.id, ctx.principal.userId, input.operation, input.selection);
      return { mode: 'preview' as const, ...preview };
    }
    if (!input.previewId) {
      throw new StewardError('validation_failed', 'Running needs the previewId of a preview', {
        issues: [{ path: 'previewId', message: 'required with mode "run"' }], hint: 'Call with mode "preview" first: nothing runs unpreviewed.',
      });
    }
    return { mode: 'run' as const, operation: await startBulkOperation(ctx.db, ctx.org.id, input.previewId) };
  },
});

export const getContactsBulkOperationTool = tools.read('get_contacts_bulk_operation', {
  title: 'Bulk operation progress',
  description: 'A bulk operation on contacts: its status (previewed, running, completed, failed), done / total with the percentage, how many changed and how many were already as asked.',
  keywords: ['bulk progress', 'job status'],
  examples: ['how far has the bulk tagging got', 'is the bulk update finished', 'progress of the bulk operation', 'how many contacts has bulk operation 12 changed', 'status of the mass tagging job', 'did the bulk team add fail', 'percentage done on the bulk stage change', 'how many were already tagged in that bulk run', 'is the bulk job done?', 'I started tagging 800 people an hour ago, how far along is it', 'did the mass update finish or fail?'],
  input: z.object({ operationId: z.uuid() }),
  output: z.object({ operation: operationSchema }).strict(),
  run: async (ctx, input) => ({ operation: await getBulkOperation(ctx.db, ctx.org.id, input.operationId) }),
});

// ---------------------------------------------------------------- AI

const insightSchema = z.object({ title: z.string(), detail: z.string(), tool: z.string().nullable() }).strict();
const insightSetSchema = z.object({ id: z.uuid(), model: z.string(), generatedAt: z.string(), insights: z.array(insightSchema) }).strict();
const INSIGHTS_NEIGHBOUR = 'people_get_smart_discoveries';
const SIMILAR_NEIGHBOUR = 'people_search_contacts';

export const listDashboardAiInsightsTool = tools.read('list_dashboard_ai_insights', {
  title: 'Dashboard AI insights',
  description: `The AI insights generated for the people dashboard, newest first. Needs the AI provider setting (MEDIA_AI_API_URL); without it the answer is not_configured, and ${INSIGHTS_NEIGHBOUR} gives rule-based findings instead.`,
  keywords: ['ai insights', 'ai suggestions', 'insights history'],
  examples: ['show the AI insights on the dashboard', 'what did the AI say about our people last time', 'list previous AI insights', 'past AI insights for the people dashboard', 'newest AI insight about our congregation', 'what insights did the AI produce last month', 'AI observations we already have', 'show the last five AI insights', 'previous AI insights', 'the AI said something useful last week about our numbers, show me its past insights', 'have we got any AI insights already?'],
  input: z.object({ limit: z.number().int().min(1).max(50).default(5) }),
  output: z.object({ insightSets: z.array(insightSetSchema) }).strict(),
  prepare: async () => { peopleAiSettings(INSIGHTS_NEIGHBOUR); return null; },
  run: async (ctx, input) => ({ insightSets: await listInsights(ctx.db, ctx.org.id, input.limit) }),
});

export const generateDashboardAiInsightsTool = tools.write('generate_dashboard_ai_insights', {
  title: 'Generate dashboard AI insights',
  description: `Asks the AI provider for up to five practical insights from the organisation's aggregate people figures (no names, notes or contact details leave) and keeps them for the dashboard. Needs MEDIA_AI_API_URL; without it the answer is not_configured and ${INSIGHTS_NEIGHBOUR} answers without AI.`,
  keywords: ['ai insights', 'ai analysis', 'generate insights', 'ai look over our numbers', 'suggest things'],
  examples: ['ask the AI what stands out in our people data', 'generate fresh AI insights for the dashboard', 'get AI suggestions about our congregation figures', 'have the AI look over our people figures', 'new AI insights from our aggregate numbers', 'AI, what should we notice in our contact figures', 'refresh the AI insights panel', 'ask the AI for five practical ideas from our figures', 'new AI insights', "before the vision day I'd like the AI to point out trends in our people numbers", 'can the AI suggest what we should notice about our congregation?'],
  input: z.object({}),
  output: z.object({ insightSet: insightSetSchema }).strict(),
  prepare: async (_input, deps) => askForInsights(deps.db, deps.org.id, peopleAiSettings(INSIGHTS_NEIGHBOUR)),
  run: async (ctx) => ({ insightSet: await storeInsights(ctx.db, ctx.org.id, ctx.principal.userId, ctx.prepared as { model: string; insights: Insight[] }) }),
});

export const findSimilarContactsAiTool = tools.read('find_similar_contacts_ai', {
  title: 'Find similar contacts (AI)',
  description: `People most like one contact by stage, tags, teams, town and age band, ranked by the AI provider's embeddings, each with what they share (no names, contact details or notes leave). Needs MEDIA_AI_API_URL; without it the answer is not_configured and ${SIMILAR_NEIGHBOUR} finds people by name and filters without AI.`,
  keywords: ['similar people', 'lookalike contacts', 'people like this one'],
  examples: ['who is most like Jean in our congregation', 'find people similar to this new volunteer', 'lookalike contacts for the youth leader', 'people like Jean by age, team and town', 'AI lookalikes for our best volunteer', 'who resembles Tom in stage and tags', 'find contacts similar to Mrs Ahmed using AI', "people who match Brian's profile, ranked", 'people like Grace', 'Ian has been a great volunteer, find others with a similar profile we could ask', 'who in the church is most similar to Ruth?'],
  input: z.object({ contactId: z.uuid(), limit: z.number().int().min(1).max(50).default(10) }),
  output: z.object({
    contactId: z.uuid(), compared: z.number().int(),
    similar: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), similarity: z.number(), shared: z.array(z.string()) }).strict()),
  }).strict(),
  // The contact first, so another organisation's id is not_found whether or not a provider is set.
  prepare: async (input, deps) => {
    await requireContact(deps.db, deps.org.id, input.contactId);
    return findSimilarContacts(deps.db, deps.org.id, input.contactId, input.limit, peopleAiSettings(SIMILAR_NEIGHBOUR));
  },
  run: async (ctx) => ctx.prepared as never,
});

export const jobTools = [
  createPartnerShareTool, listPartnerSharesTool, listPartnerContactsTool, revokePartnerShareTool,
  runContactsBulkOperationTool, getContactsBulkOperationTool,
  listDashboardAiInsightsTool, generateDashboardAiInsightsTool, findSimilarContactsAiTool,
];
