import { z } from 'zod';
import { SAFEGUARDING_SCOPE } from '../../../core/scopes';
import { hasScope } from '../../../core/principal';
import { toolsFor } from '../../kit';
import { addNote, listNotes, noteTimelineSummary } from '../notes';
import { careAccessOf, listTimeline, restrictedEntryIds } from '../timeline';
import { CONFIDENTIALITY_LEVELS, NOTE_PRIVACY, dateText, noteSchema, timelineEntrySchema } from '../schemas';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const contactId = z.uuid().describe('The contact\'s id');

export const addNoteTool = tools.write('add_note', {
  title: 'Add a pastoral note',
  description: 'Records a pastoral or admin note about a contact and adds it to their care timeline. Refer to people by name in the text, never by id. privacy: public, team (default) or private; confidentialityLevel: green (default), amber or red. Private, amber and red notes are only visible to callers holding people:safeguarding.',
  keywords: ['note', 'pastoral note', 'record conversation', 'log visit', 'follow up'],
  examples: ['write down how the visit went', 'make a pastoral note after a phone call', 'note that I spoke to Brenda after the service about her worries', 'jot down that Ken is struggling since losing his job', 'add a note on Rita: wants a call back in two weeks', 'put down that Mary prefers to be phoned, not emailed', 'record a private pastoral note about Dennis, mark it red', 'log a quick note on the Smiths after our chat at the door', 'note for Hazel: hip op went well', "after the funeral tea Gwen said she's not sleeping, can you write that down as a note", 'I need to record what came up when I visited Arthur today'],
  listed: true,
  input: z.object({
    contactId,
    content: z.string().trim().min(1).max(10000),
    privacy: z.enum(NOTE_PRIVACY).default('team'),
    confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS).default('green'),
    followUpDate: dateText().optional().describe("When to follow up, in the organisation's date format or YYYY-MM-DD"),
  }),
  output: z.object({ note: noteSchema }).strict(),
  timeline: (_input, output) => [{
    contactId: output.note.contactId, kind: 'note_added', sourceKind: 'note', sourceId: output.note.id,
    summary: noteTimelineSummary(output.note.content), occurredAt: output.note.createdAt,
  }],
  run: async (ctx, input) => ({ note: await addNote(ctx.db, ctx.org, ctx.principal.userId, input) }),
});

export const listNotesTool = tools.read('list_notes', {
  title: 'List a contact\'s notes',
  description: 'A contact\'s notes, newest first. Private and confidential (amber/red) notes are included only for callers holding people:safeguarding.',
  keywords: ['pastoral notes', 'read notes', 'note history'],
  examples: ['read the notes on a person', 'what notes do we have on someone', 'show me the notes on Brenda Hall', 'what have we written about Ken?', 'read back the pastoral notes for the Wilsons', 'any notes on file for Mr Okafor?', 'list everything noted against Rita, newest first', 'have any of the team left notes about Dennis', "Hazel's notes", "before I visit Arthur tomorrow I want to read what's been noted about him", 'has anyone written anything about Gwen lately?'],
  input: z.object({ contactId, limit: z.number().int().min(1).max(200).default(50) }),
  output: z.object({ notes: z.array(noteSchema) }).strict(),
  // Reading private or confidential notes is recorded in the audit log (the ids, never the words).
  audit: {
    access: (input, output) => {
      const restricted = output.notes.filter((note) => note.privacy === 'private' || note.confidentialityLevel !== 'green').map((note) => note.id);
      return restricted.length > 0 ? { target: { type: 'contact', id: input.contactId }, records: restricted } : null;
    },
  },
  run: async (ctx, input) => ({
    notes: await listNotes(ctx.db, ctx.org.id, input.contactId, hasScope(ctx.principal, SAFEGUARDING_SCOPE), input.limit),
  }),
});

export const listCareTimelineTool = tools.read('list_care_timeline', {
  title: 'Care timeline',
  description: 'A contact\'s care timeline: notes and interactions, newest first. Entries from private or confidential notes appear only for callers holding people:safeguarding.',
  keywords: ['history', 'interactions', 'pastoral care history', 'activity'],
  examples: ['what contact have we had with this person', 'recent pastoral history of someone', 'full history of our contact with Edith', "what's happened with Jean pastorally over the last year", "show Ken's care timeline", "every interaction we've had with the Browns, latest first", "show everything that's happened with Stan: notes, calls, visits", 'a log of all the care Alice has had from us', "Arthur's care history", "I'm taking over Gwen's visits from Pat, show me every contact we've had with her", 'when did we last do anything pastoral with the Kaurs?'],
  listed: true,
  input: z.object({ contactId, limit: z.number().int().min(1).max(200).default(50) }),
  output: z.object({ entries: z.array(timelineEntrySchema) }).strict(),
  // Showing private or confidential entries is recorded in the audit log (the reader, the person, the entries' ids; never their words).
  audit: { access: (input, output) => careAccessOf(input.contactId, restrictedEntryIds(output.entries)) },
  run: async (ctx, input) => ({
    entries: await listTimeline(ctx.db, ctx.org.id, input.contactId, hasScope(ctx.principal, SAFEGUARDING_SCOPE), input.limit),
  }),
});
