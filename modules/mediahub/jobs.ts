import { withTenantTransaction } from '../../db/pool';
import type { ModuleJob } from '../module';
import { plansBetween } from '../runsheet/api';
import { draftEpisodeForPlan } from './episodes';

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
      const outcome = await withTenantTransaction(pool, plan.orgId, (db) => draftEpisodeForPlan(db, plan.orgId, plan.planId));
      if (outcome === 'created') counts.created += 1;
      else if (outcome === 'exists') counts.exists += 1;
      else counts.noSeries += 1;
    }
    return counts;
  },
};
