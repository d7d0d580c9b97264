import { z } from 'zod';
import { toolsFor } from '../../../../kit';
import { canSeeRestricted } from '../../privacy';
import { careTeamOverview, carePredictionSchema, carePredictions, contactCareStatus, contactCareStatusSchema } from '../care-status';
import {
  CARE_PRIORITIES, assignCareMember, careAssignmentSchema, careRoleSchema, createCareRole, listCareAssignments, listCareRoles, removeCareAssignment,
  removeCareRole, seedCareRoles, setCareRole, setContactCarePriority,
} from '../team';
import { contactIdArg } from './common';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const roleId = z.uuid().describe('The care team role\'s id');
const roleFields = {
  name: z.string().trim().min(1).max(80).describe('Role name, e.g. "Pastoral visitor"'),
  description: z.string().trim().max(500).describe('What the role does'),
  canApproveOutreach: z.boolean().describe('Holders approve pastoral messages; once anyone holds such a role, only owners, admins and these holders approve'),
  canViewConfidential: z.boolean().describe('Holders see confidential records; only members with safeguarding permission may hold it'),
};

export const listCareTeamRolesTool = tools.read('list_care_team_roles', {
  title: 'Care team roles',
  description: 'The care team roles with what each permits (approving pastoral messages, confidential records) and how many members hold it.',
  keywords: ['care team', 'pastoral roles', 'visitors', 'care roles'],
  examples: ['what roles does our care team have', 'list the care roles and what each allows', 'which care role can see confidential stuff', 'how many pastoral visitors do we have in each role', 'which roles are allowed to approve pastoral messages', 'show the pastoral team roles', 'what care positions have we set up', 'roles on the visiting team', "I'm recruiting visitors and need to know which care team roles we have", 'which role is allowed to see confidential notes?'],
  input: z.object({}),
  output: z.object({ roles: z.array(careRoleSchema) }).strict(),
  run: async (ctx) => ({ roles: await listCareRoles(ctx.db, ctx.org.id) }),
});

export const createCareTeamRoleTool = tools.write('create_care_team_role', {
  title: 'Create a care team role',
  description: 'Adds a care team role. canApproveOutreach lets holders approve pastoral messages (and, once held by anyone, limits approval to owners, admins and holders); canViewConfidential may only be held by members with safeguarding permission.',
  keywords: ['new care role', 'add role', 'create role', 'new pastoral role'],
  examples: ['add a hospital visitor role', 'create a role for bereavement visitors', 'new care role: home communion team', 'add a lay minister role that can approve messages', 'set up a befriender role for lonely older folk', 'we need a new role for our Anna chaplains', 'make a care role for the hospital chaplaincy volunteers', 'create a care role called Bereavement Support', "we've started a meals rota for the sick, add a role for it", 'new role on the care team: phone befriender', 'add a pastoral role that can see confidential notes for the vicar'],
  input: z.object({
    name: roleFields.name, description: roleFields.description.optional(),
    canApproveOutreach: roleFields.canApproveOutreach.default(false), canViewConfidential: roleFields.canViewConfidential.default(false),
  }),
  output: z.object({ role: careRoleSchema }).strict(),
  run: async (ctx, input) => ({ role: await createCareRole(ctx.db, ctx.org.id, input) }),
});

