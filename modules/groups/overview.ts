import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { queryOne } from '../../db/pool';
import type { OverviewContribution } from '../module';
import { viewerOf } from './access';

/** platform_overview's small groups line: live groups, members, how many take members now, and join requests waiting. */
export const groupsOverview: OverviewContribution = {
  shape: {
    smallGroups: z.object({
      active: z.number().int(), members: z.number().int().describe('Distinct people in a live group (leaders included)'),
      openForJoining: z.number().int(), pendingJoinRequests: z.number().int(),
    }).strict().nullable().describe('Small groups you can see (not CRM ministry teams); null without groups:read'),
  },
  compute: async (ctx) => {
    if (!hasScope(ctx.principal, 'groups:read')) return { smallGroups: null };
    const viewer = await viewerOf(ctx.db, ctx.org.id, ctx.principal);
    const row = await queryOne<{ active: number; members: number; open: number; pending: number }>(ctx.db, `
      WITH visible AS (SELECT * FROM groups_groups WHERE org_id = $1 AND archived_at IS NULL AND ($2::boolean OR id = ANY($3::uuid[])))
      SELECT (SELECT count(*)::int FROM visible) AS active,
        (SELECT count(DISTINCT m.contact_id)::int FROM groups_memberships m JOIN visible v ON v.id = m.group_id WHERE m.left_at IS NULL) AS members,
        (SELECT count(*)::int FROM visible v WHERE v.enrolment <> 'closed' AND v.auto_closed_reason IS NULL AND (v.closes_on IS NULL OR v.closes_on >= current_date)
           AND (v.member_limit IS NULL OR v.member_limit > (SELECT count(*) FROM groups_memberships m WHERE m.group_id = v.id AND m.left_at IS NULL AND m.role = 'member'))) AS open,
        (SELECT count(*)::int FROM groups_join_requests r JOIN visible v ON v.id = r.group_id WHERE r.status = 'pending') AS pending`,
    [ctx.org.id, viewer.staff, [...viewer.leads]]);
    return { smallGroups: { active: row!.active, members: row!.members, openForJoining: row!.open, pendingJoinRequests: row!.pending } };
  },
};
