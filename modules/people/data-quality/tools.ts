import { z } from 'zod';
import { toolsFor } from '../../kit';
import { MERGEABLE_FIELDS } from '../merge';
import { computePreview, lookupImpliedTowns, startApplyJob, type AnyFix, type Preview } from './fixes';
import { jobView, listJobs, requireJob, startScanJob, startUndoJob } from './jobs';
import {
  affectedContacts, checksOfScan, dismiss, dismissedCounts, latestScan, listDuplicates, listQueue, mergeViaDashboard, openQueueCount,
  restoreDismissals, reviewQueueItem, summary,
} from './reports';
import { CATEGORIES, CHECKS, FIXES, SPECIAL_FIXES, UNDO_DAYS } from './rules';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });
const FOLLOW_UP = { kind: 'people.data_quality_job' } as const;

/** The values a job and a review queue item can take; the routes' query values are these too. */
export const JOB_KINDS = ['scan', 'apply_fix', 'undo_fix'] as const;
export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export const QUEUE_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export const QUEUE_KINDS = ['fuzzy_pair', 'stale_fix', 'unparseable_phone'] as const;

// ---------------------------------------------------------------- shapes

const jobSchema = z.object({
  id: z.uuid(),
  kind: z.enum(JOB_KINDS),
  status: z.enum(JOB_STATUSES),
  progress: z.object({ done: z.number().int(), total: z.number().int(), percent: z.number().int() }).strict(),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  undoableUntil: z.string().nullable().describe('A completed fix: until when people_trigger_data_quality_jobs can undo it'),
  workflowId: z.string().describe('The Temporal workflow running the job'),
}).strict();

const categoryEnum = z.enum(CATEGORIES);
const categorySchema = z.object({
  category: categoryEnum,
  score: z.number().int().nullable(),
  formula: z.string().nullable().describe('The formula with this scan\'s figures filled in'),
  figures: z.record(z.string(), z.number()),
  explanation: z.string().nullable(),
}).strict();

const summarySchema = z.object({
  scanned: z.boolean(),
  scanId: z.uuid().nullable(),
  scannedAt: z.string().nullable(),
  contacts: z.number().int(),
  score: z.number().int().nullable().describe('Out of 100'),
  formula: z.string(),
  categories: z.array(categorySchema),
  history: z.array(z.object({
    scanId: z.uuid(), score: z.number().int(), contacts: z.number().int(), scannedAt: z.string(), categories: z.record(categoryEnum, z.number().int()),
  }).strict()),
}).strict();

const checkKeyEnum = z.enum(CHECKS.map((c) => c.key) as [(typeof CHECKS)[number]['key'], ...Array<(typeof CHECKS)[number]['key']>]);
const checkSchema = z.object({
  key: checkKeyEnum, category: categoryEnum, title: z.string(), fix: z.string().nullable().describe('The fix that mends it (people_preview_data_quality_fix or _special_fix), if any'),
  affected: z.number().int(),
}).strict();

const contactBrief = z.object({
  contactId: z.uuid(), name: z.string(), email: z.string().nullable(), phone: z.string().nullable(), postcode: z.string().nullable(),
  dateOfBirth: z.string().nullable(), createdAt: z.string(),
}).strict();

const duplicateSchema = z.object({
  id: z.uuid(),
  kind: z.enum(['email', 'phone', 'fuzzy']),
  confidence: z.number().int().describe('0-100; exact groups are 100'),
  reason: z.string().describe('Why they matched, in a sentence'),
  reasons: z.array(z.object({ kind: z.string(), detail: z.string(), similarity: z.number().optional() }).strict()),
  dismissed: z.boolean(),
  stillDuplicate: z.boolean().describe('false when fewer than two of them are still live (merged or deleted since the scan)'),
  contacts: z.array(contactBrief),
}).strict();

const pageInput = {
  limit: z.number().int().min(1).max(200).default(50),
  offset: z.number().int().min(0).max(100_000).default(0),
};

const changeSchema = z.object({ field: z.string(), before: z.string().nullable(), after: z.string().nullable() }).strict();
const previewOutput = z.object({
  fix: z.string(),
  previewHash: z.string().describe('Pass to the apply tool: it applies exactly this preview, or nothing'),
  rowCount: z.number().int().describe('Contacts the fix would change'),
  changeCount: z.number().int().describe('Fields the fix would change'),
  rows: z.array(z.object({ contactId: z.uuid(), name: z.string(), changes: z.array(changeSchema) }).strict()).describe('The first rows, in contact id order'),
  truncated: z.boolean(),
}).strict();

const scopeInput = z.array(z.uuid()).min(1).max(500).optional().describe('Only these contacts (default: every live contact)');