export const setCareTeamRoleTool = tools.write('set_care_team_role', {
  title: 'Change a care team role',
  description: 'Changes the fields given of a care team role. Granting a permission is refused while a holder may not have it (a volunteer cannot approve; confidential access needs safeguarding permission).',
  keywords: ['rename role', 'role permissions', 'edit care role', 'change role permissions'],
  examples: ['let pastoral care leads approve messages', 'rename the prayer team role to prayer ministry', 'stop pastoral visitors seeing confidential records', 'let the curate role approve pastoral texts', 'change what the befriender role is allowed to do', 'give the senior pastor role access to confidential notes', 'update the description of the hospital visitor role', 'the prayer team role should no longer approve outreach', 'call the visitor role Home Visitor from now on', 'allow the pastoral lead role to see confidential records', "edit the bereavement support role's description"],
  input: z.object({
    roleId, name: roleFields.name.optional(), description: roleFields.description.nullable().optional(),
    canApproveOutreach: roleFields.canApproveOutreach.optional(), canViewConfidential: roleFields.canViewConfidential.optional(),
  }),
  output: z.object({ role: careRoleSchema, changed: z.array(z.string()).describe('The fields this call changed') }).strict(),
  run: async (ctx, input) => {
    const { roleId: id, ...changes } = input;
    return setCareRole(ctx.db, ctx.org.id, id, changes);
  },
});

export const removeCareTeamRoleTool = tools.write('remove_care_team_role', {
  title: 'Remove a care team role',
  description: 'Deletes a care team role and every assignment to it (the members stay on the team).',
  keywords: ['delete role', 'remove care role', 'retire role'],
  examples: ['we no longer have a prayer team role', 'scrap the hospital chaplain role', 'delete the befriender role altogether', "get rid of the home communion role, it's not used", 'remove the care role we created by mistake', 'bin the old lay visitor role', "we've disbanded the Anna chaplains, delete that role", 'delete the meals rota care role', "the phone befriender role isn't needed, remove it", "we don't use the hospital visitor role any more", 'take the Anna chaplain role off our care team'],
  destructive: true,
  input: z.object({ roleId }),
  output: z.object({ role: careRoleSchema, removedAssignments: z.number().int() }).strict(),
  run: async (ctx, input) => removeCareRole(ctx.db, ctx.org.id, input.roleId),
});

export const seedCareTeamRolesTool = tools.write('seed_care_team_roles', {
  title: 'Add the usual care team roles',
  description: 'Adds the usual care roles that are missing (Senior pastor and Pastoral care lead, who approve messages and see confidential records; Pastoral visitor; Prayer team). Safe to call again: existing roles of those names are left alone.',
  keywords: ['set up care team', 'default roles', 'standard care roles', 'starter roles'],
  examples: ['set up a care team for us', 'add the standard pastoral roles', 'give us the usual senior pastor, visitor and prayer team roles', "fill in the default care roles we're missing", 'create the normal care team roles to start with', 'set up the recommended pastoral roles', 'add pastoral care lead and visitor roles as standard', "we've no care roles yet, add the standard ones", 'which usual care roles are we missing? add them', 'give our new care team the default set of roles', 'populate the care team with senior pastor, pastoral lead, visitor and prayer team'],
  idempotent: true,
  input: z.object({}),
  output: z.object({ created: z.array(careRoleSchema), existing: z.array(careRoleSchema) }).strict(),
  run: async (ctx) => seedCareRoles(ctx.db, ctx.org.id),
});

export const listCareTeamAssignmentsTool = tools.read('list_care_team_assignments', {
  title: 'Care team assignments',
  description: 'Who holds which care role, for the whole congregation or for particular people; filter by role, member or contact.',
  keywords: ['who visits', 'carers', 'assigned visitor'],
  examples: ['who looks after Mrs Patel', 'which people is John visiting', "who's assigned to visit the Hendersons", 'which parishioners is Mary looking after', 'list everyone with the prayer team role', 'who are the carers for our housebound members', 'show me all visiting assignments', "who is Mr Clarke's pastoral visitor", 'who visits Hilda', "Pat's leaving the care team, which people has she been assigned to", 'which parishioners has Colin got on his visiting list?'],
  input: z.object({
    roleId: roleId.optional(), userId: z.uuid().optional().describe('Only this team member'), contactId: contactIdArg.optional(),
    limit: z.number().int().min(1).max(500).default(100).describe('At most this many'),
  }),
  output: z.object({ assignments: z.array(careAssignmentSchema) }).strict(),
  run: async (ctx, input) => ({ assignments: await listCareAssignments(ctx.db, ctx.org.id, input) }),
});

