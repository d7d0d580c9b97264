import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { exactlyOne } from '../../tool';
import { toolsFor } from '../../kit';
import { countUnsubscribes, upcomingBirthdays } from '../contact-reports';
import { MAX_BULK_UPDATE, bulkOptInWhatsapp, bulkUpdateContacts } from '../contacts-bulk';
import { CUSTOM_FIELD_TYPES, createDefinition, listDefinitions } from '../custom-fields';
import { parseOrgDate } from '../dates';
import { todayUtc } from '../../metrics';
import { PostcodeProviderUnavailable, defaultPostcodeProvider, lookupPostcode, requireUkPostcode } from '../postcodes';
import { contactWriteFields } from './contacts';
import { dateText } from '../schemas';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

export const lookupUkPostcodeTool = tools.read('lookup_uk_postcode', {
  title: 'Look up a UK postcode',
  description: 'Returns the city, county and country for a UK postcode. people_create_contact and people_update_contact already do this when given a postcode alone.',
  keywords: ['postcode', 'address lookup', 'post code', 'town from postcode'],
  examples: ['which town is this postcode in', 'fill in the address from a postcode', 'where is LS6 2QE?', 'what county is the postcode NR1 3JU in', 'check this postcode is real: B15 2TT', 'which town does CF10 1AA belong to', 'is BT1 5GS in Northern Ireland?', 'find the city for post code M1 1AE', 'postcode EH1 1YZ?', 'someone only gave me their postcode, YO1 7HH, what town is that', 'which county is PL4 8AA in?'],
  input: z.object({ postcode: z.string().trim().min(2).max(12) }),
  output: z.object({ postcode: z.string(), city: z.string().nullable(), county: z.string().nullable(), country: z.string().nullable() }).strict(),
  prepare: async (input, deps) => {
    const postcode = requireUkPostcode(input.postcode);
    try {
      return await lookupPostcode(deps.db, defaultPostcodeProvider(), postcode);
    } catch (error) {
      if (error instanceof PostcodeProviderUnavailable) {
        throw new StewardError('unavailable', 'The postcode service cannot be reached right now', { hint: 'Save the postcode as it is; the address can be derived later.' });
      }
      throw error;
    }
  },
  run: async (ctx, input) => {
    const address = ctx.prepared as Awaited<ReturnType<typeof lookupPostcode>>;
    if (!address) throw new StewardError('not_found', `Postcode ${requireUkPostcode(input.postcode)} does not exist`);
    return address;
  },
});

export const bulkUpdateContactsTool = tools.write('bulk_update_contacts', {
  title: 'Update several contacts',
  description: `Updates up to ${MAX_BULK_UPDATE} contacts in one go; each entry is a contactId plus the fields to change (as in people_update_contact). All or nothing: if any entry is invalid nothing changes and the error names the entry.`,
  keywords: ['bulk edit', 'mass update', 'many contacts', 'several at once'],
  examples: ['change the status of many people at once', 'update a whole list of people in one go', 'make all 20 of these newcomers members in one go', "set these five people's status to inactive", 'update the addresses for this list of families at once', 'change the membership status for everyone on this list', 'mark these 30 folk as moved away together', 'batch change: give these regulars the same custom field value', 'mark all these as left', 'after the roll audit twelve people need their status changed to inactive, do them all together', 'can I change the membership status on a whole batch of people at once?'],
  idempotent: true,
  input: z.object({
    entries: z.array(z.object({ contactId: z.uuid(), ...contactWriteFields })).min(1).max(MAX_BULK_UPDATE),
  }),
  output: z.object({
    updated: z.number().int(),
    results: z.array(z.object({ contactId: z.uuid(), changedFields: z.array(z.string()) }).strict()),
  }).strict(),
  run: async (ctx, input) => {
    const results = await bulkUpdateContacts(ctx.db, ctx.org, input.entries);
    return { updated: results.length, results: results.map((r) => ({ contactId: r.contact.id, changedFields: r.changed })) };
  },
});

export const bulkOptInWhatsappTool = tools.write('bulk_opt_in_whatsapp', {
  title: 'Opt contacts in to WhatsApp',
  description: 'Records WhatsApp consent for the given contacts, or with allWithPhone: true for every contact with any phone number. Contacts without a phone are skipped and listed. Only use when the people have actually agreed.',
  keywords: ['whatsapp consent', 'opt in', 'messaging permission'],
  examples: ['these people have agreed to be messaged on WhatsApp', 'record WhatsApp permission for everyone with a phone', 'the whole choir said yes to WhatsApp, record that', 'everyone with a mobile agreed to WhatsApp messages at the AGM', 'opt these ten parents in for WhatsApp', 'mark the youth leaders as happy to get WhatsApps', 'we collected WhatsApp permission forms from 15 people', 'turn on WhatsApp consent for all contacts who gave a phone number', 'WhatsApp yes for the bell ringers', 'the parents signed consent slips at the nativity rehearsal so they can get WhatsApps now', 'I need to record that the home group agreed to WhatsApp messages'],
  idempotent: true,
  input: z.object({
    contactIds: z.array(z.uuid()).min(1).max(1000).optional(),
    allWithPhone: z.literal(true).optional().describe('true = every contact with any phone number'),
  }).refine(...exactlyOne('contactIds', 'allWithPhone')),
  output: z.object({ optedIn: z.number().int(), alreadyOptedIn: z.number().int(), skippedNoPhone: z.array(z.string()), notFound: z.array(z.string()) }).strict(),
  run: async (ctx, input) => bulkOptInWhatsapp(ctx.db, ctx.org.id, input),
});

