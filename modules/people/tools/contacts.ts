import { z } from 'zod';
import type { Queryable } from '../../../db/pool';
import { StewardError } from '../../../core/errors';
import { hasScope } from '../../../core/principal';
import { SAFEGUARDING_SCOPE } from '../../../core/scopes';
import type { ToolContext } from '../../tool';
import { toolsFor } from '../../kit';
import {
  createContact, deleteContact, findLikelyDuplicates, listContacts, requireContact, searchContacts, toSummary, updateContact,
} from '../contacts';
import { defaultPostcodeProvider, deriveAddress, type AddressDerivation } from '../postcodes';
import { CONTACT_STATUSES, MEMBERSHIP_STATUSES, contactFields, contactSchema, contactSummarySchema, duplicateSchema } from '../schemas';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

export const addressDerivationSchema = z.object({
  derived: z.boolean(),
  reason: z.enum(['provider_unavailable', 'postcode_not_found', 'not_a_uk_postcode', 'address_given']).optional(),
}).strict();

/** What the result tells the caller about postcode derivation (never the raw provider answer). */
export function derivationReport(derivation: AddressDerivation | undefined) {
  return derivation ? { addressDerivation: { derived: derivation.derived, ...(derivation.reason ? { reason: derivation.reason } : {}) } } : {};
}

export const derivePostcodeAddress = (input: { addressPostcode?: unknown }, deps: { db: Queryable }) =>
  deriveAddress(deps.db, defaultPostcodeProvider(), input);

const contactId = z.uuid().describe('The contact\'s id (from people_search_contacts or people_list_contacts)');
const listFilters = {
  status: z.enum(CONTACT_STATUSES).optional().describe('Marketing/consent status'),
  membershipStatus: z.enum(MEMBERSHIP_STATUSES).optional().describe('Welcome Desk lifecycle stage'),
  tag: z.string().trim().min(1).max(100).optional().describe('Tag name'),
};

const createInput = z.object(
  Object.fromEntries(Object.entries(contactFields).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof contactFields]: z.ZodOptional<(typeof contactFields)[K]> },
);

/** Fields that always hold a value: null cannot clear them. */
const NEVER_NULL = new Set(['status', 'whatsappConsent']);

export const contactWriteFields = Object.fromEntries(
  Object.entries(contactFields).map(([k, v]) => [k, NEVER_NULL.has(k) ? v.optional() : v.nullable().optional()]),
) as { [K in keyof typeof contactFields]: z.ZodOptional<z.ZodNullable<(typeof contactFields)[K]>> };

const updateInput = z.object({ contactId, ...contactWriteFields });

export const createContactTool = tools.write('create_contact', {
  title: 'Create a contact',
  description: 'Adds a person to the CRM. Needs an email, or a first and last name. Dates use the organisation\'s format (day before month for UK organisations) or YYYY-MM-DD. A UK postcode alone fills city, county and country (then addressLine1 is house number plus street); if the postcode service is down the contact is still saved and addressDerivation says so. Search first with people_search_contacts: the result lists likely duplicates (same email, phone or name) so you can merge instead. Counts against the plan\'s contact allowance.',
  keywords: ['add person', 'new member', 'register', 'new contact', 'add someone'],
  examples: ['add a new person to our records', 'enter the details of someone who just joined', 'add Margaret Wilson to the database, she started coming in June', 'new family joined today, can you put them on the system', 'set up a record for our new curate, Revd Tom Harris', 'register a newcomer: Priya Shah, priya.shah@gmail.com', 'put the new lady from the coffee morning on our books', 'create a profile for John Ellis, postcode SW1A 1AA', 'new person to add: Grace Obi', "Kwame started coming to the evening service, he'd like to be on our list", 'I need to add a couple who visited on Sunday, Ruth and Ian Barker'],
  listed: true,
  meter: { feature: 'contacts', units: 1 },
  input: createInput,
  output: z.object({ contact: contactSchema, likelyDuplicates: z.array(duplicateSchema), addressDerivation: addressDerivationSchema.optional() }).strict(),
  prepare: derivePostcodeAddress,
  timeline: (_input, output) => [{
    contactId: output.contact.id, kind: 'contact_created', sourceKind: 'contact', sourceId: output.contact.id,
    summary: `${output.contact.displayName} was added to the CRM`,
  }],
  run: async (ctx, input) => {
    const derivation = ctx.prepared as AddressDerivation | undefined;
    const likelyDuplicates = await findLikelyDuplicates(ctx.db, ctx.org.id, input);
    const contact = await createContact(ctx.db, ctx.org, input, derivation);
    return { contact, likelyDuplicates, ...derivationReport(derivation) };
  },
});