export const assignCareTeamMemberTool = tools.write('assign_care_team_member', {
  title: 'Assign someone to the care team',
  description: 'Gives a team member a care role, for the whole congregation or (with contactId) for one person. Assigning the same again changes nothing (created false). Refused when the role permits what the member may not do.',
  keywords: ['assign visitor', 'care for', 'add to care team'],
  examples: ['make John the pastoral visitor for Mrs Patel', 'add Sarah to the prayer team', 'put Pauline down as visitor for Mr Clarke', 'make Revd Sue a pastoral care lead', 'Jenny will look after Bert from now on', 'give Dave the hospital visitor role', 'ask Mary to be the carer for the Hendersons', 'add Ahmed to the care team as a befriender', 'Pat to visit Hilda', "Ruth's offered to help with hospital visits so give her that care role", 'can Ian be the carer for Colin from now on?'],
  input: z.object({ roleId, userId: z.uuid().describe('The team member (platform_list_team_members)'), contactId: contactIdArg.optional().describe('The person they care for; leave out for the whole congregation') }),
  output: z.object({ assignment: careAssignmentSchema, created: z.boolean() }).strict(),
  run: async (ctx, input) => assignCareMember(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

export const removeCareTeamAssignmentTool = tools.write('remove_care_team_assignment', {
  title: 'Remove a care team assignment',
  description: 'Takes a care role (for the congregation or one person) away from a team member.',
  keywords: ['unassign visitor', 'unassign care role', 'stop visiting'],
  examples: ['John no longer visits Mrs Patel', 'Mary has stepped back from visiting Mrs Green', 'take Dave off the prayer team role', "Jenny won't be Bert's visitor any more", 'unassign Pauline from Mr Clarke', 'Sue is no longer a pastoral care lead', 'remove Tom as carer for the Wilsons', "Grace is stepping down as Doris's visitor", 'take Peter off visiting the Hughes family', 'Ruth no longer has the prayer team role', "end Anne's assignment as visitor for Stan"],
  destructive: true,
  input: z.object({ assignmentId: z.uuid().describe('The assignment\'s id') }),
  output: z.object({ assignment: careAssignmentSchema, removed: z.literal(true) }).strict(),
  run: async (ctx, input) => ({ assignment: await removeCareAssignment(ctx.db, ctx.org.id, input.assignmentId), removed: true as const }),
});

export const getCareTeamOverviewTool = tools.read('get_care_team_overview', {
  title: 'Care team overview',
  description: 'The care team at a glance: roles, each member with their roles and how many people they care for, how many people have a carer, and high or urgent priority people with none.',
  keywords: ['care team', 'pastoral team overview', 'caseload'],
  examples: ['how is the care team spread', 'who has nobody looking after them', 'how many people has each visitor got', 'is anyone on the pastoral team overloaded', 'urgent cases with no carer assigned', 'care team at a glance', 'how many parishioners have someone looking after them', 'summary of visitors and their caseloads', 'care team overview', "I'm reviewing the visiting scheme, how many people does each carer have", 'is anyone urgent without a visitor?'],
  input: z.object({}),
  output: z.object({
    roles: z.array(careRoleSchema),
    members: z.array(z.object({
      userId: z.uuid(), memberEmail: z.string(), memberName: z.string().nullable(), roles: z.array(z.string()),
      congregationWide: z.boolean().describe('Holds a role for the whole congregation'), contacts: z.number().int().describe('People assigned to them'),
    }).strict()),
    contactsWithCarer: z.number().int(),
    highPriorityWithoutCarer: z.array(z.object({ contactId: z.uuid(), contactName: z.string(), priority: z.enum(CARE_PRIORITIES) }).strict()),
    approversNamed: z.boolean().describe('true when someone holds a role that approves messages (approval is then limited to owners, admins and them)'),
  }).strict(),
  run: async (ctx) => careTeamOverview(ctx.db, ctx.org.id),
});

export const setContactCarePriorityTool = tools.write('set_contact_care_priority', {
  title: 'Set a person\'s care priority',
  description: 'Sets how much care attention a person needs now: low, normal (everyone starts here), high or urgent. The reason is seen by the whole team: keep confidential detail in a private note.',
  keywords: ['priority', 'urgent care', 'needs attention'],
  examples: ['mark Mr Jones as high priority while he is in hospital', 'Mrs Ahmed needs urgent care now', "drop Ron back to normal priority, he's home", 'flag Jean as needing extra attention after her fall', "lower Frank's care priority to low", "Stan's going through chemo, raise his priority to high", 'the Browns need urgent pastoral attention', 'Hilda to urgent', 'Colin is back home and coping, so put his priority back to normal', "can you raise Ruth's care priority to high after the birth?"],
  input: z.object({
    contactId: contactIdArg, priority: z.enum(CARE_PRIORITIES).describe('low, normal, high or urgent'),
    reason: z.string().trim().max(300).optional().describe('Why, in a few words the whole team may see'),
  }),
  output: z.object({ contactId: z.uuid(), priority: z.enum(CARE_PRIORITIES), reason: z.string().nullable(), setAt: z.string(), previousPriority: z.enum(CARE_PRIORITIES) }).strict(),
  run: async (ctx, input) => setContactCarePriority(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

export const getContactCareStatusTool = tools.read('get_contact_care_status', {
  title: 'A person\'s care status',
  description: 'How one person\'s care stands: priority, assigned carers, crisis hold, last pastoral contact and whether a welfare check is due, open note follow-ups and messages waiting. Private and confidential records count only with people:safeguarding.',
  keywords: ['care status', 'last contact', 'who looks after'],
  examples: ['how are we caring for Mrs Patel', 'when did anyone last see him', 'is anyone looking after Frank and when was he last visited', 'is Mrs Ahmed due a welfare check', "what's the care situation for the Browns", "who are Jean's carers and is she on hold", 'care picture for Ron: priority, visitors, last contact', 'has anyone been in touch with Stan lately', "how's Hilda's care", "I'm worried about Colin, who's looking after him and when was he last seen", 'is Ruth due a welfare check?'],
  input: z.object({ contactId: contactIdArg }),
  output: z.object({ status: contactCareStatusSchema }).strict(),
  run: async (ctx, input) => ({ status: await contactCareStatus(ctx.db, ctx.org.id, input.contactId, canSeeRestricted(ctx.principal)) }),
});

export const listCarePredictionsTool = tools.read('list_care_predictions', {
  title: 'Who may need care soon',
  description: 'People who may need care soon, each with the reasons (no pastoral contact for the welfare interval, a recent support life event, a grief touchpoint coming due, a raised care priority, a crisis hold, a regular who has stopped coming to services by the attendance module\'s check-ins). No score: more reasons come first. signalsUnavailable names signals this deployment cannot compute. Private and confidential records count only with people:safeguarding.',
  keywords: ['at risk', 'need care', 'pastoral radar', 'predictions', 'who to visit'],
  examples: ['who should we be checking on this week', 'who might be slipping through the cracks', 'which folk are drifting away and might need a visit', "regulars who've stopped coming and may need support", 'who might need pastoral care soon and why', 'people likely to need our help in the coming weeks', 'early warning list of parishioners who may be struggling', 'who could be at risk of being missed', 'who might need care', "ahead of the pastoral meeting I'd like a list of people likely to need support soon", 'are there people at risk of being forgotten?'],
  input: z.object({ limit: z.number().int().min(1).max(200).default(50).describe('At most this many people') }),
  output: z.object({
    predictions: z.array(carePredictionSchema),
    total: z.number().int().describe('How many people have at least one reason'),
    signalsUsed: z.array(z.string()),
    signalsUnavailable: z.array(z.string()).describe('Signals not computed here, and why none of them appear'),
  }).strict(),
  run: async (ctx, input) => carePredictions(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), input.limit),
});
