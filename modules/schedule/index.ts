import { defineModule } from '../module';

/** Recurring service series (RRULE in the organisation's time zone) and their upcoming instances. */
export default defineModule({
  name: 'schedule',
  title: 'Schedule',
  description: 'Recurring service series and their upcoming instances, with exceptions, in the organisation\'s time zone.',
  tools: [],
  migrations: [],
  scopes: ['schedule:read', 'schedule:write'],
  routes: [],
});
