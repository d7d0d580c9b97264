import { z } from 'zod';
import { toolsFor } from '../../kit';
import { GROUP_STATUSES, addGroupMember, createGroup, deleteGroup, listGroupMembers, listGroups, removeGroupMember, updateGroup } from '../crm-groups';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const groupSchema = z.object({
  id: z.uuid(), name: z.string(), description: z.string().nullable(), status: z.enum(GROUP_STATUSES), memberCount: z.number().int(),
}).strict();
const groupRef = {
  groupId: z.uuid().optional(),
  groupName: z.string().trim().min(1).max(200).optional().describe('Group name, when the id is not known'),
};
const contactRef = {
  contactId: z.uuid().optional(),
  email: z.email().max(254).optional().describe('Contact email, when the id is not known'),
};
const NOT_SMALL_GROUPS = 'CRM groups are ministry teams and departments, not Small Groups (cell/home groups have their own tools).';

export const listCrmGroupsTool = tools.read('list_crm_groups', {
  title: 'List CRM groups',
  description: `Lists ministry teams and departments (CRM groups) with status and member count. ${NOT_SMALL_GROUPS}`,
  keywords: ['ministry teams', 'departments', 'teams'],
  examples: ['which teams and departments do we have', 'our ministries and how many serve in each', 'list our ministry teams', 'what departments do we have and how many people in each', 'which teams are archived or on hold', 'show all the serving teams', 'how many ministries are running at the moment', "list the church's teams, not the home groups", 'our teams', "I'm updating the rota handbook, which ministry teams and departments exist", 'how many people are in each department?'],
  input: z.object({ status: z.enum(GROUP_STATUSES).optional() }),
  output: z.object({ groups: z.array(groupSchema) }).strict(),
  run: async (ctx, input) => ({ groups: await listGroups(ctx.db, ctx.org.id, input.status) }),
});

export const listCrmGroupMembersTool = tools.read('list_crm_group_members', {
  title: 'CRM group members',
  description: 'Members of a ministry team by groupId or groupName.',
  keywords: ['team members', 'who is on the team'],
  examples: ['who is on this team', 'the volunteers in a ministry', 'who serves on the welcome team', 'list the members of the worship band', "who's in the pastoral care department", 'names on the flower arranging team', "who is on the children's ministry team", "who's part of the sound and vision crew", "who's on the tea team", "the bell ringers need a new captain, remind me who's in that team", "which volunteers are in the kids' work team?"],
  input: z.object(groupRef),
  output: z.object({
    group: groupSchema,
    members: z.array(z.object({ memberId: z.uuid(), contactId: z.uuid(), displayName: z.string(), email: z.string().nullable(), role: z.string().nullable(), joinedAt: z.string() }).strict()),
  }).strict(),
  run: async (ctx, input) => listGroupMembers(ctx.db, ctx.org.id, input),
});

export const createCrmGroupTool = tools.write('create_crm_group', {
  title: 'Create a CRM group',
  description: `Creates a ministry team or department. ${NOT_SMALL_GROUPS}`,
  keywords: ['new team', 'new ministry', 'create department'],
  examples: ['start a new team', 'add a new ministry or department', 'set up a new team for the food bank', 'create a Tech Team ministry', "we're starting a hospitality department", 'add a team called Eco Church', "make a new ministry for the men's breakfast", 'new department: Facilities and Buildings', 'new team: bell ringers', "we're launching a café church so I need a team for the volunteers", 'can you set up a department for finance?'],
  input: z.object({ name: z.string().trim().min(1).max(200), description: z.string().max(2000).optional(), status: z.enum(GROUP_STATUSES).default('active') }),
  output: z.object({ group: groupSchema }).strict(),
  run: async (ctx, input) => ({ group: await createGroup(ctx.db, ctx.org.id, input) }),
});

