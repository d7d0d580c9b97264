import { z } from 'zod';
import { visitorCardPreviewPath } from '../visitor-card-page';
import { exactlyOne } from '../../../tool';
import { toolsFor } from '../../../kit';
import { requireContact } from '../../contacts';
import { GROUP_STATUSES } from '../../crm-groups';
import { addContactTags, removeContactTags, requireTag } from '../../tags';
import { contactSummarySchema } from '../../schemas';
import { contactTagsApi, crmGroupDetail, crmGroupMembersApi, crmGroupsApi, crmLocations, crmSubscription, crmTagsApi, departments } from '../crm';
import { communitySearch, executeSavedSearch, saveSearch, searchConfig, searchFiltersSchema } from '../searches';
import { cardSampleToken, visitorCardForm } from '../qr';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });
const contactId = z.uuid().describe('The contact\'s id');

const tagSchema = z.object({
  id: z.uuid(), name: z.string(), colour: z.string().nullable(), categoryId: z.string().nullable(), category: z.string().nullable(), contactCount: z.number().int(),
}).strict();
const groupSchema = z.object({ id: z.uuid(), name: z.string(), description: z.string().nullable(), status: z.enum(GROUP_STATUSES), memberCount: z.number().int() }).strict();
const memberSchema = z.object({ memberId: z.uuid(), contactId: z.uuid(), displayName: z.string(), email: z.string().nullable(), role: z.string().nullable(), joinedAt: z.string() }).strict();

// ---------------------------------------------------------------- tags and groups, as the dashboard API gives them

export const listCrmTagsApiTool = tools.read('list_crm_tags_api', {
  title: 'CRM tags (tag manager)',
  description: 'The tag manager\'s data: every tag with colour, category and contact count, and every category with how many tags it holds. For tags alone, people_list_tags.',
  keywords: ['tag manager', 'tag categories', 'tags with categories', 'which category each tag is in'],
  examples: ['open the tag manager', 'show tags grouped by their categories', 'which tag categories do we have and what is in them', 'how many tags are in each category', 'tags with their colour and category for the tag manager', 'list tag categories with counts', 'what category is the choir tag in', 'full tag manager view, tags and categories', 'labels by category', "I'm reorganising our labels, show me every category and the tags inside it", 'which category is the safeguarding tag in?'],
  input: z.object({}),
  output: z.object({ tags: z.array(tagSchema), categories: z.array(z.object({ id: z.uuid(), name: z.string(), tagCount: z.number().int() }).strict()) }).strict(),
  run: async (ctx) => crmTagsApi(ctx.db, ctx.org.id),
});

const contactTagSchema = z.object({ id: z.uuid(), name: z.string(), colour: z.string().nullable(), category: z.string().nullable(), taggedAt: z.string() }).strict();

export const listContactTagsApiTool = tools.read('list_contact_tags_api', {
  title: 'A contact\'s tags',
  description: 'The tags one person carries, with colour, category and when each was given.',
  keywords: ['tags of a person', 'labels on a contact'],
  examples: ['tag chips on Jean\'s profile with their colours', 'when was Sue given the volunteer tag', 'which tags does Ken carry', "what labels are on Brian's record and when were they added", 'tags on Mrs Ahmed with their categories', "list the tags on Tom's profile", "show Jean's tags and colours", 'what has the Okafor lad been tagged with', "Hilda's tags", "Colin thinks he's still tagged as a steward, what labels does he have and since when", 'when was Ruth given the newcomer tag?'],
  input: z.object({ contactId }),
  output: z.object({ contactId: z.uuid(), tags: z.array(contactTagSchema) }).strict(),
  run: async (ctx, input) => {
    await requireContact(ctx.db, ctx.org.id, input.contactId);
    return { contactId: input.contactId, tags: await contactTagsApi(ctx.db, ctx.org.id, input.contactId) };
  },
});

const oneTag = z.object({
  contactId,
  tagId: z.uuid().optional().describe('An existing tag\'s id'),
  tagName: z.string().trim().min(1).max(100).optional().describe('A tag\'s name; adding creates it if missing'),
}).refine(...exactlyOne('tagId', 'tagName'));

