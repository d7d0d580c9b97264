import { defineModule } from '../module';
import { membersMissingMeetings } from './health';
import { closeEnrolmentPastClosingDate } from './jobs';
import { groupsMetrics } from './metrics';
import { groupsMigration } from './migrations/2026.11.28T02.00.00.groups';
import { groupsModels } from './models';
import { groupsOverview } from './overview';
import { groupsPlaybooks } from './playbooks';
import { groupsRoutes } from './routes';
import { groupsTools } from './tools';
import { groupsWidgets } from './widgets';

/**
 * Small groups: cell, home and house groups, classes. Group types; groups with their schedule,
 * place or online link, visibility and confidential rosters; enrolment (open, request to join,
 * closed; a member limit and closing date that close it themselves); join requests decided by the
 * group's leaders; memberships with their history; meetings (RRULE) with RSVPs and one attendance
 * record per person; a health report whose absent members feed the community follow-up radar; and
 * messages to members through channels. Not the people module's CRM groups (ministry teams).
 */
export default defineModule({
  name: 'groups',
  title: 'Small groups',
  description: 'Small groups (cell, home groups, classes): enrolment and join requests, leaders and members, meetings, attendance and group health. Not CRM ministry teams (people module).',
  tools: groupsTools,
  models: [...groupsModels],
  migrations: [groupsMigration],
  scopes: ['groups:read', 'groups:write'],
  routes: groupsRoutes,
  uses: ['platform', 'people', 'schedule', 'channels', 'audit'],
  workflows: require.resolve('./workflows'),
  overview: groupsOverview,
  playbooks: groupsPlaybooks,
  metrics: groupsMetrics,
  widgets: groupsWidgets,
  contactRefs: [
    { table: 'groups_memberships', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'groups_join_requests', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'groups_meeting_rsvps', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'groups_attendance', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  ],
  contributes: {
    communityRadarSources: [{ source: 'small_groups', reason: 'missing_group_meetings', items: membersMissingMeetings }],
  },
  jobs: [{
    name: 'groups.close_enrolment',
    description: 'Records enrolment closed for small groups whose closing date has passed',
    everyMs: 6 * 3_600_000,
    run: closeEnrolmentPastClosingDate,
  }],
});
