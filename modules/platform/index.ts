import { OPERATOR_SCOPE } from '../../core/scopes';
import { platformRoutes } from './routes';
import { operatorRoutes } from './operator-routes';
import { operators } from './migrations/2026.11.28T18.10.00.operators';
import { createTeamInviteActivities } from './activities/team-invite';
import { defineModule, withParts, type MeterDefinition } from '../module';
import { mediaPart } from './media/part';
import { brandPart } from './brand/part';
import { alertsPart } from './alerts/part';
import { platformModels } from './models';
import { init } from './migrations/2026.11.22T00.20.00.init';
import { oauth } from './migrations/2026.11.22T01.00.00.oauth';
import { approvals } from './migrations/2026.11.22T01.30.00.approvals';
import { outboxLease } from './migrations/2026.11.22T02.00.00.outbox-lease';
import { rowLevelSecurity } from './migrations/2026.11.23T00.00.00.row-level-security';
import { outboxSources } from './migrations/2026.11.23T00.10.00.outbox-sources';
import { teamInvites } from './migrations/2026.11.24T01.00.00.team-invites';
import { capabilityGaps } from './migrations/2026.11.24T01.10.00.capability-gaps';
import { outboxHtml } from './migrations/2026.11.24T01.20.00.outbox-html';
import { capabilityGapResolution } from './migrations/2026.11.24T03.50.01.capability-gap-resolution';
import { payloadKeyCheck } from './migrations/2026.11.28T16.00.00.payload-key-check';
import { teamInviteDelivery } from './team-invite-delivery';
import { platformTools } from './tools';
import { platformWidgets } from './widgets';
import { platformRetention } from './retention';

/**
 * Metered features of modules not built yet (spec 4.3): the platform holds their plan
 * allowances so platform_usage reports them; each moves to its module's definition when
 * that module lands, and until then public pages leave it out (`forModule`).
 */
const FEATURES_OF_MODULES_TO_COME: readonly MeterDefinition[] = [];

export default defineModule(withParts({
  name: 'platform',
  title: 'Platform',
  description: 'Account, usage and billing, tool discovery, agent proposals and autonomous agents.',
  tools: platformTools,
  models: platformModels,
  // The first migrations predate modules owning their tables: init and approvals also create
  // the people module's first tables. They keep their names so existing databases upgrade in place.
  migrations: [init, oauth, approvals, outboxLease, rowLevelSecurity, outboxSources, teamInvites, capabilityGaps, outboxHtml, capabilityGapResolution, payloadKeyCheck, operators],
  outboxSources: [teamInviteDelivery],
  retention: platformRetention,
  // platform:admin is the installation operator's (core/scopes.ts OPERATOR_SCOPE): no organisation's role holds it.
  scopes: ['platform:read', 'platform:write', OPERATOR_SCOPE],
  routes: [...platformRoutes, ...operatorRoutes],
  widgets: platformWidgets,
  meters: FEATURES_OF_MODULES_TO_COME,
  workflows: require.resolve('./workflows'),
  activities: [createTeamInviteActivities],
}, [mediaPart, brandPart, alertsPart]));
