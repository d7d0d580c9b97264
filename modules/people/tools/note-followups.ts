import { z } from 'zod';
import { hasScope } from '../../../core/principal';
import { SAFEGUARDING_SCOPE } from '../../../core/scopes';
import type { ToolContext } from '../../tool';
import { toolsFor } from '../../kit';
import { RESTRICTED_NOTE_REMOVAL, completeNoteFollowUp, isRestrictedNote, listNoteFollowUps, noteTimelineSummary, removeNote, updateNote } from '../notes';
import { CONFIDENTIALITY_LEVELS, NOTE_PRIVACY, dateText, noteSchema } from '../schemas';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const canSeeRestricted = (ctx: ToolContext) => hasScope(ctx.principal, SAFEGUARDING_SCOPE);

export const updateNoteTool = tools.write('update_note', {
  title: 'Update a note',
  description: 'Changes a note\'s content, privacy, confidentiality level or follow-up date; other fields stay. Refer to people by name, never by id. Private and amber/red notes can only be changed by callers holding people:safeguarding.',
  keywords: ['edit note', 'change note'],
  examples: ['edit what a note says', "move a note's follow-up to a different date", "change my note about Brenda to say she's feeling better", "make yesterday's note on Ken private", "push the follow-up on Rita's note to next Friday", 'mark the note about the Smiths as amber', 'reword the note I added for Dennis', 'correct a typo in the note on Stan', 'fix my note on Hazel', "I wrote the wrong hospital in Arthur's note, it should be St James's", 'can the note about Gwen be made confidential?'],
  idempotent: true,
  input: z.object({
    noteId: z.uuid(),
    content: z.string().trim().min(1).max(10000).optional(),
    privacy: z.enum(NOTE_PRIVACY).optional(),
    confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS).optional(),
    followUpDate: dateText().nullable().optional(),
  }),
  output: z.object({ note: noteSchema, changedFields: z.array(z.string()) }).strict(),
  timeline: (_input, output) => [{
    contactId: output.note.contactId, kind: 'note_added', sourceKind: 'note', sourceId: output.note.id, summary: noteTimelineSummary(output.note.content),
  }],
  run: async (ctx, input) => {
    const { note, changed } = await updateNote(ctx.db, ctx.org, canSeeRestricted(ctx), input);
    return { note, changedFields: changed };
  },
});

export const removeNoteTool = tools.write('remove_note', {
  title: 'Remove a note',
  description: 'Deletes a note. The care timeline keeps a note_removed entry (without the content) so the history shows something was removed.',
  keywords: ['delete note'],
  examples: ['delete a note written in error', "take a note off someone's record", 'delete the note I put on the wrong person', 'bin that note about Ken, it was a mistake', "remove the duplicate note on Brenda's record", "get rid of yesterday's note on Rita", 'scrap the note I wrote on Alan this morning', "erase the note about the Smiths, it shouldn't be there", 'delete the note on Colin', "I put Hazel's note on Hilda's record by mistake, please take it off", "how do I get rid of a note I shouldn't have written?"],
  destructive: true,
  input: z.object({ noteId: z.uuid() }),
  output: z.object({ noteId: z.uuid(), contactId: z.uuid(), removed: z.literal(true), restricted: z.boolean() }).strict(),
  // Removing a restricted note leaves an entry only safeguarding holders see: even its existence was theirs alone.
  timeline: (input, output) => [{
    contactId: output.contactId, kind: 'note_removed', sourceKind: output.restricted ? RESTRICTED_NOTE_REMOVAL : 'note_removal',
    sourceId: input.noteId, summary: 'A note was removed',
  }],
  run: async (ctx, input) => {
    const note = await removeNote(ctx.db, ctx.org.id, input.noteId, canSeeRestricted(ctx));
    return { noteId: note.id, contactId: note.contactId, removed: true as const, restricted: isRestrictedNote(note) };
  },
});

export const completeNoteFollowupTool = tools.write('complete_note_followup', {
  title: 'Complete a note follow-up',
  description: 'Marks a pastoral note\'s follow-up as done (sets follow_up_completed) and records it on the care timeline. For Welcome Desk tasks use people_complete_follow_up_task.',
  keywords: ['follow up done', 'complete follow-up', 'pastoral follow up'],
  examples: ['the pastoral follow-up is done', "mark a note's follow-up as finished", "I've rung Rita back, tick off that follow-up", "done the follow-up from Ken's note", "mark Brenda's note follow-up as complete", 'close the follow-up on the note about Dennis', "the callback promised in Jean's note has happened", "sorted the follow-up on Stan's note, tick it off", 'follow-up done for Arthur', 'I visited Gwen on Tuesday like the note said, mark that follow-up finished', "can you tick off the callback on Hazel's note?"],
  input: z.object({ noteId: z.uuid() }),
  output: z.object({ note: noteSchema }).strict(),
  timeline: (_input, output) => [{
    contactId: output.note.contactId, kind: 'follow_up_completed', sourceKind: 'note', sourceId: output.note.id,
    summary: `Follow-up completed: ${noteTimelineSummary(output.note.content)}`,
  }],
  run: async (ctx, input) => ({ note: await completeNoteFollowUp(ctx.db, ctx.org.id, input.noteId, canSeeRestricted(ctx)) }),
});

export const listPastoralNoteFollowupsTool = tools.read('list_pastoral_note_followups', {
  title: 'Pastoral note follow-ups',
  description: 'Notes with a follow-up date across all contacts, soonest first: open (default), completed or all, optionally due on or before a date. Private and amber/red notes only with people:safeguarding.',
  keywords: ['follow ups due', 'pastoral follow up list', 'overdue follow ups'],
  examples: ['which pastoral follow-ups are due', 'calls and visits I still need to make', 'what follow-ups from notes are overdue', 'pastoral callbacks due by Friday', 'which note follow-ups have we completed', 'my list of pastoral follow-ups for this week', 'any pastoral follow-ups due today?', 'outstanding follow-ups on pastoral notes, soonest first', 'follow-ups due', "I'm back from leave, which note follow-ups are overdue now", 'have I got any pastoral callbacks to do before Sunday?'],
  input: z.object({
    status: z.enum(['open', 'completed', 'all']).default('open'),
    dueBefore: z.iso.date().optional().describe('YYYY-MM-DD'),
    limit: z.number().int().min(1).max(500).default(100),
  }),
  output: z.object({ followUps: z.array(noteSchema.extend({ contactName: z.string() }).strict()) }).strict(),
  run: async (ctx, input) => ({ followUps: await listNoteFollowUps(ctx.db, ctx.org.id, canSeeRestricted(ctx), input) }),
});