export const getContactTool = tools.read('get_contact', {
  title: 'Get a contact',
  description: 'Returns one contact\'s full record by id: name, contact details, address, statuses, church dates, custom fields and tags. Use people_search_contacts to find the id.',
  keywords: ['contact details', 'profile', 'person record'],
  examples: ["open someone's full record", 'show everything we hold on one person', "pull up Dorothy Green's record", 'what address and phone number do we have for Mr Ahmed', 'show me everything on file for Brian Clarke', "what's Jean's date of birth and membership status?", 'bring up the full profile for our churchwarden', "let me see all of Sue Taylor's details", "Hilda's record please", 'Ian rang and I need his details in front of me, can you open his record', 'what do we have on file for Grace Obi?'],
  listed: true,
  input: z.object({ contactId }),
  output: z.object({ contact: contactSchema }).strict(),
  run: async (ctx, input) => ({ contact: await requireContact(ctx.db, ctx.org.id, input.contactId) }),
});

export const searchContactsTool = tools.read('search_contacts', {
  title: 'Search contacts',
  description: 'Finds people by name, email or phone (free text in `query`), optionally narrowed by status, membership status or tag. Best matches first. Use before creating a contact to avoid duplicates.',
  keywords: ['find person', 'look up someone', 'lookup by email', 'who is'],
  examples: ['find a person by their name', 'is this person already in our records', 'who has this email address', 'do we have anyone called Patel?', 'whose mobile is 07700 900456', 'is Gareth Evans already on the system before I add him', 'find the parishioner with the surname Okafor', 'search for anyone named Sue with the choir tag', "who's got the email jbrown@btinternet.com", 'look up Marsh', "a Mrs Kaur rang but I didn't catch her first name, can you find her", 'is there anyone with a number ending 4471?'],
  listed: true,
  input: z.object({
    query: z.string().trim().max(200).optional().describe('Name, email or phone, in any part'),
    ...listFilters,
    limit: z.number().int().min(1).max(100).default(20),
  }),
  output: z.object({ contacts: z.array(contactSummarySchema), count: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const contacts = await searchContacts(ctx.db, ctx.org.id, input.query, input, input.limit);
    return { contacts: contacts.map(toSummary), count: contacts.length };
  },
});

export const listContactsTool = tools.read('list_contacts', {
  title: 'List contacts',
  description: 'Pages through contacts, newest first, optionally filtered by status, membership status or tag. The result carries `total` when a filter is given; for the organisation\'s overall total use platform_overview.',
  keywords: ['all contacts', 'browse people', 'paginate', 'church directory'],
  examples: ['browse through all our people', 'list everyone with member status', 'show me all our members, page by page', 'list every regular tagged youth', 'give me the full church directory', 'list all the people marked as visitors', 'run through everyone on our books, newest first', 'who are the most recently added people?', 'everyone on our books', "I'm checking the directory before printing it, list all the members", 'can I see everybody with the newcomer label?'],
  input: z.object({
    ...listFilters,
    limit: z.number().int().min(1).max(100).default(25),
    offset: z.number().int().min(0).max(100000).default(0),
  }),
  output: z.object({
    contacts: z.array(contactSummarySchema),
    limit: z.number().int(),
    offset: z.number().int(),
    nextOffset: z.number().int().nullable(),
    total: z.number().int().optional(),
  }).strict(),
  run: async (ctx, input) => {
    const { contacts, total } = await listContacts(ctx.db, ctx.org.id, input, input);
    const nextOffset = contacts.length === input.limit ? input.offset + input.limit : null;
    return { contacts: contacts.map(toSummary), limit: input.limit, offset: input.offset, nextOffset, ...(total === undefined ? {} : { total }) };
  },
});

export const updateContactTool = tools.write('update_contact', {
  title: 'Update a contact',
  description: 'Changes only the fields you give (null clears an optional field); everything else stays. customFields merge key by key and are checked against people_list_custom_field_definitions. A new UK postcode alone refreshes city, county and country. Family links go through people_add_family_relationship, never here.',
  keywords: ['edit contact', 'change details', 'correct email', 'modify person', 'old phone number', 'remove a number from a record'],
  examples: ["change someone's phone number or address", "correct the spelling of a person's name", 'someone has a new email address', 'Jean has moved, her new postcode is CR0 2AB', "fix the spelling of Siobhan's surname", "change Dave's mobile to 07700 900111", 'Mrs Hughes got married, update her surname to Price', 'mark Peter as a member now instead of a visitor', "correct Alan's birthday, it's 3 March not 3 May", 'new address for Dot: 14 Mill Lane', "Ravi's changed jobs and has a new work email, can you swap it over", "I need to take Colin's old landline off his record"],
  idempotent: true,
  listed: true,
  input: updateInput,
  output: z.object({ contact: contactSchema, changedFields: z.array(z.string()), addressDerivation: addressDerivationSchema.optional() }).strict(),
  prepare: derivePostcodeAddress,
  run: async (ctx, { contactId: id, ...fields }) => {
    const derivation = ctx.prepared as AddressDerivation | undefined;
    const { contact, changed } = await updateContact(ctx.db, ctx.org, id, fields, derivation);
    return { contact, changedFields: changed, ...derivationReport(derivation) };
  },
});

/**
 * Erasure destroys every note, including restricted ones the caller may not be
 * able to read, so only an owner or admin holding people:safeguarding may do it.
 */
function assertMayErase(ctx: ToolContext): void {
  const { role } = ctx.principal;
  if ((role !== 'owner' && role !== 'admin') || !hasScope(ctx.principal, SAFEGUARDING_SCOPE)) {
    throw new StewardError('forbidden', 'Permanent erasure needs an owner or admin credential holding people:safeguarding', {
      hint: 'Soft-delete instead (permanent: false), or ask an owner to erase the record.',
    });
  }
}

export const deleteContactTool = tools.write('delete_contact', {
  title: 'Delete a contact',
  description: 'Soft-deletes a contact (hidden, restorable by staff). permanent: true erases the person and all their notes for a GDPR erasure request and cannot be undone; it needs an owner or admin credential holding people:safeguarding. For duplicates, prefer merging.',
  keywords: ['remove contact', 'erase person', 'gdpr erasure', 'soft delete'],
  examples: ['remove a person from our records', 'someone asked us to delete all their data', 'get rid of the test record I made', "bin the entry for Fred Bloggs, it's fake", 'Mrs Allen has asked to be erased from our systems under GDPR', 'take John Smith off the database entirely', 'scrap the contact I added by accident this morning', 'permanently wipe everything we hold on Kevin Lowe', 'delete Jim Pearce', 'Sheila emailed to say she wants nothing more to do with us, remove her record', 'can you erase a person completely for a data request?'],
  destructive: true,
  listed: true,
  input: z.object({ contactId, permanent: z.boolean().default(false).describe('Erase for good (GDPR); default false = soft delete') }),
  output: z.object({ contactId: z.uuid(), deleted: z.enum(['soft', 'permanent']), erasedNotes: z.number().int() }).strict(),
  run: async (ctx, input) => {
    if (input.permanent) assertMayErase(ctx);
    const { erasedNotes } = await deleteContact(ctx.db, ctx.org.id, input.contactId, input.permanent);
    return { contactId: input.contactId, deleted: input.permanent ? 'permanent' as const : 'soft' as const, erasedNotes };
  },
});

