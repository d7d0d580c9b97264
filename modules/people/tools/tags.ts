import { z } from 'zod';
import { exactlyOne } from '../../tool';
import { toolsFor } from '../../kit';
import { addContactTags, createTag, createTagCategory, deleteTag, listTags, removeContactTags, updateTag, updateTagCategory } from '../tags';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const tagName = z.string().trim().min(1).max(100);
const colour = z.string().max(7).regex(/^#[0-9a-fA-F]{6}$/, 'a hex colour like #1e90ff');
const tagSchema = z.object({
  id: z.uuid(), name: z.string(), colour: z.string().nullable(), categoryId: z.string().nullable(), category: z.string().nullable(), contactCount: z.number().int(),
}).strict();
const categorySchema = z.object({ id: z.uuid(), name: z.string() }).strict();

export const listTagsTool = tools.read('list_tags', {
  title: 'List tags',
  description: 'The organisation\'s CRM tags with their category, colour and how many contacts carry each.',
  keywords: ['tags', 'labels', 'categories'],
  examples: ['which tags are in use and how many people have each', 'show our list of labels', 'what tags do we have?', 'how many people are tagged choir', 'show all our labels and their colours', 'which badges exist for ministries', 'list the markers we use on people with counts', 'what tags are there in each category', 'all our labels', 'before I make a new label I want to see which ones exist already', 'how many people carry the food bank tag?'],
  input: z.object({ categoryId: z.uuid().optional() }),
  output: z.object({ tags: z.array(tagSchema) }).strict(),
  run: async (ctx, input) => ({ tags: await listTags(ctx.db, ctx.org.id, input.categoryId) }),
});

export const addContactTagsTool = tools.write('add_contact_tags', {
  title: 'Tag a contact',
  description: 'Adds tags to a contact by tag name; tags that do not exist yet are created. Adding a tag the contact already has changes nothing.',
  keywords: ['add tag', 'label contact', 'tag person', 'label someone', 'mark as'],
  examples: ['put a label on someone', 'tag a person as a volunteer', 'tag Jean as choir', 'give Ken the steward label', "add the welcome team badge to Sue's record", 'tag Tom with Youth Leader and DBS Needed', 'put the Alpha 2024 label on Priya', 'flag Dennis as housebound with a tag', 'mark Priya as needing a lift on Sundays', 'tag the whole confirmation class as confirmed 2026', 'label Hilda as housebound', 'Grace has joined the choir, can you add that label to her'],
  idempotent: true,
  input: z.object({ contactId: z.uuid(), tags: z.array(tagName).min(1).max(50) }),
  output: z.object({ added: z.array(z.string()), created: z.array(z.string()) }).strict(),
  run: async (ctx, input) => addContactTags(ctx.db, ctx.org.id, input.contactId, input.tags),
});

export const removeContactTagsTool = tools.write('remove_contact_tags', {
  title: 'Untag a contact',
  description: 'Removes tags from a contact by tag name. The tags themselves stay (delete them with people_delete_crm_tag).',
  keywords: ['remove tag', 'untag', 'remove label'],
  examples: ['take a label off a person', 'this person should not have that tag any more', 'take the choir tag off Jean', "Ken isn't a steward now, remove that label", 'untag Sue from welcome team', "strip the newcomer badge from Priya's record", "Tom's no longer a youth leader, drop the tag from him", 'remove the housebound marker from Dennis', 'untag Colin', 'Gwen has stopped doing teas, so take the refreshments label off her', "can you remove the newcomer label from Ian now he's a member?"],
  idempotent: true,
  input: z.object({ contactId: z.uuid(), tags: z.array(tagName).min(1).max(50) }),
  output: z.object({ removed: z.array(z.string()), notTagged: z.array(z.string()) }).strict(),
  run: async (ctx, input) => removeContactTags(ctx.db, ctx.org.id, input.contactId, input.tags),
});

export const createCrmTagTool = tools.write('create_crm_tag', {
  title: 'Create a tag',
  description: 'Creates an organisation-wide CRM tag, optionally in a category and with a colour.',
  keywords: ['new tag', 'new label'],
  examples: ['add a new label to choose from', 'set up a tag for a new ministry', 'make a new tag called Food Bank Volunteer', 'create a green label for Baptism Prep', 'add a Messy Church tag under Ministries', 'we need a new badge for the Alpha course 2025', 'set up a tag for hospital visitors', 'new label: Christmas Helpers, in red', 'new label: Bell Ringers', "we're starting a toddler group so I need a label for parents who come", 'can you create a purple tag called Lay Readers?'],
  input: z.object({ name: tagName, colour: colour.optional(), categoryId: z.uuid().optional() }),
  output: z.object({ tag: tagSchema }).strict(),
  run: async (ctx, input) => ({ tag: await createTag(ctx.db, ctx.org.id, input) }),
});

export const updateCrmTagTool = tools.write('update_crm_tag', {
  title: 'Update a tag',
  description: 'Renames a tag or changes its colour or category; contacts keep the tag.',
  keywords: ['rename tag', 'rename label'],
  examples: ['change what a label is called or its colour', 'rename a tag', 'rename the Youth tag to Youth Group', 'change the colour of the choir label to blue', 'move the Stewards tag into the Ministries category', 'fix the spelling of the Pastrol Care tag', 'make the newcomer badge orange', 'change the tag Alpha to Alpha Course 2025', 'rename the Flowers label', "the Sunday School label should now say Kids' Church, can you change it", 'can the welcome tag be yellow instead of grey?'],
  idempotent: true,
  input: z.object({ tagId: z.uuid(), name: tagName.optional(), colour: colour.nullable().optional(), categoryId: z.uuid().nullable().optional() }),
  output: z.object({ tag: tagSchema }).strict(),
  run: async (ctx, input) => ({ tag: await updateTag(ctx.db, ctx.org.id, input) }),
});

export const deleteCrmTagTool = tools.write('delete_crm_tag', {
  title: 'Delete a tag',
  description: 'Deletes a tag (by tagId or name) and removes it from every contact; the contacts stay.',
  keywords: ['remove tag everywhere', 'delete label'],
  examples: ['remove a tag from everyone and delete it', 'we no longer need this label at all', 'delete the Alpha 2019 tag completely', 'get rid of the old Lent course label altogether', 'bin the tag nobody uses any more', 'scrap the Covid helpers tag across the board', 'remove the test tag from the system', 'wipe out the duplicate label Choir2', 'delete the Jubilee label', 'the 2020 lockdown callers label is out of date, remove it from everyone and delete it', 'can we get rid of a tag entirely?'],
  destructive: true,
  input: z.object({ tagId: z.uuid().optional(), name: tagName.optional() }).refine(...exactlyOne('tagId', 'name')),
  output: z.object({ tag: tagSchema, untaggedContacts: z.number().int() }).strict(),
  run: async (ctx, input) => deleteTag(ctx.db, ctx.org.id, input),
});

export const createTagCategoryTool = tools.write('create_tag_category', {
  title: 'Create a tag category',
  description: 'Creates a category to group tags (e.g. Ministries, Skills).',
  keywords: ['tag group', 'label group'],
  examples: ['a new group to organise our labels', 'add a heading for tags', 'create a Skills category for tags', 'add a tag group called Ministries', 'new heading for labels: Life Stage', 'set up a category to hold all our volunteer tags', 'make a category called Courses for our tags', 'start a section for pastoral labels', 'new label group: Groups', "we've got lots of training labels, I'd like a heading called Training to keep them together", 'can I have a category for safeguarding labels?'],
  input: z.object({ name: tagName }),
  output: z.object({ category: categorySchema }).strict(),
  run: async (ctx, input) => ({ category: await createTagCategory(ctx.db, ctx.org.id, input.name) }),
});

export const updateTagCategoryTool = tools.write('update_tag_category', {
  title: 'Rename a tag category',
  description: 'Renames a tag category; the tags in it keep their category.',
  keywords: ['rename category'],
  examples: ['rename a group of labels', 'change the name of a tag heading', 'rename the Skills tag category to Gifts', 'change the Ministries heading to Ministry Teams', 'fix the typo in the Corses tag group', 'call the Life Stage category Age Group instead', 'rename our label group', 'the tag category name is wrong, change it to Volunteering', 'rename the Volunteers heading', 'we call them Serving Teams now, so rename the Ministries label group', 'how do I change the name of a tag category?'],
  idempotent: true,
  input: z.object({ categoryId: z.uuid(), name: tagName }),
  output: z.object({ category: categorySchema }).strict(),
  run: async (ctx, input) => ({ category: await updateTagCategory(ctx.db, ctx.org.id, input.categoryId, input.name) }),
});
