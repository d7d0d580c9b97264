import { defineModule } from '../module';
import { moderationWaitingRule } from './alerts';
import { communityPosts } from './migrations/2026.11.24T03.20.10.community-posts';
import { communityModels } from './models/posts';
import { communityPlaybooks } from './playbooks';
import { boardTools } from './tools/board';
import { followUpRadarTool, getSummaryTool, listRosterTool, setRosterMembershipTool } from './tools/people';

/**
 * The congregation-facing side of pastoral care: the community roster, a moderated prayer wall,
 * celebrations of life events shared with consent, and the follow-up radar. Prayer requests, life
 * events, visits and the roster itself belong to the people module; this module reaches them
 * through people's services and published views only, and owns the board's posts.
 */
export default defineModule({
  name: 'community',
  title: 'Community',
  description: 'Community roster, moderated prayer wall, celebrations of life events shared with consent, and the follow-up radar.',
  // The radar names which other modules' signals it could not read, so it is built against the registry.
  tools: (modules) => [...boardTools, listRosterTool, setRosterMembershipTool, followUpRadarTool(modules), getSummaryTool],
  models: [...communityModels],
  migrations: [communityPosts],
  scopes: ['community:read', 'community:write'],
  uses: ['people', 'attendance', 'guests'],
  routes: [],
  alerts: [moderationWaitingRule],
  playbooks: communityPlaybooks,
  contactRefs: [{ table: 'community_posts', column: 'contact_id', onMerge: 'move', onErase: 'delete' }],
});
