import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { toolsFor } from '../../kit';
import { canSeeRestricted } from '../pastoral/privacy';
import { rulesOut, segmentSchema } from '../tools/segments';
import { DEFAULT_MIN_SIMILARITY, MAX_CANDIDATES, semanticSearch } from './search';
import { previewSemanticSegment, PREVIEW_LIFETIME_HOURS, savePreviewedSegment } from './segment';
import { listSimilarContacts, SIMILAR_KINDS } from './similar';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const readingSchema = z.object({
  phrase: z.string().describe('The words of the request this reading came from'),
  meaning: z.string().describe('What it was read as, in words'),
  rules: z.array(z.object({ field: z.string(), operator: z.string(), value: z.unknown().optional() }).strict()),
}).strict();

const sampleContact = z.object({ contactId: z.uuid(), displayName: z.string(), email: z.string().nullable() }).strict();

export const semanticSearchContactsTool = tools.read('semantic_search_contacts', {
  title: 'Search contacts by what you mean',
  description: `Finds contacts from a request in everyday words ("young families who came at Christmas and haven't been back", "retired people who love gardening"). The words are read into segment rules over real fields (membership stage, age, household, first visit, place, tag, group, consent), each shown with the words it came from, and answered by Postgres; the words left over are searched in notes the caller may read and interests: by meaning when an embeddings provider is configured, else by Postgres full-text search, and freeTextSearch says which. Restricted notes are searched only for callers holding people:safeguarding. For a plain name, email or phone lookup use people_search_contacts; to keep the result as a segment use people_build_semantic_segment.`,
  keywords: ['semantic search', 'search by meaning', 'natural language search', 'find people who', 'interests', 'notes mention'],
  examples: ['young families who visited over Christmas and never came back', 'who loves gardening', 'find retired people interested in music', 'members in their 30s living in Leeds', 'anyone whose notes mention a new baby', 'women over 60 who might like the knitting group', 'visitors who came at Easter', 'people keen on football', 'people who like baking', "we're starting a walking group, who might be into hiking or the outdoors", "who came to the toddler group but doesn't come on Sundays?"],
  input: z.object({
    query: z.string().trim().min(2).max(500).describe('Who you are looking for, in your own words'),
    limit: z.number().int().min(1).max(100).default(25),
    minSimilarity: z.number().min(0).max(1).default(DEFAULT_MIN_SIMILARITY).describe('With embeddings: the least cosine similarity a contact\'s free text needs'),
  }),
  output: z.object({
    interpretation: z.object({
      rules: rulesOut.nullable().describe('The field rules read from the request (null: none)'),
      readings: z.array(readingSchema),
      freeText: z.string().nullable().describe('Words not read as a field, searched in notes and interests'),
    }).strict(),
    freeTextSearch: z.object({
      method: z.enum(['embeddings', 'full_text', 'none']), note: z.string().describe('How free text was matched, and whether restricted notes were included'),
      includesRestrictedNotes: z.boolean(), embeddedNow: z.number().int().describe('Contacts whose text was embedded during this call'),
    }).strict(),
    total: z.number().int(),
    contacts: z.array(z.object({
      contactId: z.uuid(), displayName: z.string(), email: z.string().nullable(),
      score: z.number().nullable().describe('Similarity (embeddings) or full-text rank; null when matched by rules alone'),
      matchedOn: z.array(z.enum(['rules', 'free_text'])),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => semanticSearch(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), input),
});

export const buildSemanticSegmentTool = tools.write('build_semantic_segment', {
  title: 'Build a segment from words',
  description: `Two steps. With request: reads it into segment rules over real fields, each shown with the words it came from and its meaning, and answers how many contacts match now with a sample, under a previewId (nothing is saved but the preview). Show the readings to the user. With previewId and name: saves a segment with exactly the previewed rules (valid ${PREVIEW_LIFETIME_HOURS} hours; saving the same preview again returns the same segment). Words not read as a field are listed as leftOut: a segment holds field rules only. To change a rule, save with people_create_segment_from_template (custom) instead.`,
  keywords: ['segment from description', 'natural language segment', 'build audience', 'smart segment', 'save as a reusable list', 'saved list from words'],
  examples: ['make a segment of young families who visited over Christmas and never returned', 'build a list of retired members living in York', 'create an audience of visitors from Easter', 'save that as a segment called Christmas follow-up', 'segment of teenagers who are subscribed', 'set up a group of lapsed members over 70', 'yes, save the preview as Easter newcomers', 'segment of new parents', 'for the carol service mailing I want a list of families with young kids who live nearby', "can you turn 'lapsed choir members' into a saved audience?"],
  input: z.object({
    request: z.string().trim().min(2).max(500).optional().describe('Step 1: who belongs, in your own words'),
    previewId: z.uuid().optional().describe('Step 2: the preview to save, from step 1'),
    name: z.string().trim().min(1).max(200).optional().describe('Step 2: the segment\'s name'),
    description: z.string().trim().max(500).optional(),
  }),
  output: z.object({
    stage: z.enum(['preview', 'saved']),
    previewId: z.uuid(), request: z.string(), rules: rulesOut, readings: z.array(readingSchema),
    leftOut: z.string().nullable().describe('Words not read as a field rule (not part of the segment)'),
    matchCount: z.number().int().describe('Contacts the rules matched at preview'),
    sample: z.array(sampleContact),
    segment: segmentSchema.nullable(),
    alreadySaved: z.boolean().optional(),
    confirm: z.string(),
  }).strict(),
  run: async (ctx, input) => {
    if (input.previewId && input.request) {
      throw new StewardError('validation_failed', 'Give either request (to preview) or previewId (to save), not both', {
        issues: [{ path: 'previewId', message: 'not with request' }],
      });
    }
    if (input.previewId) {
      if (!input.name) {
        throw new StewardError('validation_failed', 'Saving a preview needs a name', { issues: [{ path: 'name', message: 'required with previewId' }] });
      }
      return savePreviewedSegment(ctx.db, ctx.org.id, { previewId: input.previewId, name: input.name, description: input.description });
    }
    if (!input.request) {
      throw new StewardError('validation_failed', 'Give request to preview a segment, or previewId and name to save one', { issues: [{ path: 'request', message: 'required without previewId' }] });
    }
    return previewSemanticSegment(ctx.db, ctx.org.id, ctx.principal.userId, input.request);
  },
});

export const listSimilarContactsTool = tools.read('list_similar_contacts', {
  title: 'Likely duplicates and namesakes of a contact',
  description: 'For one contact, others who are probably the same person (same email or phone, or a very similar name with the same date of birth or postcode) or namesakes (a similar name but different identifiers), each with its reasons, any conflicts and a confidence: min(1, 0.45·email + 0.35·phone + 0.25·date of birth + 0.1·postcode + 0.4·name similarity) − 0.3 per conflict. Reads no notes. Merge duplicates with the merge tools; prefer merge over delete.',
  keywords: ['similar contacts', 'possible duplicates', 'namesakes', 'same person twice'],
  examples: ['is Jo Smith on here twice', 'find duplicates of this contact', 'who else has a name like Ann Adams', 'are there other records for Sam', 'check whether this person already exists', 'namesakes of Peter Jones', 'does Mrs Patel already have another record', 'likely duplicates and namesakes for Brian', 'duplicates of Grace', "before I add Ian Barker can you check he isn't already on here under another spelling", "are there other records that look like Colin's?"],
  input: z.object({ contactId: z.uuid(), limit: z.number().int().min(1).max(50).default(10) }),
  output: z.object({
    contact: z.object({ contactId: z.uuid(), displayName: z.string() }).strict(),
    similar: z.array(z.object({
      contactId: z.uuid(), displayName: z.string(), email: z.string().nullable(), kind: z.enum(SIMILAR_KINDS), confidence: z.number(),
      nameSimilarity: z.number().describe('Trigram similarity of the full names, 0–1'), reasons: z.array(z.string()), conflicts: z.array(z.string()),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => listSimilarContacts(ctx.db, ctx.org.id, input.contactId, input.limit),
});

export const semanticTools = [semanticSearchContactsTool, buildSemanticSegmentTool, listSimilarContactsTool];
export { MAX_CANDIDATES };
