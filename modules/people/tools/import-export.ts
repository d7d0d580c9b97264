import { z } from 'zod';

import { EXPORT_COLUMNS, MAX_EXPORT_ROWS, MAX_IMPORT_CHARS, MAX_IMPORT_ROWS, exportContacts, importContacts } from '../import-export';
import { CONTACT_STATUSES, MEMBERSHIP_STATUSES } from '../schemas';
import { MAX_LIST_OFFSET, toolsFor } from '../../kit';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

export const importContactsTool = tools.write('import_contacts', {
  title: 'Import contacts from CSV',
  description: `Imports contacts from CSV text with a header row (columns such as First Name, Last Name, Email, Phone, Date of Birth, Postcode, Tags; custom fields by key). mode "preview" (default) shows what would be created, updated or skipped as a duplicate (same email) and every row error with its row number, writing nothing; mode "commit" writes all rows, or none if any row has an error. At most ${MAX_IMPORT_ROWS} rows.`,
  keywords: ['import csv', 'upload spreadsheet', 'bulk add contacts'],
  examples: ['load people from a spreadsheet', 'bring a CSV file of members into the system', 'upload this spreadsheet of new members', 'import the electoral roll from a CSV', "here's an export of our old database, bring it in", 'check this CSV for errors before importing', 'bulk add people from this list of names and emails', 'load the Alpha course sign-ups from this file', 'import this CSV', 'our old church software gave us a spreadsheet of everyone, I need it loaded in', 'can you bring the names from the holiday club sign-up sheet into our records?'],
  input: z.object({
    csv: z.string().min(1).max(MAX_IMPORT_CHARS).describe('The CSV text, header row first (at most about 900 KB)'),
    mode: z.enum(['preview', 'commit']).default('preview'),
    onDuplicate: z.enum(['skip', 'update']).default('skip').describe('What to do with a row whose email matches an existing contact'),
  }),
  output: z.object({
    mode: z.enum(['preview', 'commit']), committed: z.boolean(), rows: z.number().int(),
    toCreate: z.number().int(), toUpdate: z.number().int(), toSkip: z.number().int(),
    errors: z.array(z.object({ row: z.number().int(), field: z.string(), message: z.string() }).strict()),
    ignoredColumns: z.array(z.string()),
    preview: z.array(z.object({ row: z.number().int(), action: z.enum(['create', 'update', 'skip']), displayName: z.string(), matchedContactId: z.string().nullable() }).strict()),
  }).strict(),
  run: async (ctx, input) => importContacts(ctx.db, ctx.org, input, ctx.progress),
});

export const exportContactsTool = tools.read('export_contacts', {
  title: 'Export contacts to CSV',
  description: `Exports contact fields as CSV (optionally filtered by status, membership status or tag; choose columns), ${MAX_EXPORT_ROWS} rows per call: pass nextOffset back as offset for the next page. Never includes notes.`,
  keywords: ['export csv', 'download contacts', 'spreadsheet'],
  examples: ['get our people out as a spreadsheet', 'download a CSV of contacts', 'export everyone to a spreadsheet', "download the members' names and emails as CSV", 'I need the electoral roll in Excel', 'give me a CSV of all volunteers with phone numbers', 'export just the choir with their addresses', 'a spreadsheet of the whole directory for the AGM', 'export the members list', 'the treasurer wants a spreadsheet of all regulars with their emails for the stewardship letter', 'can I download everyone tagged youth as a CSV?'],
  input: z.object({
    status: z.enum(CONTACT_STATUSES).optional(),
    membershipStatus: z.enum(MEMBERSHIP_STATUSES).optional(),
    tag: z.string().trim().min(1).max(100).optional(),
    columns: z.array(z.enum(EXPORT_COLUMNS)).min(1).max(EXPORT_COLUMNS.length).optional(),
    offset: z.number().int().min(0).max(MAX_LIST_OFFSET).default(0),
  }),
  output: z.object({ csv: z.string(), rowCount: z.number().int(), columns: z.array(z.string()), nextOffset: z.number().int().nullable() }).strict(),
  run: async (ctx, input) => exportContacts(ctx.db, ctx.org.id, input, input.columns ?? EXPORT_COLUMNS, input.offset, ctx.progress),
});
