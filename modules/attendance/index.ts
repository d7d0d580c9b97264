import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { addDays, todayUtc } from '../metrics';
import { defineModule } from '../module';
import { attendanceMetrics } from './metrics';
import { droppedRegulars } from './published';
import { attendanceHeadcounts } from './migrations/2026.11.24T17.00.00.attendance-headcounts';
import { attendanceTicketCheckins } from './migrations/2026.11.29T13.00.00.attendance-ticket-checkins';
import { attendanceModels } from './models';
import { attendanceSummary, personHistory } from './summary';
import { recordTicketCheckin } from './ticket-checkins';
import { attendanceTools } from './tools';
import { attendanceWidgets } from './widgets';

/** The Sunday on or before a date (UTC). */
function lastSunday(today: string): string {
  return addDays(today, -new Date(`${today}T00:00:00Z`).getUTCDay());
}

/**
 * Headcounts and check-ins turned into attendance summaries and trends. Check-ins belong to the
 * guests module (read through its published listCheckins), services to the schedule module; this
 * module owns the headcounts, the tickets scanned at ticketed events' doors (told through
 * ticketing's extension point) and the figures.
 */
export default defineModule({
  name: 'attendance',
  title: 'Attendance',
  description: 'Service headcounts, check-in lists, attendance summaries and trends, and a person\'s attendance history.',
  tools: attendanceTools,
  widgets: attendanceWidgets,
  models: [...attendanceModels],
  migrations: [attendanceHeadcounts, attendanceTicketCheckins],
  scopes: ['attendance:read', 'attendance:write'],
  routes: [],
  metrics: attendanceMetrics,
  uses: ['platform', 'people', 'schedule', 'guests'],
  contactRefs: [{ table: 'attendance_ticket_checkins', column: 'contact_id', onMerge: 'move', onErase: 'null' }],
  contributes: {
    // Ticketing tells every ticket's first scan at the door; a ticketed service's attendance counts it.
    ticketingCheckins: { ticketCheckedIn: recordTicketCheckin },
    peopleCareSignals: [{
      signal: 'stopped_attending',
      contacts: async (db, orgId) => (await droppedRegulars(db, orgId)).map((drop) => ({ contactId: drop.contactId, contactName: drop.contactName, detail: drop.reason })),
    }],
    // A contact's profile shows their attendance.
    peopleContactAttendance: {
      history: async (db, orgId, contactId, range) => {
        const history = await personHistory(db, orgId, contactId, range);
        return {
          visits: history.visits.map((visit) => ({ title: visit.title, localDate: visit.localDate, locations: visit.locations, firstTime: visit.firstTime })),
          services: history.services, weeksAttended: history.weeksAttended, firstVisit: history.firstVisit, lastVisit: history.lastVisit,
        };
      },
    },
  },
  overview: {
    shape: {
      lastSundayAttendance: z.object({ date: z.string(), services: z.number().int(), total: z.number().int(), firstTimers: z.number().int() }).strict().nullable()
        .describe('The most recent Sunday\'s services (UTC date): total attendance and first-timers; null when none took place or without attendance:read'),
    },
    compute: async (ctx) => {
      if (!hasScope(ctx.principal, 'attendance:read')) return { lastSundayAttendance: null };
      const date = lastSunday(todayUtc());
      const { totals } = await attendanceSummary(ctx.db, ctx.org.id, { from: date, to: date });
      return { lastSundayAttendance: totals.services === 0 ? null : { date, services: totals.services, total: totals.total, firstTimers: totals.firstTimers } };
    },
  },
});
