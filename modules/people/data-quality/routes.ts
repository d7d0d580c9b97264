import { z } from 'zod';
import { queryValue, readVia, routesFor } from '../../routes';
import { CATEGORIES, CHECKS } from './rules';
import { getDataQualitySummaryTool, listDataQualityAffectedContactsTool, listDataQualityChecksTool } from './tools';

/**
 * Data quality's dashboard routes (reached by people_invoke_api_read, /api/people/data-quality/…
 * and the OpenAPI document): the newest scan's summary, its checks, and one check's contacts.
 * Each answers what its read tool answers.
 */
const routes = routesFor('people', { read: 'people:read', write: 'people:write' });
const checkKeys = CHECKS.map((check) => check.key) as [(typeof CHECKS)[number]['key'], ...Array<(typeof CHECKS)[number]['key']>];
const page = { limit: queryValue.integer(1, 200).default(50), offset: queryValue.integer(0, 100_000).default(0) };

export const dataQualityRoutes = [
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
];
