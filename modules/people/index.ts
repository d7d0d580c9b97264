import { defineModule, withParts } from '../module';
import { createPastoralGriefActivities } from './activities/grief-plan';
import { createOutreachActivities } from './activities/outreach';
import { createSafeguardingStatusActivities } from './activities/safeguarding-status';
import { peopleModels } from './models';
import { people } from './migrations/2026.11.22T01.10.00.people';
import { rowLevelSecurity } from './migrations/2026.11.23T00.00.01.row-level-security';
import { peopleDirectory } from './migrations/2026.11.24T00.30.00.people-directory';
import { outreachDelivery } from './outreach-delivery';
import { peopleTools } from './tools';
import { peopleWidgets } from './widgets';
import { countLiveContacts } from './contacts';
import { peopleOverview } from './overview';
import { peopleMetrics } from './metrics';
import { peopleAgents } from './agents';
import { peopleContactRefs } from './contact-refs';
import { peopleRetention } from './retention';
import { peopleRoutes } from './routes';
import { peoplePlaybooks } from './playbooks';
import { timelineRestricted } from './migrations/2026.11.24T02.00.00.timeline-restricted';
import { lifeEventsPart } from './pastoral/life-events/part';
import { carePart } from './pastoral/care/part';
import { prayerVisitsPart } from './pastoral/prayer-visits/part';
import { peopleAlertRules } from './alerts';
import { dataQualityPart } from './data-quality/part';
import { CONTACT_ALLOWANCES } from './dashboard/crm';
import { dashboardPart } from './dashboard/part';
import { portalPart } from './portal/part';
import { semanticPart } from './semantic/part';

// Pastoral care lives in parts under pastoral/: the same module, scopes and schema lock, kept in folders of their own.
export default defineModule(withParts({
  name: 'people',
  title: 'People',
  description: 'Contacts, households and families, tags, groups, segments, pastoral notes, care timeline, outreach and automations.',
  tools: peopleTools,
  models: peopleModels,
  migrations: [people, rowLevelSecurity, peopleDirectory, timelineRestricted],
  // Approved pastoral messages leave through the shared outbox.
  outboxSources: [outreachDelivery],
  overview: peopleOverview,
  metrics: peopleMetrics,
  alerts: peopleAlertRules,
  retention: peopleRetention,
  scopes: ['people:read', 'people:write', 'people:safeguarding'],
  uses: ['platform', 'audit'],
  routes: peopleRoutes,
  playbooks: peoplePlaybooks,
  widgets: peopleWidgets,
  // The contacts allowance caps how many people an organisation holds at once, whenever they were added.
  meters: [{ feature: 'contacts', allowances: CONTACT_ALLOWANCES, standingCount: countLiveContacts }],
  agents: peopleAgents,
  contactRefs: peopleContactRefs,
  workflows: require.resolve('./workflows'),
  activities: [createOutreachActivities, createPastoralGriefActivities, createSafeguardingStatusActivities],
  // Daily: each safeguarding check's status follows its dates.
  schedules: [{
    id: 'safeguarding-status', workflowType: 'safeguardingStatusWorkflow', everyMs: 24 * 3_600_000,
    note: 'Moves safeguarding checks to expiring or overdue as their dates pass',
  }],
}, [lifeEventsPart, carePart, prayerVisitsPart, dataQualityPart, dashboardPart, portalPart, semanticPart]));
