import { z } from 'zod';
import { exactlyOne } from '../../tool';
import { MAX_LIST_OFFSET, toolsFor } from '../../kit';
import { ruleSetSchema, segmentFieldCatalogue } from '../segment-rules';
import {
  SEGMENT_TEMPLATES, addContactToSegment, createSegmentFromTemplate, listSegmentContacts, listSegments, previewRules, refreshSegment, requireSegment, updateSegment,
} from '../segments';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const ruleOut = z.object({ field: z.string(), operator: z.string(), value: z.unknown().optional() }).strict();
export const rulesOut = z.object({ match: z.enum(['all', 'any']), rules: z.array(ruleOut) }).strict();
export const segmentSchema = z.object({
  id: z.uuid(), name: z.string(), description: z.string().nullable(), templateId: z.string().nullable(), rules: rulesOut,
  memberCount: z.number().int(), refreshedAt: z.string().nullable(),
}).strict();
const RULES_HELP = 'Rules: {"match": "all"|"any", "rules": [{"field", "operator", "value"}]}; people_list_segment_fields lists fields and operators.';

export const listSegmentsTool = tools.read('list_segments_api', {
  title: 'List segments',
  description: 'Rule-based contact segments with their rules, member count and when they were last refreshed.',
  keywords: ['segments', 'audiences', 'saved lists'],
  examples: ['which saved lists of people do we have', 'our audiences and how big they are', 'what audiences have we set up', 'show all our segments with member counts', 'list the smart lists and when they were last refreshed', 'how many people are in each of our saved lists', 'do we have a segment for lapsed members already?', 'our mailing audiences, how big is each', 'our saved lists', "I'm about to send a mailing, what audiences have we already built", 'which segments have we got and when were they updated?'],
  input: z.object({}),
  output: z.object({ segments: z.array(segmentSchema) }).strict(),
  run: async (ctx) => ({ segments: await listSegments(ctx.db, ctx.org.id) }),
});

export const getSegmentTool = tools.read('get_segment_api', {
  title: 'Get a segment',
  description: 'One segment with its rules and member count.',
  keywords: ['segment details'],
  examples: ['how is this list of people defined', 'the rules of one audience', 'what rules make up the Young Families segment', 'show the details of the lapsed members list', 'how many are in the Newcomers 2024 audience and why', 'open the segment called Over 70s', 'what criteria does the volunteers list use', 'tell me how the housebound segment is built', 'the Over 80s list details', "someone's asking why they're in the Lapsed audience, show me its rules", "what's the definition of the Parents segment?"],
  input: z.object({ segmentId: z.uuid() }),
  output: z.object({ segment: segmentSchema }).strict(),
  run: async (ctx, input) => ({ segment: await requireSegment(ctx.db, ctx.org.id, input.segmentId) }),
});

export const listSegmentFieldsTool = tools.read('list_segment_fields', {
  title: 'Segment fields',
  description: 'Fields segment rules can use, each with its type, valid operators and (for fixed lists) valid values.',
  keywords: ['segment rule fields', 'filter fields', 'operators'],
  examples: ['which fields can an audience rule use', 'what can I filter people by', 'what can a segment rule filter on', 'which operators work with date of birth', 'valid values for membership status in rules', 'list the fields available for building audiences', 'can I filter a list by last attendance date', 'what options do I have for smart list criteria', 'segment filter options', 'I want to build a list by postcode area, which fields can a rule use', 'can segment rules look at tags and birthdays?'],
  input: z.object({}),
  output: z.object({
    fields: z.array(z.object({ field: z.string(), label: z.string(), type: z.string(), operators: z.array(z.string()), values: z.array(z.string()).optional() }).strict()),
  }).strict(),
  run: async () => ({ fields: segmentFieldCatalogue() }),
});

