import { z } from 'zod';
import { curatedVia, queryValue, readVia, routesFor } from '../../routes';
import { CATEGORIES, CHECKS, FIXES, SPECIAL_FIXES } from './rules';
import {
  applyDataQualityFixTool, applyDataQualitySpecialFixTool, dismissDataQualityDuplicateGroupsTool, dismissDataQualityFuzzyPairsTool,
  fetchDataQualityDashboardTool, getDataQualityDismissedCountsTool, getDataQualityJobTool, getDataQualitySummaryTool,
  listDataQualityAffectedContactsTool, listDataQualityChecksTool, listDataQualityDuplicatesTool, listDataQualityFuzzyPairsTool,
  listDataQualityJobsTool, listDataQualityQueueTool, mergeDataQualityViaDashboardTool, previewDataQualityFixTool,
  previewDataQualitySpecialFixTool, restoreDataQualityDismissalsTool, reviewDataQualityQueueItemTool, runDataQualityScanTool,
  triggerDataQualityJobsTool, JOB_KINDS, JOB_STATUSES, QUEUE_KINDS, QUEUE_STATUSES,
} from './tools';

/**
 * Data quality's dashboard routes (reached by people_invoke_api_read/_write, /api/people/data-quality/…
 * and the OpenAPI document), one for each data quality tool. A read answers what its read tool
 * answers (the same input checks, defaults and refusals: a foreign id is not_found). Every write is
 * done by a curated tool, which the route names: starting a scan, fix or undo needs the tool's
 * follow-up to start the job's workflow, a merge needs its approval, and the spec sends writes a
 * curated tool covers to that tool (the bridges answer use_workflow_tool).
 */
const routes = routesFor('people', { read: 'people:read', write: 'people:write' });
const checkKeys = CHECKS.map((check) => check.key) as [(typeof CHECKS)[number]['key'], ...Array<(typeof CHECKS)[number]['key']>];
const page = { limit: queryValue.integer(1, 200).default(50), offset: queryValue.integer(0, 100_000).default(0) };
// A query value reaches a route through the bridges as at most 500 characters: 13 ids and their commas.
const previewQuery = z.object({
  contactIds: queryValue.uuids(13).optional().describe('Only these contacts, comma-separated, at most 13 (default: every live contact); the preview tools take up to 500'),
  limit: queryValue.integer(1, 500).default(50),
}).strict();

