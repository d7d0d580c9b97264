import { queryOne, withTenantTransaction } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import type { ModuleJob } from '../module';
import { plansBetween } from '../runsheet/api';
import { draftEpisodeForPlan } from './episodes';
import { archiveRetentionDays, removeArchivedObjects } from './items';

/** How far ahead a service plan gets its draft episode. */
const AHEAD_DAYS = 7;

export const draftEpisodesJob: ModuleJob = {
  name: 'mediahub.draft_episodes',
  description: `Gives each service plan in the next ${AHEAD_DAYS} days a draft sermon episode (title, speaker, scripture and songs from the plan)`,
  everyMs: 6 * 3_600_000,
  run: async (pool, { now, orgId }) => {
    const plans = await plansBetween(pool, orgId ?? null, now, new Date(now.getTime() + AHEAD_DAYS * 86_400_000));
    const counts = { created: 0, exists: 0, noSeries: 0 };
    for (const plan of plans) {
      const outcome = await withTenantTransaction(pool, plan.orgId, async (db) => {
        const drafted = await draftEpisodeForPlan(db, plan.orgId, plan.planId);
        const episode = drafted === 'created' ? await queryOne<{ id: string }>(db, 'SELECT id FROM mediahub_episodes WHERE org_id = $1 AND plan_id = $2', [plan.orgId, plan.planId]) : null;
        if (episode) {
          await recordJobChange(db, {
            orgId: plan.orgId, channel: 'job:mediahub.draft_episodes', module: 'mediahub', noun: 'episode', verb: 'create', target: { type: 'episode', id: episode.id },
            fields: { status: 'draft', planId: plan.planId },
          });
        }
        return drafted;
      });
      if (outcome === 'created') counts.created += 1;
      else if (outcome === 'exists') counts.exists += 1;
      else counts.noSeries += 1;
    }
    return counts;
  },
};

/**
 * Archived items' stored objects (the original, its still, a leftover upload) are removed from the
 * store once the item has been archived for the retention period (`MEDIAHUB_ARCHIVE_RETENTION_DAYS`,
 * default 30; 0 removes them at the next run). The row stays, marked with when its objects went.
 */
export const removeArchivedObjectsJob: ModuleJob = {
  name: 'mediahub.remove_archived_objects',
  description: 'Removes the stored files of media items archived longer than the retention period',
  everyMs: 6 * 3_600_000,
  run: async (pool, { now, orgId }) => removeArchivedObjects(pool, { before: new Date(now.getTime() - archiveRetentionDays() * 86_400_000), orgId }),
};