export const listSegmentTemplatesTool = tools.read('list_segment_templates', {
  title: 'Segment templates',
  description: 'Ready-made segment definitions (new visitors, members, lapsed, …) to start from; `custom` takes your own rules.',
  keywords: ['segment presets'],
  examples: ['starting points for a new audience', 'preset lists like lapsed members or new visitors', 'what ready-made audiences are there', 'show me the segment templates', 'is there a preset for new visitors', 'template lists I can start from', 'which built-in segments can I copy', 'off-the-shelf lists like members or lapsed', 'segment templates?', "I don't want to build an audience from scratch, which presets are available", 'is there a ready-made list for members?'],
  input: z.object({}),
  output: z.object({ templates: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), rules: rulesOut.nullable() }).strict()) }).strict(),
  run: async () => ({ templates: SEGMENT_TEMPLATES.map((t) => ({ ...t })) }),
});

export const createSegmentFromTemplateTool = tools.write('create_segment_from_template', {
  title: 'Create a segment',
  description: `Creates a segment from a template (people_list_segment_templates) and fills it. Use templateId "custom" with your own rules. ${RULES_HELP}`,
  keywords: ['new segment', 'build audience', 'create list'],
  examples: ['make a list of people matching some rules', 'save an audience of lapsed members', 'make a segment of everyone over 70', 'create an audience of new visitors from the template', 'build a list of members who live in Croydon', 'save a smart list of people tagged choir who are members', 'new segment: lapsed regulars', 'set up a list of parents with kids under 11', 'new list: all members', 'for the harvest mailing I need an audience of everyone in the BS postcode area', 'can you save a segment of lapsed members from the template?'],
  input: z.object({
    templateId: z.string().min(1).max(64),
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(1000).optional(),
    rules: ruleSetSchema.optional(),
  }),
  output: z.object({ segment: segmentSchema }).strict(),
  run: async (ctx, input) => ({ segment: await createSegmentFromTemplate(ctx.db, ctx.org.id, input) }),
});

export const updateSegmentTool = tools.write('update_segment', {
  title: 'Update a segment',
  description: `Renames a segment, changes its description, or replaces its rules (membership is refreshed when rules change). ${RULES_HELP}`,
  keywords: ['edit segment', 'change rules'],
  examples: ['edit the rules of a saved list', 'rename an audience or change who it picks', 'rename the Young Families segment to Families with Kids', 'change the over 70s list to over 75s', 'add a rule to the newcomers audience: joined this year', 'edit the description of the lapsed list', 'the volunteers segment should match any rule, not all', 'tweak who gets picked for the housebound list', 'rename the Parents list', "the Over 70s audience should now leave out people who've moved away, change its rules", 'can I change what the newcomers segment picks up?'],
  idempotent: true,
  input: z.object({
    segmentId: z.uuid(), name: z.string().trim().min(1).max(200).optional(), description: z.string().max(1000).nullable().optional(), rules: ruleSetSchema.optional(),
  }),
  output: z.object({ segment: segmentSchema }).strict(),
  run: async (ctx, input) => ({ segment: await updateSegment(ctx.db, ctx.org.id, input) }),
});

export const previewSegmentTool = tools.read('preview_segment_api', {
  title: 'Preview a segment',
  description: `Counts and samples who a segment's rules select right now, without saving: give segmentId, or rules to try. ${RULES_HELP}`,
  keywords: ['segment members preview', 'who matches', 'test rules'],
  examples: ['see who some rules would pick before saving', 'try out audience rules', 'how many would a list of under-30s catch', 'test these rules before I save the segment', 'who would be in an audience of members with an LS postcode', 'preview the lapsed segment as it stands now', 'dry run: people tagged choir but not members', 'show a sample of who matches these filters', 'who would match this?', "before I save a list of women over 60 in the choir, show me who it'd include", 'how many people would a segment of lapsed visitors catch?'],
  input: z.object({ segmentId: z.uuid().optional(), rules: ruleSetSchema.optional(), limit: z.number().int().min(1).max(100).default(20) })
    .refine(...exactlyOne('segmentId', 'rules')),
  output: z.object({ count: z.number().int(), sample: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), email: z.string().nullable() }).strict()) }).strict(),
  run: async (ctx, input) => {
    const rules = input.rules ?? (await requireSegment(ctx.db, ctx.org.id, input.segmentId!)).rules;
    return previewRules(ctx.db, ctx.org.id, rules, input.limit);
  },
});

