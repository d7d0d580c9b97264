import { z } from 'zod';
import { assertDateRange, calendarDate, toolsFor } from '../../../kit';
import { StewardError } from '../../../../core/errors';
import type { ToolContext } from '../../../tool';
import { instanceIdSchema, teamSchema, volunteerAssignmentSchema } from '../schemas';
import { assignVolunteer, copyTeam, deleteVolunteerAssignment, listVolunteerSchedules, updateVolunteerAssignment, VOLUNTEER_STATUSES, WELCOME_TEAM } from '../volunteers';

const tools = toolsFor('guests', { read: 'guests:read', write: 'guests:write' });
const actor = (ctx: ToolContext) => ctx.principal.userId;
const assignmentId = z.uuid().describe('The volunteer assignment (from guests_list_volunteer_schedules)');

export const listVolunteerSchedulesTool = tools.read('list_volunteer_schedules', {
  title: 'Volunteer schedules',
  description: 'The volunteer rota: who serves on which team (welcome, kids, parking…) at one service instance, or at every service between two dates, with role, location and status (scheduled, confirmed, declined).',
  keywords: ['rota', 'volunteer schedule', 'welcome team', 'who is serving', 'serving team', 'on duty', 'volunteers this week'],
  examples: ['who is on the welcome team this Sunday', 'what is Anna serving on this month', 'show the door greeters rota for December', "who's on coffee this Sunday", 'who is serving at the carol service', 'which volunteers turned down Sunday', 'the car park team for next month', 'is Tom confirmed for kids church', 'show the full serving rota for the 10:30', "this Sunday's rota", "I'm short on the welcome team for Easter, who's serving at each service that week?", "who's on the car park team this weekend?"],
  input: z.object({
    instanceId: instanceIdSchema.optional().describe('One service instance'),
    from: calendarDate().optional().describe('With to: every service starting in this range'),
    to: calendarDate().optional(),
    contactId: z.uuid().optional().describe('One volunteer'),
    team: teamSchema.optional(),
  }),
  output: z.object({ assignments: z.array(volunteerAssignmentSchema) }).strict(),
  run: async (ctx, input) => {
    if (!input.instanceId && !(input.from && input.to)) {
      throw new StewardError('validation_failed', 'Give instanceId, or both from and to', { issues: [{ path: 'instanceId', message: 'or from and to' }] });
    }
    assertDateRange(input);
    return { assignments: await listVolunteerSchedules(ctx.db, ctx.org.id, input) };
  },
});

export const assignVolunteerTool = tools.write('assign_volunteer', {
  title: 'Put a volunteer on a service team',
  description: 'Puts someone on the rota: schedules a person (a contact) on a team for one service instance, with an optional role and check-in location. The same person twice on one team of one service is refused.',
  keywords: ['rota', 'schedule volunteer', 'welcome team', 'serve'],
  examples: ['put Anna on the welcome team on Sunday as door greeter', 'Tom is doing coffee at the evening service', 'rota Priya into kids church next week', 'add Sue to the car park team on 12 May', 'schedule Mark on welcome at the carol service', 'put Jo down for the creche on Sunday', 'Dave will do the sound desk next week', 'add Priya as a steward at the 10:30', 'book Anna onto the refreshments team for Easter Sunday', 'add Hannah to welcome', "Ray can't do coffee this Sunday so put Doris on the refreshments team instead", 'can you rota Tom onto kids church for the 10:30?'],
  input: z.object({
    instanceId: instanceIdSchema.describe('The service instance (schedule_list_upcoming_instances)'),
    contactId: z.uuid().describe('The volunteer'),
    team: teamSchema.default(WELCOME_TEAM),
    role: z.string().trim().min(1).max(100).optional().describe('e.g. door greeter, coffee'),
    locationId: z.uuid().optional().describe('A check-in location (guests_list_locations)'),
    status: z.enum(VOLUNTEER_STATUSES).default('scheduled'),
    notes: z.string().trim().min(1).max(1000).optional(),
  }),
  output: z.object({ assignment: volunteerAssignmentSchema }).strict(),
  run: async (ctx, input) => ({ assignment: await assignVolunteer(ctx.db, ctx.org.id, actor(ctx), input) }),
});

