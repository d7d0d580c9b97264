import { defineModule } from '../module';
import { scheduleSeriesInstances } from './migrations/2026.11.24T14.00.00.schedule-series-instances';
import { scheduleModels } from './models/schedule';
import { scheduleRoutes } from './routes';
import { materialiseRollingWindow } from './series';
import { scheduleTools } from './tools';
import { MATERIALISE_WEEKS } from './instances';

/**
 * Recurring service series (an RFC 5545 RRULE in the series' time zone, expanded by the rrule
 * library in local wall-clock time so a 10:30 service stays 10:30 across clock changes) and their
 * instances, materialised on a rolling window by a periodic job and at once when a series is
 * created or changed. Exceptions (cancelled, moved, changed instances) are instances detached
 * from their series. Other modules read instances through ./services.ts.
 *
 * Organisation settings carry no time zone yet, so each series has its own (default: the zone the
 * organisation's other series use, else Europe/London).
 */
export default defineModule({
  name: 'schedule',
  title: 'Schedule',
  description: 'Recurring service series and their upcoming instances, with exceptions, in the organisation\'s time zone.',
  tools: scheduleTools,
  models: [...scheduleModels],
  migrations: [scheduleSeriesInstances],
  scopes: ['schedule:read', 'schedule:write'],
  routes: scheduleRoutes,
  uses: ['audit'],
  jobs: [{
    name: 'schedule.materialise_instances',
    description: `Keeps every service series' instances materialised ${MATERIALISE_WEEKS} weeks ahead`,
    everyMs: 6 * 3_600_000,
    run: materialiseRollingWindow,
  }],
});