export const upcomingBirthdaysTool = tools.read('upcoming_birthdays', {
  title: 'Upcoming birthdays',
  description: 'Contacts whose birthday falls in the next N days (default 14, today included), soonest first, with the age they turn.',
  keywords: ['birthday', 'birthdays coming up', 'celebrate'],
  examples: ['whose birthday is next', 'who has a birthday this week or next', 'any birthdays coming up this month?', "who's turning 80 soon", 'birthdays in the next 30 days so I can send cards', 'whose birthday is it today', 'which kids have birthdays before half term', 'list birthdays in the next fortnight', 'birthdays soon?', "I'm buying cards on Friday, whose birthday falls in the next three weeks", 'have we got any big birthdays coming up, like 90ths?'],
  input: z.object({ days: z.number().int().min(0).max(366).default(14), limit: z.number().int().min(1).max(500).default(100) }),
  output: z.object({
    days: z.number().int(),
    birthdays: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), dateOfBirth: z.string(), nextBirthday: z.string(), turning: z.number().int() }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ days: input.days, birthdays: await upcomingBirthdays(ctx.db, ctx.org.id, input.days, input.limit) }),
});

export const countUnsubscribesTool = tools.read('count_unsubscribes', {
  title: 'Count unsubscribes',
  description: 'How many contacts unsubscribed from email in a date range (default: the last 7 days). Dates in the organisation\'s format or YYYY-MM-DD.',
  keywords: ['unsubscribe', 'opt out', 'email unsubscribes'],
  examples: ['how many people opted out of emails', 'number of unsubscribes this month', "how many unsubscribed after last week's newsletter", 'unsubscribe count for March', 'did many people drop off the mailing list since 1 May', 'number of folk who stopped our emails in the last 30 days', 'how many opted out of email between Easter and now', 'are people leaving the email list this week?', 'unsubscribes since Christmas', 'the Lent appeal email went out Tuesday, how many people opted out after it', 'are we losing many people off the newsletter?'],
  input: z.object({ from: dateText().optional(), to: dateText().optional() }),
  output: z.object({ from: z.string(), to: z.string(), unsubscribes: z.number().int(), contacts: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const to = input.to ? parseOrgDate(input.to, ctx.org.dateFormat, 'to') : todayUtc();
    const from = input.from ? parseOrgDate(input.from, ctx.org.dateFormat, 'from') : new Date(Date.parse(to) - 6 * 86_400_000).toISOString().slice(0, 10);
    return countUnsubscribes(ctx.db, ctx.org.id, from, to);
  },
});

const definitionSchema = z.object({
  id: z.uuid(), key: z.string(), label: z.string(), type: z.enum(CUSTOM_FIELD_TYPES), options: z.array(z.string()).nullable(), section: z.string().nullable(),
}).strict();

export const listCustomFieldDefinitionsTool = tools.read('list_custom_field_definitions', {
  title: 'Custom field definitions',
  description: 'The organisation\'s custom contact fields: key, label, type (text, number, boolean, date, select with options) and section. Writes of customFields must use these keys and types.',
  keywords: ['custom fields', 'extra fields', 'field keys'],
  examples: ['which extra fields do our records have', 'what custom information do we keep on people', "what extra boxes are on a person's record", 'list our custom fields and their types', "what's the key for the dietary needs field", 'which options does the ministry interest dropdown have', 'show the custom field setup for contacts', 'do we already have a field for allergies?', 'our custom fields', "I'm writing an import file and need the keys of our extra fields", 'is there a field for shirt size set up already?'],
  input: z.object({}),
  output: z.object({ definitions: z.array(definitionSchema), sections: z.array(z.string()) }).strict(),
  run: async (ctx) => {
    const definitions = await listDefinitions(ctx.db, ctx.org.id);
    return { definitions, sections: [...new Set(definitions.map((d) => d.section).filter((s): s is string => Boolean(s)))] };
  },
});

export const createCustomFieldDefinitionTool = tools.write('create_custom_field_definition', {
  title: 'Define a custom field',
  description: 'Adds a custom contact field (key, label, type, options for select, optional section). Not for family links: use people_add_family_relationship.',
  keywords: ['new custom field', 'add field'],
  examples: ['start recording a new piece of information on every person', "add a dropdown field to people's records", 'add a field for dietary requirements', 'new yes/no field for photo permission on every record', 'create a custom field called Baptism Date', 'add a dropdown for preferred service: 8am, 10:30, evening', 'start keeping track of t-shirt size for everyone', 'set up a text box for emergency contact on records', 'new field: allergies', "the kids' work team wants to record school year on each child, add a field for it", 'I need a date field for when people were confirmed'],
  input: z.object({
    key: z.string().max(64).regex(/^[a-z][a-zA-Z0-9_]{0,63}$/, 'start with a lowercase letter; letters, digits and _ only'),
    label: z.string().trim().min(1).max(100),
    type: z.enum(CUSTOM_FIELD_TYPES),
    options: z.array(z.string().trim().min(1).max(100)).max(100).optional(),
    section: z.string().trim().min(1).max(100).optional(),
  }),
  output: z.object({ definition: definitionSchema }).strict(),
  run: async (ctx, input) => ({ definition: await createDefinition(ctx.db, ctx.org.id, input) }),
});