export const refreshSegmentTool = tools.write('refresh_segment', {
  title: 'Refresh a segment',
  description: 'Re-evaluates a segment\'s rules and updates its membership; contacts added by hand stay.',
  keywords: ['recalculate segment', 'update membership'],
  examples: ['bring a saved list up to date', "recalculate an audience's members", 'update the lapsed members list now', 're-run the rules on the newcomers segment', 'the over 70s audience is out of date, refresh it', "recount who's in the Young Families list", 'resync the volunteers segment', 'refresh the segment before I send the mailing', 'refresh the Parents list', 'we added a load of people yesterday so the Over 70s audience needs updating', "can you rerun the newcomers segment so it's current?"],
  idempotent: true,
  input: z.object({ segmentId: z.uuid() }),
  output: z.object({ segment: segmentSchema, ruleMatchesBefore: z.number().int(), ruleMatchesNow: z.number().int() }).strict(),
  run: async (ctx, input) => refreshSegment(ctx.db, ctx.org.id, input.segmentId),
});

export const listSegmentContactsTool = tools.read('list_segment_contacts_api', {
  title: 'Segment members',
  description: 'Pages through a segment\'s members as of its last refresh, with whether each came from the rules or was added by hand.',
  keywords: ['segment contacts', 'members of segment'],
  examples: ['who is in this saved list', 'people in an audience', "who's in the lapsed members segment", 'list the people in the Young Families audience', 'names on the over 70s list', 'who was added by hand to the newcomers segment', 'show me the members of the housebound list', 'page through the volunteers audience', "who's on the Parents list", "I'm phoning everyone in the lapsed audience, give me the names", 'which people ended up in the Over 80s segment?'],
  input: z.object({ segmentId: z.uuid(), limit: z.number().int().min(1).max(500).default(100), offset: z.number().int().min(0).max(MAX_LIST_OFFSET).default(0) }),
  output: z.object({
    segmentId: z.uuid(), memberCount: z.number().int(), refreshedAt: z.string().nullable(),
    contacts: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), email: z.string().nullable(), source: z.enum(['rule', 'manual']) }).strict()),
  }).strict(),
  run: async (ctx, input) => listSegmentContacts(ctx.db, ctx.org.id, input.segmentId, input),
});

export const addContactToSegmentTool = tools.write('add_contact_to_segment_api', {
  title: 'Add a contact to a segment',
  description: 'Adds a contact to a segment by hand; they stay a member across refreshes whatever the rules say.',
  keywords: ['include in segment'],
  examples: ['add one person to a saved list by hand', 'include someone in an audience whatever the rules', 'add Jean to the housebound list', 'put Ken into the newcomers segment manually', 'include the Browns in the Young Families audience', "pop Priya onto the over 70s list even though she's 68", 'stick Dennis in the lapsed segment by hand', 'make sure Tom stays on the volunteers list', 'add Hilda to Over 80s', "Colin doesn't fit the rules but he should get the parents mailing, add him to that list", 'can I put someone in a segment manually?'],
  idempotent: true,
  input: z.object({ segmentId: z.uuid(), contactId: z.uuid() }),
  output: z.object({ segmentId: z.uuid(), contactId: z.uuid(), alreadyManualMember: z.boolean(), memberCount: z.number().int() }).strict(),
  run: async (ctx, input) => addContactToSegment(ctx.db, ctx.org.id, input.segmentId, input.contactId),
});