export const addContactTagApiTool = tools.write('add_contact_tag_api', {
  title: 'Give a contact one tag',
  description: 'Adds one tag, by id or by name, to a person, as the profile\'s tag picker does; a name that is no tag yet creates it. Adding a tag they have changes nothing. For several tags by name, people_add_contact_tags.',
  keywords: ['tag picker', 'add one tag', 'pick a tag from the list'],
  examples: ['pick the choir tag for Jean', 'add this tag id to Tom', 'give Sue the Alpha 2025 tag from the picker', 'add one tag to Ken from the tag list', 'give Brian tag 12', 'select the welcome team tag for Mrs Ahmed', 'add a single new tag Bell Ringers to Tom', 'pick one tag for Sue from the dropdown', 'give Hilda the housebound tag', "on Colin's profile I want to pick the stewards tag from the list", 'can you add tag 8 to Ruth?'],
  idempotent: true,
  input: oneTag,
  output: z.object({ contactId: z.uuid(), tags: z.array(contactTagSchema), added: z.boolean(), created: z.boolean() }).strict(),
  run: async (ctx, input) => {
    const name = input.tagId ? (await requireTag(ctx.db, ctx.org.id, { tagId: input.tagId })).name : input.tagName!;
    const result = await addContactTags(ctx.db, ctx.org.id, input.contactId, [name]);
    return { contactId: input.contactId, tags: await contactTagsApi(ctx.db, ctx.org.id, input.contactId), added: result.added.length > 0, created: result.created.length > 0 };
  },
});

export const removeContactTagApiTool = tools.write('remove_contact_tag_api', {
  title: 'Take one tag off a contact',
  description: 'Removes one tag, by id or by name, from a person, as the profile\'s tag chip does; the tag itself stays. For several by name, people_remove_contact_tags.',
  keywords: ['remove tag chip', 'untag one'],
  examples: ['take the choir chip off Jean', 'remove this tag id from Tom\'s profile', 'untick the newcomer tag for Sue', 'drop the steward chip from Colin', 'Hilda no longer needs a lift, take that one tag off her profile', 'can you remove tag 8 from Ruth?'],
  idempotent: true,
  input: oneTag,
  output: z.object({ contactId: z.uuid(), tags: z.array(contactTagSchema), removed: z.boolean() }).strict(),
  run: async (ctx, input) => {
    const name = input.tagId ? (await requireTag(ctx.db, ctx.org.id, { tagId: input.tagId })).name : input.tagName!;
    const result = await removeContactTags(ctx.db, ctx.org.id, input.contactId, [name]);
    return { contactId: input.contactId, tags: await contactTagsApi(ctx.db, ctx.org.id, input.contactId), removed: result.removed.length > 0 };
  },
});

export const listCrmGroupsApiTool = tools.read('list_crm_groups_api', {
  title: 'CRM groups (dashboard list)',
  description: 'The dashboard\'s ministry team list: CRM groups with member counts, by status and optionally matching words in the name or description. Not Small Groups.',
  keywords: ['teams list', 'filter teams', 'teams whose name has'],
  examples: ['find the teams with music in the name', 'which teams mention children in their description', 'active ministry teams matching the word youth', 'archived teams with member counts', 'teams whose description mentions prayer', 'search the team list for welcome', 'on-hold ministry teams in the dashboard list', 'filter teams by the word bells', 'teams with prayer in the name', "I'm looking for the team that does the lunch club, search the team list for lunch", 'which archived teams mention youth?'],
  input: z.object({ status: z.enum(GROUP_STATUSES).optional(), query: z.string().trim().min(1).max(100).optional() }),
  output: z.object({ groups: z.array(groupSchema) }).strict(),
  run: async (ctx, input) => ({ groups: await crmGroupsApi(ctx.db, ctx.org.id, input) }),
});

export const listCrmGroupMembersApiTool = tools.read('list_crm_group_members_api', {
  title: 'CRM group members (paged)',
  description: 'One ministry team\'s members a page at a time (by groupId), with total and nextOffset. For the whole list by name, people_list_crm_group_members.',
  keywords: ['team members page', 'paged members'],
  examples: ['next page of the welcome team members', 'first 20 members of the worship team by id', 'page two of the choir team members', 'members of team 12, 50 at a time', 'next 25 on the flower team list', 'how many are on the sound team, paged', 'offset 100 of the stewards team members', 'first page of the youth team roster by group id', 'next page of the tea team', 'the choir team has 120 members, show them 30 at a time', 'can I see page three of the stewards members?'],
  input: z.object({ groupId: z.uuid(), limit: z.number().int().min(1).max(200).default(50), offset: z.number().int().min(0).max(100000).default(0) }),
  output: z.object({ group: groupSchema, members: z.array(memberSchema), total: z.number().int(), nextOffset: z.number().int().nullable() }).strict(),
  run: async (ctx, input) => crmGroupMembersApi(ctx.db, ctx.org.id, input.groupId, input),
});