function shown(preview: Preview, limit: number) {
  return { ...preview, rows: preview.rows.slice(0, limit), truncated: preview.rows.length > limit };
}

const jobResult = z.object({ job: jobSchema, alreadyRunning: z.boolean() }).strict();

// ---------------------------------------------------------------- scan, summary, checks

export const runDataQualityScanTool = tools.write('run_data_quality_scan', {
  title: 'Run a data quality scan',
  description: 'Starts a scan of every live contact as a background job and returns it at once (status queued): it scores the data out of 100 in six categories, lists checks with their affected contacts, finds exact duplicate groups and likely pairs, and fills the review queue. Follow it with people_get_data_quality_job; a scan already running is returned instead of starting another.',
  keywords: ['data quality', 'scan contacts', 'check data', 'duplicates', 'score'],
  examples: ['check the quality of our contact data', 'run a data health check on our people', 'how clean is our database? scan it', 'look for problems in our contact records', 'start a fresh data quality scan', 'find duplicates and bad phone numbers across everyone', 'audit our member records for missing details', 'rescan the database after the tidy-up', 'scan our data', "we've just imported 400 people, check the database for problems", 'can you run a check for duplicates and missing details?'],
  input: z.object({}),
  output: jobResult,
  followUp: FOLLOW_UP,
  run: async (ctx) => {
    const { job, alreadyRunning } = await startScanJob(ctx.db, ctx.org.id, ctx.org.country, ctx.principal.userId);
    return { job: jobView(job), alreadyRunning };
  },
});

export const getDataQualitySummaryTool = tools.read('get_data_quality_summary', {
  title: 'Data quality score',
  description: 'The newest scan\'s score out of 100 and its six category scores (completeness, validity, duplicates, consistency, freshness, contactability), each with its formula and figures so it can be checked by hand, and the history of earlier scans. scanned=false until a scan has finished (people_run_data_quality_scan).',
  keywords: ['data quality score', 'data health', 'how clean', 'scan history'],
  examples: ['what is our data quality score', 'how healthy is our contact data', 'show the data quality history over time', 'how was the completeness score worked out', 'has our data got better since last month', 'what score did the last scan give us', 'why is our contactability score low', 'break down the data quality score by category', 'data quality score?', "after last month's tidy-up I want to know if our score has improved", 'how did we score on freshness?'],
  input: z.object({ historyLimit: z.number().int().min(1).max(100).default(10) }),
  output: summarySchema,
  run: async (ctx, input) => summary(ctx.db, ctx.org.id, input.historyLimit),
});

export const fetchDataQualityDashboardTool = tools.read('fetch_data_quality_dashboard', {
  title: 'Data quality dashboard',
  description: 'Everything the data quality dashboard shows in one answer: the score and category scores with formulas, the checks with most affected contacts, duplicate group and likely pair counts, dismissed counts, the open review queue, and jobs running now.',
  keywords: ['data quality dashboard', 'data overview', 'cleanup dashboard'],
  examples: ['open the data quality dashboard', 'give me the data cleanup overview', 'show me where our contact data needs work', 'what needs tidying in our records', 'data quality at a glance', 'how many duplicates and problems do we have', 'how healthy is our database overall, score and open reviews', 'the data tidy-up page: score, duplicates, review queue and running jobs', 'data tidy-up dashboard', "I'm spending Saturday cleaning our records, show me the whole data quality picture", 'where do I start with fixing our contact data?'],
  input: z.object({}),
  output: z.object({
    summary: summarySchema,
    topChecks: z.array(checkSchema),
    duplicates: z.object({ exactGroups: z.number().int(), fuzzyPairs: z.number().int(), dismissedGroups: z.number().int(), dismissedPairs: z.number().int() }).strict(),
    openQueueItems: z.number().int(),
    runningJobs: z.array(jobSchema),
  }).strict(),
  run: async (ctx) => {
    const scan = await latestScan(ctx.db, ctx.org.id);
    const topChecks = checksOfScan(scan).filter((check) => check.affected > 0).sort((a, b) => b.affected - a.affected).slice(0, 8);
    const dismissed = await dismissedCounts(ctx.db, ctx.org.id, 1);
    const counts = scan
      ? await Promise.all([false, true].map(async (fuzzy) => (await listDuplicates(ctx.db, ctx.org.id, { fuzzy, minConfidence: 0, includeDismissed: false, limit: 1, offset: 0 })).total))
      : [0, 0];
    const running = [
      ...(await listJobs(ctx.db, ctx.org.id, { status: 'running', limit: 10, offset: 0 })).jobs,
      ...(await listJobs(ctx.db, ctx.org.id, { status: 'queued', limit: 10, offset: 0 })).jobs,
    ];
    return {
      summary: await summary(ctx.db, ctx.org.id, 10),
      topChecks,
      duplicates: { exactGroups: counts[0], fuzzyPairs: counts[1], dismissedGroups: dismissed.groups, dismissedPairs: dismissed.pairs },
      openQueueItems: await openQueueCount(ctx.db, ctx.org.id),
      runningJobs: running,
    };
  },
});