export const updateCrmGroupTool = tools.write('update_crm_group', {
  title: 'Update a CRM group',
  description: 'Renames a ministry team, changes its description, or sets its status (active, archived, on-hold).',
  keywords: ['archive team', 'rename team'],
  examples: ['rename a team or put it on hold', 'archive a ministry that has stopped', 'rename the Youth team to Youth and Families', 'put the drama ministry on hold for the summer', 'archive the Covid response team', "change the welcome team's description", 'the toddler ministry is back, make it active again', 'mark the choir department as archived', 'archive the bell ringers', 'the youth band is taking a break until September, put it on hold', 'can the hospitality team be renamed Welcome and Hospitality?'],
  idempotent: true,
  input: z.object({ groupId: z.uuid(), name: z.string().trim().min(1).max(200).optional(), description: z.string().max(2000).nullable().optional(), status: z.enum(GROUP_STATUSES).optional() }),
  output: z.object({ group: groupSchema }).strict(),
  run: async (ctx, input) => ({ group: await updateGroup(ctx.db, ctx.org.id, input) }),
});

export const addCrmGroupMemberTool = tools.write('add_crm_group_member', {
  title: 'Add to a CRM group',
  description: 'Adds a contact (by contactId or email) to a ministry team (by groupId or groupName). Adding an existing member changes nothing.',
  keywords: ['join team', 'add to ministry', 'add someone to a team', 'add volunteer'],
  examples: ['put someone on a team', 'a new volunteer joins a ministry', 'add Sue to the welcome team', 'Ken wants to join the worship band', 'sign Priya up to the flower team', 'put Tom on the sound and vision crew', 'enrol jean@example.com in the pastoral care ministry', 'the new curate should be in the leadership department', 'add Grace to the choir team', "Ian's offered to help with the café church so put him on that team", 'can you sign Hilda up for the prayer ministry?'],
  idempotent: true,
  input: z.object({ ...groupRef, ...contactRef, role: z.string().trim().min(1).max(100).optional() }),
  output: z.object({ groupId: z.uuid(), groupName: z.string(), contactId: z.uuid(), contactName: z.string(), alreadyMember: z.boolean() }).strict(),
  run: async (ctx, input) => addGroupMember(ctx.db, ctx.org.id, input, input, input.role),
});

export const removeCrmGroupMemberTool = tools.write('remove_crm_group_member', {
  title: 'Remove from a CRM group',
  description: 'Removes a contact (by contactId or email) from a ministry team (by groupId or groupName).',
  keywords: ['leave team'],
  examples: ['take someone off a team', 'a volunteer is leaving a ministry', 'take Sue off the welcome team', 'Ken has left the worship band', 'remove Priya from the flower ministry', 'Tom is stepping down from the sound crew', 'drop Jean from the pastoral care department', "he's not on the tech team any more", 'take Colin off the tea team', "Ruth's moving away in March so remove her from the welcome team", 'can you drop Ian from the bell ringers?'],
  input: z.object({ ...groupRef, ...contactRef }),
  output: z.object({ groupId: z.uuid(), contactId: z.uuid() }).strict(),
  run: async (ctx, input) => removeGroupMember(ctx.db, ctx.org.id, input, input),
});

export const deleteCrmGroupTool = tools.write('delete_crm_group', {
  title: 'Delete a CRM group',
  description: 'Deletes a ministry team; its members are unlinked and the contacts kept. To keep history, archive it with people_update_crm_group instead.',
  keywords: ['remove team'],
  examples: ['remove a team altogether', 'close down a department for good', 'delete the Covid response team', 'get rid of the test team I made', 'scrap the drama ministry completely', 'bin the old youth department, no need to keep history', 'remove the duplicate Welcome Team 2', 'wipe the hospitality department off the system', 'delete the bell ringers team', "we made a Jubilee team for one weekend and don't need any history, delete it", 'can I get rid of a ministry team completely?'],
  destructive: true,
  input: z.object({ groupId: z.uuid() }),
  output: z.object({ group: groupSchema, unlinkedMembers: z.number().int() }).strict(),
  run: async (ctx, input) => deleteGroup(ctx.db, ctx.org.id, input.groupId),
});