export const getCrmGroupTool = tools.read('get_crm_group', {
  title: 'A CRM group',
  description: 'One ministry team by id or name: its details, member count, how many hold each role and when someone last joined.',
  keywords: ['team details', 'one ministry team'],
  examples: ['how many leaders does the youth team have', 'when did someone last join the choir team', 'roles on the welcome team with counts', 'details of the flower team and its member count', 'how many coordinators does the sound team have', "show team 7's description and roles", 'when did anyone last join the bell ringers', "one ministry team's details: the pastoral care team", "the tea team's details", "I'm reviewing the bell ringers, how many are in it and when did anyone last join", "how many leaders does the kids' work team have?"],
  input: z.object({ groupId: z.uuid().optional(), groupName: z.string().trim().min(1).max(200).optional() }).refine(...exactlyOne('groupId', 'groupName')),
  output: z.object({ group: groupSchema, roles: z.record(z.string(), z.number().int()), lastJoinedAt: z.string().nullable() }).strict(),
  run: async (ctx, input) => crmGroupDetail(ctx.db, ctx.org.id, input),
});

export const listCrmLocationsTool = tools.read('list_crm_locations', {
  title: 'Where people live',
  description: 'Towns and postcode districts of the organisation\'s live contacts with how many live in each, and how many have no location. For church buildings and rooms see the spaces tools.',
  keywords: ['locations', 'towns', 'postcode areas', 'where members live'],
  examples: ['where do our people live', 'which towns do most of the congregation come from', 'how many contacts have no address', 'postcode areas of our members', 'which postcode districts do our contacts come from', 'how many live in each town', 'members per postcode area for the parish map', 'count of contacts with no location', 'where our people live', "we're planning a new home group and want to know which towns have the most of us", 'how many people live in each postcode area?'],
  input: z.object({ limit: z.number().int().min(1).max(200).default(25) }),
  output: z.object({
    towns: z.array(z.object({ town: z.string(), contacts: z.number().int() }).strict()),
    postcodeDistricts: z.array(z.object({ district: z.string(), contacts: z.number().int() }).strict()),
    withoutLocation: z.number().int(),
  }).strict(),
  run: async (ctx, input) => crmLocations(ctx.db, ctx.org.id, input.limit),
});

export const listDepartmentsTool = tools.read('list_departments', {
  title: 'Departments',
  description: 'Departments: the active ministry teams (CRM groups) with member counts and their leaders (members whose role says leader, head, chair or coordinator).',
  keywords: ['departments', 'department heads', 'team leaders'],
  examples: ['list our departments and who leads each', 'who heads the children\'s department', 'department leaders and sizes', 'which department leaders do we have', 'department heads and how many in each', 'who coordinates each active ministry department', 'list departments with their chairs', "children's, music and pastoral departments with leaders", 'who leads each department', 'the new vicar wants to meet each department leader, who are they', 'which departments do we have and how big are they?'],
  input: z.object({}),
  output: z.object({
    departments: z.array(z.object({
      id: z.uuid(), name: z.string(), description: z.string().nullable(), members: z.number().int(),
      leaders: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), role: z.string() }).strict()),
    }).strict()),
  }).strict(),
  run: async (ctx) => ({ departments: await departments(ctx.db, ctx.org.id) }),
});

// ---------------------------------------------------------------- searches

const savedSearchSchema = z.object({
  id: z.uuid(), name: z.string(), filters: z.object({ query: z.string().optional(), status: z.string().optional(), membershipStatus: z.string().optional(), tag: z.string().optional() }).strict(),
  createdAt: z.string(),
}).strict();

