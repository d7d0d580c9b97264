import { defineModule } from '../module';

/** Headcounts and check-ins turned into attendance summaries and trends. */
export default defineModule({
  name: 'attendance',
  title: 'Attendance',
  description: 'Service headcounts, check-in lists, attendance summaries and trends, and a person\'s attendance history.',
  tools: [],
  migrations: [],
  scopes: ['attendance:read', 'attendance:write'],
  routes: [],
});