export const listDataQualityChecksTool = tools.read('list_data_quality_checks', {
  title: 'Data quality checks',
  description: 'Every check a scan runs, with its category, what it means, the fix that mends it (if any) and how many contacts the newest scan found (0 before any scan). List a check\'s contacts with people_list_data_quality_affected_contacts.',
  keywords: ['data quality checks', 'data problems', 'issues found'],
  examples: ['what problems did the scan find', 'list the data quality checks', 'how many contacts have no postcode', 'which data issues affect the most people', 'how many phone numbers are in the wrong format', 'what kinds of data errors do we check for', 'which data checks flag the most contacts after the last scan', 'show every contact data check with the fix that mends it', 'data problems found', 'I want to fix the worst issues first, which checks flag the most people', 'how many records are missing an email?'],
  input: z.object({ category: categoryEnum.optional() }),
  output: z.object({ scanId: z.uuid().nullable(), checks: z.array(checkSchema) }).strict(),
  run: async (ctx, input) => {
    const scan = await latestScan(ctx.db, ctx.org.id);
    return { scanId: scan?.id ?? null, checks: checksOfScan(scan).filter((check) => !input.category || check.category === input.category) };
  },
});

export const listDataQualityAffectedContactsTool = tools.read('list_data_quality_affected_contacts', {
  title: 'Contacts a data quality check found',
  description: 'The live contacts the newest scan found for one check (people_list_data_quality_checks names them), with a short detail each, a page at a time.',
  keywords: ['affected contacts', 'who has missing', 'contacts with problems', 'flagged by the scan', 'picked up'],
  examples: ['who is missing a date of birth', 'show me the contacts with invalid email addresses', 'which people have no way to contact them', 'list everyone whose name is in capitals', 'who has a phone number we cannot read', 'which records have not been updated in two years', 'which contacts were flagged for a wrong postcode', 'names of the people the check picked up', 'which people did the check find with a bad email address', 'list the contacts behind the missing phone numbers check', 'who has no phone number', 'the scan said 40 people have bad postcodes, list them'],
  input: z.object({ checkKey: checkKeyEnum, ...pageInput }),
  output: z.object({
    scanId: z.uuid(), checkKey: checkKeyEnum, total: z.number().int(),
    contacts: z.array(z.object({ contactId: z.uuid(), name: z.string(), detail: z.string().nullable() }).strict()),
  }).strict(),
  run: async (ctx, input) => affectedContacts(ctx.db, ctx.org.id, input.checkKey, input.limit, input.offset),
});

// ---------------------------------------------------------------- fixes

const fixInput = z.object({ fix: z.enum(FIXES), contactIds: scopeInput, limit: z.number().int().min(1).max(500).default(50).describe('Rows shown (the hash covers them all)') });
const specialFixInput = z.object({ fix: z.enum(SPECIAL_FIXES), contactIds: scopeInput, limit: z.number().int().min(1).max(500).default(50).describe('Rows shown (the hash covers them all)') });

const needsTowns = (fix: AnyFix) => fix === 'uk_postcode';

export const previewDataQualityFixTool = tools.read('preview_data_quality_fix', {
  title: 'Preview a data quality fix',
  description: 'Shows what a format fix would change, row by row (field, before, after), without changing anything (contactIds narrows it to those contacts; an unknown id is not_found): name_case (all-capitals or lower-case names to Title Case), phone_e164 (phone numbers to E.164 in the organisation\'s country), uk_postcode (UK postcodes to standard form, filling the town, county and country they imply where blank), email_format (trimmed, lower case, known domain typos such as gmial.com corrected). Returns a previewHash: people_apply_data_quality_fix applies exactly this preview.',
  keywords: ['preview fix', 'tidy names', 'format phone numbers', 'fix postcodes', 'fix emails'],
  examples: ['what would change if we tidied the capitals in names', 'show me the phone numbers that would be reformatted', 'preview fixing the postcodes', 'which emails would be corrected, like gmial.com', 'dry run of the name case fix', 'let me see the postcode changes before we make them', 'preview putting phone numbers into international format', 'what would the email clean-up change', 'preview the phone tidy', "before we reformat everyone's mobiles I'd like to see what will change", 'what would fixing the email typos do?'],
  input: fixInput,
  output: previewOutput,
  prepare: async (input, deps) => (needsTowns(input.fix) ? lookupImpliedTowns(deps.db, deps.org.id, deps.org.country, input.contactIds) : {}),
  run: async (ctx, input) => shown(await computePreview(ctx.db, ctx.org.id, ctx.org.country, input.fix, input.contactIds, (ctx.prepared ?? {}) as Record<string, never>), input.limit),
});

