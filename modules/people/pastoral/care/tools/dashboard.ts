import { z } from 'zod';
import { calendarDate, toolsFor } from '../../../../kit';

import { canSeeRestricted } from '../../privacy';
import { listPastoralNotes, pastoralDashboard, pastoralDashboardSchema, pastoralNoteListSchema } from '../dashboard';
import { contactIdArg } from './common';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

export const getPastoralDashboardTool = tools.read('get_pastoral_dashboard', {
  title: 'Pastoral dashboard',
  description: 'The pastoral picture in numbers: welfare checks due, note follow-ups, messages waiting, crisis holds, safeguarding checks expiring or overdue (with people:safeguarding), open support life events and grief touchpoints due, active prayer requests and recent visits. Counted under the caller\'s view of private and confidential records.',
  keywords: ['pastoral overview', 'care dashboard', 'what needs attention'],
  examples: ['what needs pastoral attention today', 'give me the pastoral overview', 'summary of pastoral care numbers', 'how many welfare checks are due and holds in place', 'pastoral headline figures for the staff meeting', 'where do we stand on pastoral care this week', 'counts of follow-ups, visits and prayer requests', 'pastoral stats at a glance', 'pastoral dashboard', "staff meeting in ten minutes, what's the pastoral picture in numbers", 'how many welfare checks and follow-ups are waiting?'],
  listed: true,
  input: z.object({}),
  output: z.object({ dashboard: pastoralDashboardSchema }).strict(),
  run: async (ctx) => ({ dashboard: await pastoralDashboard(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal)) }),
});

export const listPastoralNotesTool = tools.read('list_pastoral_notes', {
  title: 'Pastoral notes across people',
  description: 'Pastoral notes across everyone, newest first, optionally for one person or author, since a date, or only those with an open follow-up. Private and confidential notes appear only with people:safeguarding.',
  keywords: ['recent notes', 'all notes', 'pastoral log', 'care notes', 'notes log'],
  examples: ['what pastoral notes were written this week', 'notes with follow-ups still open', 'show me all the notes Revd Jo wrote', 'every pastoral note since 1 March', 'latest notes across the whole congregation', 'notes the team made yesterday', 'notes written by the curate since Easter', 'what have the visitors written up recently', 'pastoral notes about Doris', 'which notes still need following up', 'what did the care team record last month', 'show the latest care notes from Grace'],
  input: z.object({
    contactId: contactIdArg.optional(),
    authorUserId: z.uuid().optional().describe('Only notes written by this team member'),
    since: calendarDate().optional().describe('Only notes written on or after this date (YYYY-MM-DD)'),
    followUp: z.enum(['open', 'any']).default('any').describe('open: only notes with a follow-up still to do'),
    limit: z.number().int().min(1).max(200).default(50).describe('At most this many'),
  }),
  output: z.object({ notes: z.array(pastoralNoteListSchema) }).strict(),
  run: async (ctx, input) => ({ notes: await listPastoralNotes(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), input) }),
});
