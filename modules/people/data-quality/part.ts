import path from 'node:path';
import type { ModulePart } from '../../module';
import { defineWidget } from '../../widget';
import { createDataQualityActivities } from '../activities/data-quality';
import { dataQuality } from './migrations/2026.11.28T13.00.00.data-quality';
import { dataQualityModels } from './models';
import { dataQualityRoutes } from './routes';
import { UNDO_DAYS } from './rules';
import { dataQualityTools } from './tools';

/**
 * Data quality: scans scoring the organisation's people data, checks with their contacts,
 * duplicates (exact groups and likely pairs), previewed fixes that can be undone, jobs and the
 * review queue. See README.md beside this file for every formula.
 */
export const dataQualityPart: ModulePart = {
  name: 'data-quality',
  tools: dataQualityTools,
  routes: dataQualityRoutes,
  models: [...dataQualityModels],
  migrations: [dataQuality],
  activities: [createDataQualityActivities],
  // Scan rows and fix records name contacts only as what was found or changed: a merge leaves them
  // to the next scan; erasure deletes them.
  contactRefs: [
    { table: 'dq_scan_hits', column: 'contact_id', onMerge: 'custom', onErase: 'delete' },
    { table: 'dq_changes', column: 'contact_id', onMerge: 'custom', onErase: 'delete' },
    { table: 'dq_duplicates', column: 'contact_ids', list: true, onMerge: 'custom', onErase: 'delete' },
    { table: 'dq_queue', column: 'contact_ids', list: true, onMerge: 'custom', onErase: 'delete' },
  ],
  retention: [
    {
      // The rows behind a fix (before and after values) are kept while it can be undone.
      name: 'data_quality_fix_records',
      purge: async (db) => {
        const changes = await db.query(`DELETE FROM dq_changes WHERE applied_at < now() - interval '${UNDO_DAYS + 1} days'`);
        const previews = await db.query(`DELETE FROM dq_previews WHERE created_at < now() - interval '${UNDO_DAYS + 1} days'`);
        return (changes.rowCount ?? 0) + (previews.rowCount ?? 0);
      },
    },
    {
      // Scores stay in the history; what each check found is kept for the newest three scans of each organisation.
      name: 'data_quality_scan_details',
      purge: async (db) => {
        const old = `SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY org_id ORDER BY created_at DESC) AS n FROM dq_scans) s WHERE s.n > 3`;
        const hits = await db.query(`DELETE FROM dq_scan_hits WHERE scan_id IN (${old})`);
        const found = await db.query(`DELETE FROM dq_duplicates WHERE scan_id IN (${old})`);
        return (hits.rowCount ?? 0) + (found.rowCount ?? 0);
      },
    },
  ],
  widgets: [
    defineWidget({
      id: 'people-data-quality',
      module: 'people',
      title: 'Data quality dashboard',
      description: 'The data quality score with its six category scores and formulas, the checks with most contacts, duplicates, the review queue and running jobs.',
      tools: ['people_fetch_data_quality_dashboard'],
      script: path.join(__dirname, '..', 'widgets', 'data-quality.mts'),
    }),
  ],
};