export const previewDataQualitySpecialFixTool = tools.read('preview_data_quality_special_fix', {
  title: 'Preview a special data quality fix',
  description: 'Shows what a special fix would change, row by row, without changing anything: split_full_name (a whole name typed into the first or last name field becomes first name and surname, the last word being the surname), move_second_email (two addresses in the email field: the first stays, the second moves to the second_email custom field). Returns a previewHash for people_apply_data_quality_special_fix.',
  keywords: ['split name', 'second email', 'special fix', 'full name in one field'],
  examples: ['some people have their full name in the first name box, preview splitting it', 'preview separating two emails typed in one field', 'who has two email addresses in the same field', 'show how the full names would be split', 'dry run of moving the second email address', 'preview fixing names typed all in one box', 'Mary Jane Thomas is all in the first name field, show the split first', 'preview moving second email addresses into their own field', 'preview the name split', "lots of records have 'John and Mary Smith' in one box, show me how it would be split", 'what would moving the extra emails change?'],
  input: specialFixInput,
  output: previewOutput,
  run: async (ctx, input) => shown(await computePreview(ctx.db, ctx.org.id, ctx.org.country, input.fix, input.contactIds, {}), input.limit),
});

const applyOutput = z.object({ job: jobSchema, alreadyApplied: z.boolean().describe('This preview was applied before: its job is returned'), rowCount: z.number().int() }).strict();

export const applyDataQualityFixTool = tools.write('apply_data_quality_fix', {
  title: 'Apply a previewed data quality fix',
  description: `Applies a format fix exactly as previewed: give the fix, the same contactIds (if any) and the previewHash from people_preview_data_quality_fix. If the contacts changed since, the preview would differ and nothing is applied (conflict: preview again). The rows are written by a background job (people_get_data_quality_job shows done / total); a row changed meanwhile is skipped and put in the review queue. Undo with people_trigger_data_quality_jobs (undo_fix) for ${UNDO_DAYS} days.`,
  keywords: ['apply fix', 'clean up data', 'fix formats'],
  examples: ['go ahead and fix the name capitals', 'apply the phone number formatting we previewed', 'yes, tidy the postcodes as shown', 'make the email corrections', 'apply that preview', 'ok, fix the phone numbers now', 'the postcode preview looks right, write it to the records', 'confirm the email typo corrections from the preview hash', 'apply the postcode fix', "I've checked the preview of the name capitals and it's right, so make the changes", 'can you go ahead with the phone number tidy now?'],
  input: z.object({ fix: z.enum(FIXES), previewHash: z.string().max(64).regex(/^[0-9a-f]{64}$/, 'the previewHash a preview returned'), contactIds: scopeInput }),
  output: applyOutput,
  followUp: FOLLOW_UP,
  prepare: async (input, deps) => (needsTowns(input.fix) ? lookupImpliedTowns(deps.db, deps.org.id, deps.org.country, input.contactIds) : {}),
  run: async (ctx, input) => {
    const applied = await startApplyJob(ctx.db, ctx.org.id, ctx.org.country, ctx.principal.userId, input.fix, false, input.previewHash, input.contactIds,
      (ctx.prepared ?? {}) as Record<string, never>);
    return { job: jobView(applied.job), alreadyApplied: applied.alreadyApplied, rowCount: applied.rowCount };
  },
});

export const applyDataQualitySpecialFixTool = tools.write('apply_data_quality_special_fix', {
  title: 'Apply a previewed special fix',
  description: `Applies a special fix (split_full_name, move_second_email) exactly as previewed by people_preview_data_quality_special_fix: same fix, same contactIds, its previewHash; refused with conflict if the preview would now differ. Runs as a background job; undoable for ${UNDO_DAYS} days with people_trigger_data_quality_jobs (undo_fix).`,
  keywords: ['apply split name', 'apply second email'],
  examples: ['split those full names as previewed', 'go ahead and move the second emails', 'apply the name split', 'yes, separate the two email addresses', 'carry out the full-name split we just previewed', 'put the extra email addresses in the second email field now', 'confirm the split of names typed in one box', 'do the second email move for those 12 contacts', 'do the name split', 'the preview of moving second emails looked right, apply it to those contacts', 'can you finish the full-name split now?'],
  input: z.object({ fix: z.enum(SPECIAL_FIXES), previewHash: z.string().max(64).regex(/^[0-9a-f]{64}$/, 'the previewHash a preview returned'), contactIds: scopeInput }),
  output: applyOutput,
  followUp: FOLLOW_UP,
  run: async (ctx, input) => {
    const applied = await startApplyJob(ctx.db, ctx.org.id, ctx.org.country, ctx.principal.userId, input.fix, true, input.previewHash, input.contactIds, {});
    return { job: jobView(applied.job), alreadyApplied: applied.alreadyApplied, rowCount: applied.rowCount };
  },
});

