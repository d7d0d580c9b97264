import { z } from 'zod';
import { calendarDate, cursorInput } from '../kit';
import { routesFor } from '../routes';
import { exportIcal } from './ical';
import { getInstance, listInstances, MAX_LIST_INSTANCES, organisationTimeZone } from './instances';
import { localToUtc } from './recurrence';
import { getSeries, listSeries, upcomingOfSeries } from './series';
import {
  cancelInstanceTool, createSeriesTool, deleteSeriesTool, exportIcalTool, getInstanceTool, getSeriesTool, listSeriesTool,
  listUpcomingInstancesTool, updateSeriesTool,
} from './tools';

/**
 * The schedule's dashboard API routes: the reads a calendar page needs. Writes a curated tool
 * covers name it, so the invoke bridges send callers to the tool.
 */
const routes = routesFor('schedule', { read: 'schedule:read', write: 'schedule:write' });
const seriesParams = z.object({ seriesId: z.uuid() }).strict();
const instanceParams = z.object({ instanceId: z.uuid() }).strict();
const DAY_MS = 86_400_000;
const UPCOMING_SHOWN = 5;

export const scheduleRoutes = [
  routes.get('series', {
    summary: 'List service series, newest first',
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(25), cursor: cursorInput.cursor }).strict(),
    response: listSeriesTool.output,
    run: async (ctx, { query }) => listSeries(ctx.db, ctx.org.id, query),
  }),
  routes.get('series/{seriesId}', {
    summary: 'One service series with its next instances',
    params: seriesParams,
    response: getSeriesTool.output,
    run: async (ctx, { params }) => ({
      series: await getSeries(ctx.db, ctx.org.id, params.seriesId),
      upcoming: await upcomingOfSeries(ctx.db, ctx.org.id, params.seriesId, new Date(), UPCOMING_SHOWN),
    }),
  }),
  routes.get('instances', {
    summary: 'Service instances on local dates from..to (the organisation\'s zone), earliest first',
    query: z.object({
      from: calendarDate(), to: calendarDate(),
      seriesId: z.uuid().optional(),
      status: z.enum(['scheduled', 'all']).default('scheduled').describe('all includes cancelled instances'),
    }).strict(),
    response: listUpcomingInstancesTool.output,
    run: async (ctx, { query }) => {
      const zone = await organisationTimeZone(ctx.db, ctx.org.id);
      const from = localToUtc(query.from, '00:00', zone).toISOString();
      const to = new Date(localToUtc(query.to, '00:00', zone).getTime() + DAY_MS - 1).toISOString();
      if (query.seriesId) await getSeries(ctx.db, ctx.org.id, query.seriesId);
      const instances = await listInstances(ctx.db, ctx.org.id, { from, to, seriesId: query.seriesId, includeCancelled: query.status === 'all' });
      return { instances, from, to, truncated: instances.length === MAX_LIST_INSTANCES };
    },
  }),
  routes.get('instances/{instanceId}', {
    summary: 'One service instance',
    params: instanceParams,
    response: getInstanceTool.output,
    run: async (ctx, { params }) => ({ instance: await getInstance(ctx.db, ctx.org.id, params.instanceId) }),
  }),
  routes.get('ical', {
    summary: 'The service series as iCalendar text',
    query: z.object({ seriesId: z.uuid().optional() }).strict(),
    response: exportIcalTool.output,
    run: async (ctx, { query }) => exportIcal(ctx.db, ctx.org.id, query.seriesId),
  }),
  routes.post('series', { summary: 'Create a service series', body: createSeriesTool.input, response: createSeriesTool.output, curatedTool: 'schedule_create_series' }),
  routes.patch('series/{seriesId}', {
    summary: 'Change a service series (this, this and following, all)', params: seriesParams,
    body: updateSeriesTool.input.omit({ seriesId: true }), response: updateSeriesTool.output, curatedTool: 'schedule_update_series',
  }),
  routes.delete('series/{seriesId}', { summary: 'End a service series', params: seriesParams, response: deleteSeriesTool.output, curatedTool: 'schedule_delete_series' }),
  routes.post('instances/{instanceId}/cancel', {
    summary: 'Cancel one service instance', params: instanceParams,
    body: cancelInstanceTool.input.omit({ instanceId: true }), response: cancelInstanceTool.output, curatedTool: 'schedule_cancel_instance',
  }),
];
