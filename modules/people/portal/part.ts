import type { ModulePart } from '../../module';
import { createPortalInviteActivities } from './activities';
import { portalInviteDelivery } from './invites';
import { portal } from './migrations/2026.11.28T15.00.00.portal';
import { portalModels } from './models';
import { portalPages } from './pages';
import { portalRoutes } from './routes';
import { portalTools } from './tools';

/**
 * The member portal: invitations sent through the shared outbox with channels' recipient check,
 * moderation of members' posts, sign-up capture sessions, the administration routes (the `portal`
 * route surface, reached by platform_portal_invoke_api_*), and the member-facing pages.
 */
export const portalPart: ModulePart = {
  name: 'portal',
  tools: portalTools,
  models: [...portalModels],
  migrations: [portal],
  routes: portalRoutes,
  outboxSources: [portalInviteDelivery],
  activities: [createPortalInviteActivities],
  webhooks: [portalPages],
  // Invites, sessions and posts are the person's own: merge moves them to the kept contact, erasure deletes them.
  contactRefs: [
    { table: 'portal_invites', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'portal_sessions', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'portal_posts', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  ],
};
