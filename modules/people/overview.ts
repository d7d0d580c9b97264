import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { SAFEGUARDING_SCOPE } from '../../core/scopes';
import { queryRows, type Queryable } from '../../db/pool';
import type { OverviewContribution } from '../module';
import { countByMembershipStatus, countContacts } from './contacts';
import { visibleNoteSql } from './notes';

/** What people adds to platform_overview: contact totals and notes with open follow-ups. */
export const peopleOverview: OverviewContribution = {
  shape: {
    contacts: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()), byMembershipStatus: z.record(z.string(), z.number().int()) }).strict(),
    openFollowUps: z.number().int(),
  },
  async compute(ctx) {
    const contacts = await countContacts(ctx.db, ctx.org.id);
    return {
      contacts: { ...contacts, byMembershipStatus: await countByMembershipStatus(ctx.db, ctx.org.id) },
      openFollowUps: await openFollowUps(ctx.db, ctx.org.id, hasScope(ctx.principal, SAFEGUARDING_SCOPE)),
    };
  },
};

/** Counted like the follow-up list: restricted notes only for callers holding people:safeguarding. */
async function openFollowUps(db: Queryable, orgId: string, canSeeRestricted: boolean): Promise<number> {
  const rows = await queryRows<{ n: number }>(db, `
    SELECT count(*)::int AS n FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.deleted_at IS NULL
    WHERE n.org_id = $1 AND n.follow_up_date IS NOT NULL AND NOT n.follow_up_completed
      AND ${visibleNoteSql('n', canSeeRestricted)}`, [orgId]);
  return rows[0]?.n ?? 0;
}