// ---------------------------------------------------------------- duplicates

export const listDataQualityDuplicatesTool = tools.read('list_data_quality_duplicates', {
  title: 'Exact duplicate groups',
  description: 'Groups of contacts the newest scan found sharing an email address (ignoring case) or a phone number (once in E.164), each with its members\' details side by side (the merge preview), confidence 100 and the reason. Dismissed groups are left out unless includeDismissed. Merge with people_merge_data_quality_via_dashboard; dismiss with people_dismiss_data_quality_duplicate_groups.',
  keywords: ['duplicate groups', 'same email', 'same phone', 'duplicates'],
  examples: ['which contacts share an email address', 'show the duplicate records', 'who is on here twice with the same phone number', 'list exact duplicates', 'find people entered more than once', 'show duplicate groups including the ones we dismissed', 'which families share one email address in our records', 'contacts with the same mobile number entered twice', 'exact duplicates', 'before merging I want to see everyone who shares a phone or email', 'have we got people sharing the same email?'],
  input: z.object({ includeDismissed: z.boolean().default(false), ...pageInput }),
  output: z.object({ scanId: z.uuid(), total: z.number().int(), items: z.array(duplicateSchema) }).strict(),
  run: async (ctx, input) => {
    const page = await listDuplicates(ctx.db, ctx.org.id, { fuzzy: false, minConfidence: 0, includeDismissed: input.includeDismissed, limit: input.limit, offset: input.offset });
    return { scanId: page.scanId, total: page.total, items: page.items };
  },
});

export const listDataQualityFuzzyPairsTool = tools.read('list_data_quality_fuzzy_pairs', {
  title: 'Likely duplicate pairs',
  description: 'Pairs of contacts the newest scan thinks may be the same person though no email or phone matches: surnames that sound alike, first names alike (the same, one letter apart, two apart when both have six letters or more, or half their trigrams shared), whole names alike by trigram similarity, with the same date of birth and postcode adding confidence (70 × name similarity + 20 same date of birth + 10 same postcode; pairs whose dates of birth differ are never pairs). Each pair has its reasons and both contacts side by side. Dismissed pairs are left out unless includeDismissed.',
  keywords: ['fuzzy duplicates', 'similar names', 'possible duplicates', 'likely same person'],
  examples: ['are there people who might be the same person', 'find near-duplicate names like Jon and John Smith', 'show likely duplicate pairs', 'possible duplicates with the same birthday', 'which records look similar but are not exact matches', 'show fuzzy matches above 80 percent', 'Margaret and Maggie Hughes, could they be one person', 'similar-sounding surnames the scan paired up', 'near matches on names', 'I think Bob Harris and Robert Harris are the same man, show me pairs like that', 'which records might be the same person with slightly different names?'],
  input: z.object({ minConfidence: z.number().int().min(0).max(100).default(50), includeDismissed: z.boolean().default(false), ...pageInput }),
  output: z.object({ scanId: z.uuid(), total: z.number().int(), items: z.array(duplicateSchema) }).strict(),
  run: async (ctx, input) => {
    const page = await listDuplicates(ctx.db, ctx.org.id, { fuzzy: true, minConfidence: input.minConfidence, includeDismissed: input.includeDismissed, limit: input.limit, offset: input.offset });
    return { scanId: page.scanId, total: page.total, items: page.items };
  },
});

const dismissOutput = z.object({ dismissed: z.number().int(), alreadyDismissed: z.number().int() }).strict();

export const dismissDataQualityDuplicateGroupsTool = tools.write('dismiss_data_quality_duplicate_groups', {
  title: 'Dismiss duplicate groups',
  description: 'Marks exact duplicate groups as not duplicates (a couple sharing an email, a family landline): later scans keep them dismissed, as the dismissal names what they matched on. Restore with people_restore_data_quality_dismissals.',
  keywords: ['dismiss duplicates', 'not a duplicate', 'ignore group'],
  examples: ['these two share an email but are different people', 'ignore that duplicate group, it is a married couple', 'dismiss the family landline group', 'stop flagging those as duplicates', 'the Smiths share a landline, that group is fine', 'husband and wife use one email, not a duplicate', 'mark these shared-phone groups as not duplicates', 'dismiss duplicate group 14, it is a household email', 'not duplicates, dismiss', 'the Patels all use the house phone, so stop showing them as a duplicate group', 'can you ignore the group where the couple share an email?'],
  input: z.object({ groupIds: z.array(z.uuid()).min(1).max(100), reason: z.string().trim().max(300).optional() }),
  output: dismissOutput,
  run: async (ctx, input) => dismiss(ctx.db, ctx.org.id, ctx.principal.userId, false, input.groupIds, input.reason),
});