export const dataQualityRoutes = [
  // ------------------------------------------------------------ scan, summary, checks
  routes.get('data-quality/dashboard', {
    summary: 'The data quality dashboard: score and categories, top checks, duplicate counts, open review items, running jobs',
    ...readVia(fetchDataQualityDashboardTool),
  }),
  routes.get('data-quality/summary', {
    summary: 'The data quality score of the newest scan, its six category scores with their formulas, and the scan history',
    query: z.object({ historyLimit: queryValue.integer(1, 100).default(10) }).strict(),
    ...readVia(getDataQualitySummaryTool),
  }),
  routes.get('data-quality/checks', {
    summary: 'The data quality checks of the newest scan with how many contacts each affects',
    query: z.object({ category: z.enum(CATEGORIES).optional() }).strict(),
    ...readVia(listDataQualityChecksTool),
  }),
  routes.get('data-quality/checks/{checkKey}/contacts', {
    summary: 'The contacts one data quality check found in the newest scan',
    params: z.object({ checkKey: z.enum(checkKeys) }).strict(),
    query: z.object(page).strict(),
    ...readVia(listDataQualityAffectedContactsTool),
  }),
  routes.post('data-quality/scans', { summary: 'Start a data quality scan as a background job', ...curatedVia(runDataQualityScanTool) }),

  // ------------------------------------------------------------ fixes
  routes.get('data-quality/fixes/{fix}/preview', {
    summary: 'Preview a data quality format fix row by row (field, before, after) with the hash that applies it',
    params: z.object({ fix: z.enum(FIXES) }).strict(),
    query: previewQuery,
    ...readVia(previewDataQualityFixTool),
  }),
  routes.post('data-quality/fixes/{fix}/apply', { summary: 'Apply a previewed data quality format fix', params: z.object({ fix: z.enum(FIXES) }).strict(), ...curatedVia(applyDataQualityFixTool, 'fix') }),
  routes.get('data-quality/special-fixes/{fix}/preview', {
    summary: 'Preview a special data quality fix (split a full name, move a second email) row by row',
    params: z.object({ fix: z.enum(SPECIAL_FIXES) }).strict(),
    query: previewQuery,
    ...readVia(previewDataQualitySpecialFixTool),
  }),
  routes.post('data-quality/special-fixes/{fix}/apply', {
    summary: 'Apply a previewed special data quality fix', params: z.object({ fix: z.enum(SPECIAL_FIXES) }).strict(), ...curatedVia(applyDataQualitySpecialFixTool, 'fix'),
  }),

  // ------------------------------------------------------------ duplicates
  routes.get('data-quality/duplicates', {
    summary: 'Exact duplicate groups (same email or phone) of the newest scan, members side by side',
    query: z.object({ includeDismissed: queryValue.boolean().default(false), ...page }).strict(),
    ...readVia(listDataQualityDuplicatesTool),
  }),
  routes.get('data-quality/fuzzy-pairs', {
    summary: 'Likely duplicate pairs (alike names, dates of birth, postcodes) of the newest scan, with reasons and confidence',
    query: z.object({ minConfidence: queryValue.integer(0, 100).default(50), includeDismissed: queryValue.boolean().default(false), ...page }).strict(),
    ...readVia(listDataQualityFuzzyPairsTool),
  }),
  routes.post('data-quality/duplicates/dismissals', { summary: 'Dismiss exact duplicate groups as not duplicates', ...curatedVia(dismissDataQualityDuplicateGroupsTool) }),
  routes.post('data-quality/fuzzy-pairs/dismissals', { summary: 'Dismiss likely duplicate pairs as different people', ...curatedVia(dismissDataQualityFuzzyPairsTool) }),
  routes.get('data-quality/dismissals', {
    summary: 'Dismissed duplicate groups and pairs: counts and the newest dismissals',
    query: z.object({ limit: queryValue.integer(1, 200).default(50) }).strict(),
    ...readVia(getDataQualityDismissedCountsTool),
  }),
  routes.post('data-quality/dismissals/restore', { summary: 'Restore dismissed duplicate groups or pairs', ...curatedVia(restoreDataQualityDismissalsTool) }),
  routes.post('data-quality/merges', { summary: 'Merge two contacts of a duplicate group or pair (needs approval)', ...curatedVia(mergeDataQualityViaDashboardTool) }),

  // ------------------------------------------------------------ jobs and review queue
  routes.get('data-quality/jobs', {
    summary: 'Data quality jobs (scans, fixes, undos), newest first, with progress',
    query: z.object({ kind: z.enum(JOB_KINDS).optional(), status: z.enum(JOB_STATUSES).optional(), ...page }).strict(),
    ...readVia(listDataQualityJobsTool),
  }),
  routes.get('data-quality/jobs/{jobId}', {
    summary: 'One data quality job: status, progress (done of total), result, until when a fix can be undone',
    params: z.object({ jobId: z.uuid() }).strict(),
    ...readVia(getDataQualityJobTool),
  }),
  routes.post('data-quality/jobs', { summary: 'Start data quality jobs: a scan, or undo a fix', ...curatedVia(triggerDataQualityJobsTool) }),
  routes.get('data-quality/queue', {
    summary: 'The data quality review queue: what needs a person\'s decision (open by default)',
    query: z.object({ status: z.enum(QUEUE_STATUSES).default('open'), kind: z.enum(QUEUE_KINDS).optional(), ...page }).strict(),
    ...readVia(listDataQualityQueueTool),
  }),
  routes.post('data-quality/queue/{itemId}/decision', {
    summary: 'Resolve or dismiss a data quality review queue item',
    params: z.object({ itemId: z.uuid() }).strict(),
    ...curatedVia(reviewDataQualityQueueItemTool, 'itemId'),
  }),
];
