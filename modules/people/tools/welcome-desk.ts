import { z } from 'zod';
import { toolsFor } from '../../kit';
import { VISITOR_STAGES, completeFollowUpTask, listFollowUpTasks, listWelcomeDeskVisitors } from '../welcome-desk';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const taskSchema = z.object({
  id: z.uuid(), contactId: z.uuid(), contactName: z.string(), title: z.string(), dueDate: z.string().nullable(),
  status: z.enum(['open', 'completed']), outcome: z.string().nullable(), completedAt: z.string().nullable(),
}).strict();
const SEPARATE = 'Welcome Desk, separate from the guests pipeline and from pastoral note follow-ups.';

export const listWelcomeDeskVisitorsTool = tools.read('list_welcome_desk_visitors', {
  title: 'Welcome Desk visitors',
  description: `First-time and returning visitors (membershipStatus), newest first, with their first-visit date and open follow-up tasks. ${SEPARATE}`,
  keywords: ['visitors', 'newcomers', 'first time guests', 'welcome'],
  examples: ['who came for the first time', 'new visitors and returning guests', 'who visited for the first time this month', 'list newcomers with their first visit date', 'any returning visitors recently?', 'show the Welcome Desk visitor list', 'new faces since Easter', 'first-timers who still have open follow-ups', 'new visitors', "I'm writing welcome letters this week, who's visited us for the first time recently", 'have we had any newcomers since the carol service?'],
  input: z.object({ stage: z.enum(VISITOR_STAGES).optional(), since: z.iso.date().optional(), limit: z.number().int().min(1).max(500).default(100) }),
  output: z.object({
    visitors: z.array(z.object({
      contactId: z.uuid(), displayName: z.string(), email: z.string().nullable(), phone: z.string().nullable(),
      membershipStatus: z.string(), firstVisitDate: z.string().nullable(), openFollowUpTasks: z.number().int(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ visitors: await listWelcomeDeskVisitors(ctx.db, ctx.org.id, input) }),
});

export const listFollowUpTasksTool = tools.read('list_follow_up_tasks', {
  title: 'Welcome Desk follow-up tasks',
  description: `Welcome Desk follow-up tasks (open by default), soonest due first. ${SEPARATE}`,
  keywords: ['tasks', 'welcome follow up', 'to do'],
  examples: ['what welcome calls are still to do', 'open tasks for following up visitors', 'Welcome Desk tasks still open', "what's on the welcome desk to-do list", 'welcome tasks due this week', 'outstanding jobs for the welcome desk team', 'which visitor welcome tasks are overdue', 'list welcome desk follow-ups, including done ones', 'welcome to-dos', "Sam's covering the welcome desk next week, what visitor follow-ups are still open", "have we got any newcomer calls we haven't made yet?"],
  input: z.object({ status: z.enum(['open', 'completed', 'all']).default('open'), contactId: z.uuid().optional(), limit: z.number().int().min(1).max(500).default(100) }),
  output: z.object({ tasks: z.array(taskSchema) }).strict(),
  run: async (ctx, input) => ({ tasks: await listFollowUpTasks(ctx.db, ctx.org.id, input) }),
});

export const completeFollowUpTaskTool = tools.write('complete_follow_up_task', {
  title: 'Complete a Welcome Desk task',
  description: `Marks a Welcome Desk follow-up task done, with an optional outcome. ${SEPARATE} For pastoral note follow-ups use people_complete_note_followup.`,
  keywords: ['task done', 'visitor followed up'],
  examples: ['a visitor has been followed up', 'mark a welcome task done', "I've phoned the Nguyens, close their welcome task", 'tick off the welcome desk task for Priya', "mark the newcomer welcome call done, she's coming to Alpha", 'welcome task for the Browns finished, outcome: joining home group', 'close the Welcome Desk to-do for Sam', 'done the welcome desk follow-up for the Evans family', 'welcome task done for Grace', 'I met the Barkers for coffee on Thursday so their welcome follow-up can be closed', 'can you mark the visitor follow-up for Kwame as finished?'],
  input: z.object({ taskId: z.uuid(), outcome: z.string().trim().min(1).max(2000).optional() }),
  output: z.object({ task: taskSchema }).strict(),
  run: async (ctx, input) => ({ task: await completeFollowUpTask(ctx.db, ctx.org.id, input.taskId, ctx.principal.userId, input.outcome) }),
});