export const dismissDataQualityFuzzyPairsTool = tools.write('dismiss_data_quality_fuzzy_pairs', {
  title: 'Dismiss likely duplicate pairs',
  description: 'Marks likely pairs as different people (namesakes, twins): later scans keep them dismissed and their review queue items close. Restore with people_restore_data_quality_dismissals.',
  keywords: ['dismiss pair', 'different people', 'not the same person'],
  examples: ['those two John Smiths are different people', 'dismiss that possible duplicate pair', 'they are twins, not duplicates', 'stop suggesting those two are the same person', 'Peter Jones and Peter Jones junior are father and son', 'namesakes, not duplicates: dismiss pair 27', 'the two Ann Adams are different women, drop the pair', 'mark that likely pair as two separate people', "they're twins, dismiss", 'there really are two John Smiths in the parish, stop pairing them as duplicates', 'can you mark Ann and Anne Lee as different people?'],
  input: z.object({ pairIds: z.array(z.uuid()).min(1).max(100), reason: z.string().trim().max(300).optional() }),
  output: dismissOutput,
  run: async (ctx, input) => dismiss(ctx.db, ctx.org.id, ctx.principal.userId, true, input.pairIds, input.reason),
});

export const restoreDataQualityDismissalsTool = tools.write('restore_data_quality_dismissals', {
  title: 'Restore dismissed duplicates',
  description: 'Takes dismissals back, so the groups or pairs show again (from the newest scan, and in every later one): by id (people_get_data_quality_dismissed_counts lists them), or all of one kind, or all.',
  keywords: ['restore dismissed', 'undo dismiss', 'show dismissed duplicates again'],
  examples: ['bring back the duplicates we dismissed', 'undo dismissing that pair', 'restore all dismissed duplicate groups', 'we dismissed those by mistake, show them again', 'restore every dismissed likely pair', 'reinstate the Smith household duplicate group', 'un-dismiss all the exact duplicate groups', 'put the pairs we waved through back in the list', 'undo the dismissals', 'I dismissed the Barker pair too quickly, they might be the same person after all, bring it back', 'can the duplicates we ignored show up again?'],
  input: z.object({
    dismissalIds: z.array(z.uuid()).min(1).max(100).optional(),
    all: z.boolean().optional().describe('Every live dismissal (of kind, if given)'),
    kind: z.enum(['group', 'pair']).optional(),
  }).refine((v) => (v.dismissalIds !== undefined) !== (v.all === true), { message: 'give dismissalIds, or all: true', path: ['dismissalIds'] }),
  output: z.object({ restored: z.number().int() }).strict(),
  run: async (ctx, input) => restoreDismissals(ctx.db, ctx.org.id, input),
});

