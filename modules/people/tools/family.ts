import { z } from 'zod';
import { toolsFor } from '../../kit';
import { addFamilyRelationship, listFamily, listHousehold, removeFamilyRelationship } from '../family';
import { RELATIONSHIP_LABELS } from '../family-labels';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const linkSchema = z.object({ contactId: z.uuid(), relatedContactId: z.uuid(), relationship: z.string() }).strict();
const memberSchema = z.object({ contactId: z.uuid(), displayName: z.string() }).strict();

export const addFamilyRelationshipTool = tools.write('add_family_relationship', {
  title: 'Link two contacts as family',
  description: 'Links two contacts as family. `relationship` describes the related contact relative to contactId (contactId = Anna, relatedContactId = Ben, relationship = son: Ben is Anna\'s son). The inverse link is created automatically (gendered words follow the person\'s gender where known). Spouse, partner, parent and child links also put both in one household unless sameHousehold is false. Linking twice changes nothing. The only way to record family: never use custom fields or notes for it.',
  keywords: ['family', 'spouse', 'husband', 'wife', 'parent', 'child', 'relative', 'household link', 'married'],
  examples: ['record that two people are married', 'say who is whose parent or child', "Sue is Dave's wife", 'link Tom to his mum Karen Jones', 'record that Ella and Max are brother and sister', "Jack's grandad is Bill Hughes, connect them", "mark Anna as Ben's partner", 'Lily is the daughter of Mark and Claire Evans', "Ruth is Ian's wife", "the Barkers' son Noah has just been added, link him to his parents", 'can you connect Amara to her grandmother Joy?'],
  idempotent: true,
  listed: true,
  input: z.object({
    contactId: z.uuid(),
    relatedContactId: z.uuid(),
    relationship: z.enum(RELATIONSHIP_LABELS as [string, ...string[]]),
    sameHousehold: z.boolean().optional().describe('Default: true for spouse/partner/parent/child/guardian links'),
  }),
  output: z.object({ link: linkSchema, inverse: linkSchema, familyId: z.string().nullable() }).strict(),
  run: async (ctx, input) => addFamilyRelationship(ctx.db, ctx.org.id, input),
});

export const removeFamilyRelationshipTool = tools.write('remove_family_relationship', {
  title: 'Unlink family',
  description: 'Removes the family link between two contacts, in both directions. Households are left as they are.',
  keywords: ['unlink family', 'remove relative'],
  examples: ['these two are not actually related', 'a family link was recorded by mistake', "Sam and Jo aren't married any more, unlink them", "take off the link saying Bill is Jack's grandad", "remove Karen as Tom's mum, wrong person", 'Dave and Sue have divorced, remove the spouse link', 'undo the sibling link between Ella and Max', "those two Smiths aren't related, break the connection", 'unlink Ruth and Ian', 'I linked Noah to the wrong Barker, undo that family connection', 'how do I remove the step-dad link between Kyle and Gary?'],
  destructive: true,
  input: z.object({ contactId: z.uuid(), relatedContactId: z.uuid() }),
  output: z.object({ removedLinks: z.number().int() }).strict(),
  run: async (ctx, input) => ({ removedLinks: await removeFamilyRelationship(ctx.db, ctx.org.id, input.contactId, input.relatedContactId) }),
});

export const listFamilyTool = tools.read('list_family', {
  title: 'List family',
  description: 'A contact\'s family links: each related contact with what they are to this contact (e.g. wife, son).',
  keywords: ['relatives', 'family members', 'relationships'],
  examples: ['who is related to this person', "show someone's spouse, parents and children", "who are Margaret's children?", 'is Bill married, and who to?', 'who are the parents of the Evans kids', "list Tom's relatives on file", "who is Jack's grandad?", 'what family do we have linked to Jean', "Ian's family", "I'm writing a funeral address for Joy and need to know her children and grandchildren", 'does Amara have any relatives on our system?'],
  input: z.object({ contactId: z.uuid() }),
  output: z.object({ family: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), relationship: z.string() }).strict()) }).strict(),
  run: async (ctx, input) => ({ family: await listFamily(ctx.db, ctx.org.id, input.contactId) }),
});

export const listHouseholdTool = tools.read('list_household', {
  title: 'List household',
  description: 'Everyone in the contact\'s household (the flat familyId group), including the contact.',
  keywords: ['household', 'family group', 'lives with', 'home'],
  examples: ['who lives with this person', 'everyone at the same home', "who else is at Jean's address", 'everyone in the Patel household', 'list the people living with Mr Green', 'which family members share a home with Ella', 'show the whole household for the Jones family', "who's in the same house as Tom", "who's at the Obi house", 'sending one Christmas card per home, who lives with Hilda', 'which people share an address with Colin?'],
  input: z.object({ contactId: z.uuid() }),
  output: z.object({ familyId: z.string().nullable(), members: z.array(memberSchema) }).strict(),
  run: async (ctx, input) => listHousehold(ctx.db, ctx.org.id, input.contactId),
});