export const updateVolunteerScheduleTool = tools.write('update_volunteer_schedule', {
  title: 'Change a volunteer assignment',
  description: 'Changes a volunteer\'s role, location, status (scheduled, confirmed, declined) or notes for one service; null clears role, location or notes.',
  keywords: ['confirm volunteer', 'decline rota', 'change role', 'change volunteer slot', 'volunteer confirmed'],
  examples: ['Anna confirmed for Sunday', 'Tom cannot make it on Sunday', 'move Priya to the crèche on the rota', 'Sue has confirmed for car parking', 'Mark has turned down the carol service slot', "change Jo's role to team leader on Sunday", 'move Dave from the door to the creche for the 10:30', "add a note on Priya's rota slot: arriving late", "Anna can't do it after all, mark her as declined", "Helen has confirmed she'll be on welcome at the 9am", 'move Mark to the welcome desk instead of car park on Sunday', "Leo's dad can't help in juniors this week, set him as declined"],
  input: z.object({
    assignmentId,
    role: z.string().trim().min(1).max(100).nullable().optional(),
    locationId: z.uuid().nullable().optional(),
    status: z.enum(VOLUNTEER_STATUSES).optional(),
    notes: z.string().trim().min(1).max(1000).nullable().optional(),
  }),
  output: z.object({ assignment: volunteerAssignmentSchema }).strict(),
  run: async (ctx, input) => {
    const { assignmentId: id, ...patch } = input;
    if (Object.values(patch).every((value) => value === undefined)) {
      throw new StewardError('validation_failed', 'Nothing to change: give role, locationId, status or notes', { issues: [{ path: 'status', message: 'give at least one field' }] });
    }
    return { assignment: await updateVolunteerAssignment(ctx.db, ctx.org.id, id, patch) };
  },
});

export const deleteVolunteerScheduleTool = tools.write('delete_volunteer_schedule', {
  title: 'Remove a volunteer from a service rota',
  description: 'Removes a volunteer assignment from a service (to keep a record that they cannot come, set status declined instead).',
  keywords: ['remove from rota', 'unassign volunteer', 'remove volunteer', 'delete rota slot'],
  examples: ['Tom is no longer on the welcome team this Sunday', 'drop Anna from next week\'s rota', 'take Sue off the rota for 12 May', 'remove Mark from the carol service welcome team', 'Jo was put on by mistake, delete her slot', "scrap Dave's sound desk entry next week", 'unassign Priya from stewarding on Sunday', 'clear Anna off the Easter refreshments rota', 'take Helen off the stewarding slot for Sunday', "delete Mark's welcome team assignment on the 18th", "Leo's mum shouldn't be on the creche rota this week, remove her", 'remove the extra door steward we added by mistake'],
  destructive: true,
  input: z.object({ assignmentId }),
  output: z.object({ removed: volunteerAssignmentSchema }).strict(),
  run: async (ctx, input) => ({ removed: await deleteVolunteerAssignment(ctx.db, ctx.org.id, input.assignmentId) }),
});

export const copyWelcomeVolunteersTool = tools.write('copy_welcome_volunteers', {
  title: 'Copy a service\'s welcome team',
  description: 'Copies a rota: one service instance\'s welcome team (or another team) to another instance: everyone not declined, with role and location, as scheduled. People already on that team there are left alone and counted, so copying twice adds nobody twice.',
  keywords: ['copy rota', 'same team as last week', 'welcome team'],
  examples: ['same welcome team as last Sunday', 'copy this week\'s door greeters to the carol service', 'repeat the kids team rota for next week', "use last week's welcome team again this Sunday", 'copy the 10:30 stewards to the evening service', 'roll the creche rota forward to next week', 'same car park team as Easter for Pentecost', "duplicate Sunday's greeters for the Christmas Eve service", "carry this week's coffee team over to next Sunday", "copy last week's rota", "nothing's changed on the welcome team, so use the same people for Sunday's 10:30", 'can the carol service have the same stewards as Sunday?'],
  idempotent: true,
  input: z.object({
    fromInstanceId: instanceIdSchema, toInstanceId: instanceIdSchema, team: teamSchema.default(WELCOME_TEAM),
  }),
  output: z.object({ copied: z.array(volunteerAssignmentSchema), alreadyThere: z.number().int(), declinedSkipped: z.number().int() }).strict(),
  run: async (ctx, input) => copyTeam(ctx.db, ctx.org.id, actor(ctx), input),
});

export const volunteerTools = [listVolunteerSchedulesTool, assignVolunteerTool, updateVolunteerScheduleTool, deleteVolunteerScheduleTool, copyWelcomeVolunteersTool];
