import { z } from 'zod';
import type { ModulePart } from '../../../module';
import { urgentPrayerRule } from './alerts';
import { communityRoster } from './migrations/2026.11.24T03.20.01.community-roster';
import { prayerVisits } from './migrations/2026.11.24T03.20.00.prayer-visits';
import { prayerVisitsMetrics } from './metrics';
import { prayerVisitsModels } from './models';
import { countRoster, getCommunitySettings } from './roster';
import { communityRosterTools } from './tools/community';
import { prayerTools } from './tools/prayer';
import { visitTools } from './tools/visits';

/** Prayer requests, pastoral visits and the community roster with its settings. */
export const prayerVisitsPart: ModulePart = {
  name: 'prayer-visits',
  tools: [...prayerTools, ...visitTools, ...communityRosterTools],
  models: [...prayerVisitsModels],
  migrations: [prayerVisits, communityRoster],
  alerts: [urgentPrayerRule],
  metrics: prayerVisitsMetrics,
  // Every row names one person: erasure deletes them; merge moves them (a roster row merges into the kept one by trigger).
  contactRefs: [
    { table: 'prayer_requests', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'pastoral_visits', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'community_memberships', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  ],
  overview: {
    shape: { communityMembers: z.number().int().describe('Contacts on the community roster now') },
    async compute(ctx) {
      const settings = await getCommunitySettings(ctx.db, ctx.org.id);
      return { communityMembers: (await countRoster(ctx.db, ctx.org.id, settings.newMemberWindowDays)).current };
    },
  },
};
