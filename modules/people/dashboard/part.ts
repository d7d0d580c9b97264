import type { ModulePart } from '../../module';
import { createContactsBulkOperationActivities } from '../activities/contacts-bulk-operation';
import { peopleDashboard } from './migrations/2026.11.28T14.00.00.people-dashboard';
import { dashboardModels } from './models';
import { partnerShareWebhook } from './partner-webhook';
import { visitorCardWebhook } from './visitor-card-page';
import { dashboardRoutes } from './routes';
import { crmTools } from './tools/crm';
import { jobTools } from './tools/jobs';
import { overviewTools } from './tools/overview';
import { profileTools } from './tools/profile';
import { contactProfileWidget, crmChartWidget } from './widgets';

/**
 * The people dashboard's views as tools: layouts, figures and charts, the newcomer journey with
 * stall detection, a contact's profile tabs, CRM tags and teams in the dashboard's shapes, saved
 * searches, partner shares, bulk operations (a job with progress), member QR codes, the roll check
 * and the AI views; with their dashboard routes (people_invoke_api_read/_write reach them).
 */
export const dashboardPart: ModulePart = {
  name: 'dashboard',
  tools: [...overviewTools, ...profileTools, ...crmTools, ...jobTools],
  models: [...dashboardModels],
  migrations: [peopleDashboard],
  routes: dashboardRoutes,
  widgets: [contactProfileWidget, crmChartWidget],
  activities: [createContactsBulkOperationActivities],
  webhooks: [partnerShareWebhook, visitorCardWebhook],
  retention: [],
  // QR tokens name one person: merge moves them to the kept contact, erasure deletes them. A bulk operation's
  // list of ids is a record of what was done: merge repoints the merged id, erasure takes the id out.
  contactRefs: [
    { table: 'people_member_qr_tokens', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'people_bulk_operations', column: 'contact_ids', onMerge: 'move', onErase: 'null', list: true },
  ],
};