export const listCrmSearchConfigTool = tools.read('list_crm_search_config', {
  title: 'CRM search options and saved searches',
  description: 'What the CRM search accepts (text, status, stage, tag, with the values each takes today) and the organisation\'s saved searches.',
  keywords: ['saved searches', 'search filters', 'search options'],
  examples: ['what saved searches do we have', 'which filters can I search contacts by', 'list our saved CRM searches', 'what values can I filter contacts by today', 'which stages and statuses can I search on', 'show the CRM search options and our saved searches', 'list the search filters and tags available', 'what saved contact searches exist', 'our saved searches', "I'm building a search and need to know which tags and stages I can filter on", 'what filters does the contact search take?'],
  input: z.object({}),
  output: z.object({
    filters: z.array(z.object({ field: z.string(), kind: z.enum(['text', 'choice']), description: z.string(), values: z.array(z.string()).nullable() }).strict()),
    savedSearches: z.array(savedSearchSchema),
  }).strict(),
  run: async (ctx) => searchConfig(ctx.db, ctx.org.id),
});

export const saveCrmSearchTool = tools.write('save_crm_search', {
  title: 'Save a CRM search',
  description: 'Saves a contact search (text and filters, as people_search_contacts takes them) under a name, to run again with people_execute_saved_crm_search; replace: true changes the filters of an existing one of that name. A saved search is deleted through the dashboard route DELETE /api/people/searches/{searchId}.',
  keywords: ['save search', 'remember search', 'saved filter', 'keep this search', 'use it again'],
  examples: ['save this search as subscribed members', 'remember the search for visitors tagged youth', 'save a search called Choir people', 'change the saved search Newcomers to returning visitors only', 'save members tagged Alpha as a search called Alpha grads', 'keep this filter as Lapsed visitors to use again', 'store a search for subscribed choir members', 'replace the Youth parents saved search with new filters', 'save this as Welcome Team', 'I search for subscribed visitors every Monday, keep it as a search called Monday visitors', 'can I save this filter to reuse later?'],
  input: z.object({
    name: z.string().trim().min(1).max(100),
    filters: searchFiltersSchema,
    replace: z.boolean().default(false),
  }),
  output: z.object({ search: savedSearchSchema, replaced: z.boolean() }).strict(),
  run: async (ctx, input) => saveSearch(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

export const executeSavedCrmSearchTool = tools.read('execute_saved_crm_search', {
  title: 'Run a saved CRM search',
  description: 'Runs a saved search (by id or name) against today\'s contacts and returns the matches, best first.',
  keywords: ['run saved search', 'saved filter results'],
  examples: ['run the saved search subscribed members', 'who matches our Choir people search today', 'run saved search visitors tagged youth', 'run our Lapsed visitors search', 'who is in the Alpha grads search now', 'results of saved search 5', 'run the Youth parents search, top 20', 're-run the saved filter for new volunteers', 'run Monday visitors', "it's time for the weekly newcomer calls, run our saved search for them", "who's in the Choir people search now?"],
  input: z.object({ searchId: z.uuid().optional(), name: z.string().trim().min(1).max(100).optional(), limit: z.number().int().min(1).max(100).default(25) })
    .refine(...exactlyOne('searchId', 'name')),
  output: z.object({ search: savedSearchSchema, contacts: z.array(contactSummarySchema), count: z.number().int() }).strict(),
  run: async (ctx, input) => executeSavedSearch(ctx.db, ctx.org.id, input, input.limit),
});

export const executeCommunitySearchTool = tools.read('execute_community_search', {
  title: 'Search the community roster',
  description: 'Finds people on the community roster by name or email (current members; includeLeft adds those who left), with when they joined and their consent to be celebrated. For all contacts, people_search_contacts.',
  keywords: ['community search', 'roster search', 'church family search'],
  examples: ['is Pat on the community roster', 'search the community roster for Smith', 'roster members called Ann, including those who left', 'look up Jones on the church family roster', 'who joined the community roster called Brian', 'roster members with a gmail address', 'find Mrs Ahmed on the community roster and whether she can be celebrated', 'search former roster members for Hughes', 'roster search for Obi', 'Colin says he joined the church family last year, is he on the roster', 'has Ruth left the community roster?'],
  input: z.object({ query: z.string().trim().max(200).optional(), includeLeft: z.boolean().default(false), limit: z.number().int().min(1).max(100).default(25) }),
  output: z.object({
    members: z.array(z.object({
      contactId: z.uuid(), displayName: z.string(), membershipStatus: z.string().nullable(), joinedOn: z.string(), leftOn: z.string().nullable(), celebrationConsent: z.boolean(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ members: await communitySearch(ctx.db, ctx.org.id, input) }),
});

// ---------------------------------------------------------------- visitor cards and subscription

export const getVisitorCardFormTool = tools.read('get_visitor_card_form', {
  title: 'Visitor card form',
  description: 'The visitor (connect) card\'s form: the standard fields with which are required, then the organisation\'s custom fields with their types and options.',
  keywords: ['connect card', 'visitor card', 'welcome card form'],
  examples: ['what does our visitor card ask', 'show the connect card fields', 'which questions are on the welcome card', 'which fields are required on the visitor card', 'what custom questions are on our connect card', 'list the welcome card fields and options', 'what does a newcomer fill in on the card', 'show the form behind our visitor card', 'visitor card fields', "we're reprinting the welcome cards and I need to know what the online one asks", 'does our connect card ask for a postcode?'],
  input: z.object({}),
  output: z.object({
    fields: z.array(z.object({ key: z.string(), label: z.string(), type: z.string(), required: z.boolean(), source: z.enum(['standard', 'custom']), options: z.array(z.string()).nullable() }).strict()),
    consentNote: z.string(),
  }).strict(),
  run: async (ctx) => visitorCardForm(ctx.db, ctx.org.id),
});

export const getCardSampleTokenTool = tools.read('get_card_sample_token', {
  title: 'Visitor card sample token',
  description: 'A signed token, valid for an hour, for previewing the visitor card: previewPath is the card\'s page as a visitor sees it (served by Steward), which shows the form and can never create a contact.',
  keywords: ['card preview', 'sample token'],
  examples: ['give me a sample token to preview the visitor card', 'preview link token for the connect card', 'token to test the visitor card without making a contact', 'I want to preview the welcome card form', 'sample link for trying the connect card', 'get a preview token for the visitor form', 'one-hour token to show the card to the PCC', 'test the visitor card safely', 'card preview token', "I'm showing the welcome team the online connect card on Sunday, get me a preview link", 'can I try the visitor card without adding a real person?'],
  input: z.object({}),
  output: z.object({ token: z.string(), expiresAt: z.string(), previewOnly: z.literal(true), previewPath: z.string().describe('The preview page, relative to Steward\'s address') }).strict(),
  run: async (ctx) => {
    const sample = cardSampleToken(ctx.org.id);
    return { ...sample, previewPath: visitorCardPreviewPath(ctx.org.id, sample.token) };
  },
});

export const getCrmSubscriptionTool = tools.read('get_crm_subscription', {
  title: 'CRM subscription',
  description: 'The organisation\'s plan as the CRM sees it: the contacts allowance, how many live contacts it holds, what is left and whether it is at the limit. For billing, the billing tools.',
  keywords: ['contact limit', 'plan allowance', 'how many contacts can we have'],
  examples: ['how many more contacts can we add on our plan', 'are we at our contact limit', 'what is our CRM plan allowance', 'how many contacts does our plan allow', 'contacts used against our allowance', 'how many contact slots are left', 'have we hit the CRM contact cap', 'contacts allowance on our subscription', 'contact allowance left?', "we're about to import the school families, have we room on our plan for them", 'how close are we to our contact limit?'],
  input: z.object({}),
  output: z.object({
    planCode: z.string(), contactsAllowance: z.number().int().nullable(), liveContacts: z.number().int(), remaining: z.number().int().nullable(),
    percentUsed: z.number().nullable(), atLimit: z.boolean(),
  }).strict(),
  run: async (ctx) => crmSubscription(ctx.db, ctx.org.id, ctx.org.planCode),
});

export const crmTools = [
  listCrmTagsApiTool, listContactTagsApiTool, addContactTagApiTool, removeContactTagApiTool, listCrmGroupsApiTool, listCrmGroupMembersApiTool,
  getCrmGroupTool, listCrmLocationsTool, listDepartmentsTool, listCrmSearchConfigTool, saveCrmSearchTool, executeSavedCrmSearchTool,
  executeCommunitySearchTool, getVisitorCardFormTool, getCardSampleTokenTool, getCrmSubscriptionTool,
];