export const getDataQualityDismissedCountsTool = tools.read('get_data_quality_dismissed_counts', {
  title: 'Dismissed duplicates',
  description: 'How many duplicate groups and likely pairs are dismissed, with the newest dismissals (id, kind, what matched, reason, when) for people_restore_data_quality_dismissals.',
  keywords: ['dismissed count', 'dismissed duplicates', 'ignored duplicates', 'not duplicates list'],
  examples: ['how many duplicates have we dismissed', 'show the pairs we said were different people', 'list dismissed duplicate groups', 'what have we marked as not duplicates', 'duplicates we chose to ignore', 'count of possible duplicates we waved through', 'which duplicates did we mark as fine and why', 'newest dismissals so I can restore one', 'dismissed duplicates count', 'I want to restore one we ignored last week, what have we dismissed recently', "how many pairs have we said aren't duplicates?"],
  input: z.object({ limit: z.number().int().min(1).max(200).default(50) }),
  output: z.object({
    groups: z.number().int(), pairs: z.number().int(),
    dismissals: z.array(z.object({
      dismissalId: z.uuid(), kind: z.enum(['group', 'pair']), matchedOn: z.string(), contactIds: z.array(z.string()), reason: z.string().nullable(), dismissedAt: z.string(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => dismissedCounts(ctx.db, ctx.org.id, input.limit),
});

const mergeResultSchema = z.object({
  keptContactId: z.uuid(),
  mergedContactId: z.uuid(),
  moved: z.object({ notes: z.number().int(), tags: z.number().int(), timelineEntries: z.number().int(), outreachItems: z.number().int() }).strict(),
  fieldsTaken: z.array(z.string()),
}).strict();

export const mergeDataQualityViaDashboardTool = tools.write('merge_data_quality_via_dashboard', {
  title: 'Merge a duplicate group or pair (needs approval)',
  description: 'Merges two contacts a scan showed together (an exact group or a likely pair: its listing is the preview, both contacts side by side) through the same merge as people_merge_data_quality_contacts: notes, tags, timeline, groups and every module\'s records move to the kept contact, its blank fields are filled (fieldChoices picks per field), the other is soft-deleted. Merging cannot be undone by a tool, so the call creates a proposal an owner or admin approves. Two merges of the same pair merge once.',
  keywords: ['merge duplicate', 'merge pair', 'combine records'],
  examples: ['merge that duplicate pair, keep the older record', 'combine the two records in that group', 'merge the likely duplicate, keeping Jean\'s newer email', 'fold the second John Smith into the first', 'merge the pair the scan found', "merge the duplicate group from the scan, keep Sue's older record", 'approve merging pair 31 from the duplicates list', 'join the two Okafor records the scan flagged, keep the phone from the first', 'merge the Barker pair', "the scan paired Grace Obi with Grace O'Bee and they're the same woman, merge them keeping the first", 'can you join up the duplicate group the scan found for Colin?'],
  destructive: true,
  input: z.object({
    duplicateId: z.uuid().describe('The group or pair id from people_list_data_quality_duplicates or _fuzzy_pairs'),
    keepContactId: z.uuid(),
    mergeContactId: z.uuid(),
    fieldChoices: z.record(z.enum(MERGEABLE_FIELDS as [string, ...string[]]), z.enum(['keep', 'merge'])).optional(),
    actionSummary: z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver'),
  }).refine((v) => v.keepContactId !== v.mergeContactId, { message: 'must differ from keepContactId', path: ['mergeContactId'] }),
  output: z.object({ merge: mergeResultSchema }).strict(),
  timeline: (_input, output) => [{
    contactId: output.merge.keptContactId, kind: 'contact_merged', sourceKind: 'contact_merge', sourceId: output.merge.mergedContactId,
    summary: 'Merged a duplicate record into this one; its notes, timeline, family links, groups and follow-ups moved here',
  }],
  approval: { kind: 'gated' },
  run: async (ctx, input) => ({ merge: await mergeViaDashboard(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

// ---------------------------------------------------------------- jobs and queue

export const triggerDataQualityJobsTool = tools.write('trigger_data_quality_jobs', {
  title: 'Start data quality jobs (scan, undo a fix)',
  description: `Starts background jobs: scan (as people_run_data_quality_scan), or undo_fix with fixJobId (the job of an applied fix, within ${UNDO_DAYS} days): every field the fix changed goes back to its value before, unless someone changed it since (then it is left and counted as skipped). Returns the jobs at once; follow them with people_get_data_quality_job.`,
  keywords: ['undo fix', 'revert fix', 'start job', 'rescan'],
  examples: ['undo the name case fix we ran yesterday', 'revert the phone number clean-up', 'put the postcodes back how they were', 'roll back that data fix', 'kick off a rescan job', 'undo the last data quality change', 'we tidied names wrongly, reverse that fix job', "start a background scan and undo last week's email fix", "undo yesterday's fix", 'the postcode tidy on Monday mangled the Welsh addresses, reverse it', 'can you start a rescan in the background?'],
  input: z.object({
    jobs: z.array(z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('scan') }),
      z.object({ kind: z.literal('undo_fix'), fixJobId: z.uuid() }),
    ])).min(1).max(5),
  }),
  output: z.object({ jobs: z.array(jobSchema.extend({ alreadyRunning: z.boolean() }).strict()) }).strict(),
  followUp: FOLLOW_UP,
  run: async (ctx, input) => {
    const out = [];
    for (const request of input.jobs) {
      const started = request.kind === 'scan'
        ? await startScanJob(ctx.db, ctx.org.id, ctx.org.country, ctx.principal.userId)
        : await startUndoJob(ctx.db, ctx.org.id, request.fixJobId, ctx.principal.userId);
      out.push({ ...jobView(started.job), alreadyRunning: started.alreadyRunning });
    }
    return { jobs: out };
  },
});

export const listDataQualityJobsTool = tools.read('list_data_quality_jobs', {
  title: 'Data quality jobs',
  description: 'Scans, fixes and undos, newest first, with progress (done / total), status and result.',
  keywords: ['data quality jobs', 'scan progress', 'fix history'],
  examples: ['is the scan still running', 'show the data fixes we have applied', 'list recent data quality jobs', 'which fixes can still be undone', 'history of data clean-ups run this month', 'any data quality jobs that failed', 'list scans and fixes with their progress', 'which undo jobs have we run', 'data clean-up jobs', 'I ran a few fixes last week and want to see which ones can still be undone', 'are any scans or fixes still running?'],
  input: z.object({ kind: z.enum(JOB_KINDS).optional(), status: z.enum(JOB_STATUSES).optional(), ...pageInput }),
  output: z.object({ total: z.number().int(), jobs: z.array(jobSchema) }).strict(),
  run: async (ctx, input) => listJobs(ctx.db, ctx.org.id, input),
});

export const getDataQualityJobTool = tools.read('get_data_quality_job', {
  title: 'One data quality job',
  description: 'A scan, fix or undo job: status, progress (done of total, percent), its result (a scan\'s score; a fix\'s fields changed and rows skipped; an undo\'s fields reverted) and until when a fix can be undone.',
  keywords: ['job progress', 'scan status', 'fix status'],
  examples: ['how far along is the scan', 'has the fix finished', 'what did that clean-up job change', 'is the undo done yet', 'status of data quality job 42', 'how many rows did the phone fix skip', 'until when can that fix be undone', 'what score did the last scan job give', 'is job 17 finished?', 'the phone tidy I started this morning, how many rows has it done and did any get skipped', 'what did the undo job put back?'],
  input: z.object({ jobId: z.uuid() }),
  output: z.object({ job: jobSchema }).strict(),
  run: async (ctx, input) => ({ job: jobView(await requireJob(ctx.db, ctx.org.id, input.jobId)) }),
});

const queueItemSchema = z.object({
  id: z.uuid(),
  kind: z.string(),
  summary: z.string(),
  status: z.enum(QUEUE_STATUSES),
  decision: z.string().nullable(),
  note: z.string().nullable(),
  contactCount: z.number().int(),
  contacts: z.array(contactBrief),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
}).strict();

export const listDataQualityQueueTool = tools.read('list_data_quality_queue', {
  title: 'Data quality review queue',
  description: 'What needs a person\'s decision: likely duplicate pairs (confidence 70+), phone numbers nobody can read, and contacts a fix skipped because they changed after its preview. Open items by default; decide with people_review_data_quality_queue_item.',
  keywords: ['review queue', 'needs decision', 'data quality queue'],
  examples: ['what data problems need me to decide', 'show the data review queue', 'which possible duplicates need checking', 'what did the fix skip', 'anything waiting for review in the data clean-up', 'phone numbers nobody can read, waiting for a decision', 'open items in the data review list', 'show resolved review queue items too', 'data review queue', "I've got twenty minutes to tidy records, what's waiting for a decision", 'are there possible duplicates I need to check?'],
  input: z.object({ status: z.enum(QUEUE_STATUSES).default('open'), kind: z.enum(QUEUE_KINDS).optional(), ...pageInput }),
  output: z.object({ total: z.number().int(), items: z.array(queueItemSchema) }).strict(),
  run: async (ctx, input) => listQueue(ctx.db, ctx.org.id, input),
});

export const reviewDataQualityQueueItemTool = tools.write('review_data_quality_queue_item', {
  title: 'Decide a review queue item',
  description: 'Records a decision on an open review queue item: resolve (dealt with: merged, corrected by hand) or dismiss (for a likely pair: they are different people, and the pair stays dismissed in later scans). An item already decided is refused (conflict).',
  keywords: ['review item', 'decide duplicate', 'resolve queue'],
  examples: ['those two are different people, dismiss it', 'mark that queue item as done', 'I fixed the phone number by hand, resolve it', 'close the review item for the Browns', 'resolve review item 9, I merged them myself', 'dismiss the likely pair in the queue, they are cousins', 'record a decision on that data review item', 'mark the skipped contact as dealt with', 'resolve that review item', 'I rang Hilda and fixed her phone number myself, so close that item in the queue', "can you dismiss the pair in the queue, they're sisters?"],
  input: z.object({ itemId: z.uuid(), decision: z.enum(['resolve', 'dismiss']), note: z.string().trim().max(500).optional() }),
  output: z.object({ item: queueItemSchema }).strict(),
  run: async (ctx, input) => ({ item: await reviewQueueItem(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

export const dataQualityTools = [
  runDataQualityScanTool, getDataQualitySummaryTool, fetchDataQualityDashboardTool, listDataQualityChecksTool, listDataQualityAffectedContactsTool,
  previewDataQualityFixTool, applyDataQualityFixTool, previewDataQualitySpecialFixTool, applyDataQualitySpecialFixTool,
  listDataQualityDuplicatesTool, listDataQualityFuzzyPairsTool, dismissDataQualityDuplicateGroupsTool, dismissDataQualityFuzzyPairsTool,
  restoreDataQualityDismissalsTool, getDataQualityDismissedCountsTool, mergeDataQualityViaDashboardTool,
  triggerDataQualityJobsTool, listDataQualityJobsTool, getDataQualityJobTool, listDataQualityQueueTool, reviewDataQualityQueueItemTool,
];

