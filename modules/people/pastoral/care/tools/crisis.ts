import { z } from 'zod';
import { toolsFor } from '../../../../kit';
import { canSeeRestricted } from '../../privacy';
import {
  RESOURCE_HOW, addCounsellingResource, analyzeReferral, clearCrisisHold, counsellingResourceSchema, crisisHoldSchema, crisisSignalSchema, listCounsellingResources,
  listCrisisHolds, removeCounsellingResource,
} from '../crisis';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const holdId = z.uuid().describe('The crisis hold\'s id');

export const analyzeCounselingReferralTool = tools.write('analyze_counseling_referral', {
  title: 'Check a counselling referral for crisis',
  description: 'Reads a counselling or pastoral referral for crisis wording (suicide or self-harm, abuse, immediate danger, severe distress) with a published rule set and returns isCrisis with each signal found. When it is a crisis the answer says to involve a person now, lists helplines, and with contactId puts that person on a crisis hold: no message to them is sent or queued automatically until a staff member clears it. The text is not stored.',
  keywords: ['crisis', 'suicide risk', 'self harm', 'abuse disclosure', 'safeguarding concern', 'referral triage', 'urgent pastoral'],
  examples: ['someone told me they want to end their life', 'check this referral for safeguarding concerns', 'a teenager disclosed something worrying, can you check it', 'read this email from a parishioner, is she in danger', 'she mentioned hurting herself, does this need escalating', "does this referral suggest he's at risk", 'someone says their partner hits them, what do we do', 'triage this counselling request for anything urgent', 'check this referral', "a youth leader passed on a worrying message from a teenager, can you see if it's a crisis", 'is there anything in this pastoral request that needs urgent action?'],
  listed: true,
  input: z.object({
    text: z.string().trim().min(1).max(10000).describe('The referral or what was said, in the words given'),
    contactId: z.uuid().optional().describe('The person it is about: a crisis puts them on hold'),
  }),
  output: z.object({
    isCrisis: z.boolean().describe('true when any rule matched: involve a person now'),
    signals: z.array(crisisSignalSchema),
    guidance: z.string().describe('What to do next; show it to the person'),
    resources: z.array(counsellingResourceSchema),
    hold: crisisHoldSchema.nullable().describe('The crisis hold now on the contact, when one was placed or already there'),
    holdCreated: z.boolean().describe('false when the contact was already held (categories added to it)'),
  }).strict(),
  timeline: (input, output) => (output.hold && output.holdCreated ? [{
    contactId: output.hold.contactId, kind: 'crisis_hold_placed', sourceKind: 'crisis_hold', sourceId: output.hold.holdId,
    summary: 'Crisis hold placed: messages wait for a person', occurredAt: output.hold.placedAt, restricted: true,
  }] : []),
  run: async (ctx, input) => analyzeReferral(ctx.db, ctx.org.id, { userId: ctx.principal.userId, canSeeRestricted: canSeeRestricted(ctx.principal) }, input.text, input.contactId),
});

export const listCrisisHoldsTool = tools.read('list_crisis_holds', {
  title: 'Crisis holds',
  description: 'People on a crisis hold (no message is sent or queued for them automatically), newest first; status cleared or all shows past holds. What the referral showed is included only with people:safeguarding.',
  keywords: ['crisis', 'held contacts', 'do not contact', 'safeguarding holds'],
  examples: ['who is on a crisis hold', 'why can we not message this person', 'which parishioners are blocked from messaging for safety', 'list past crisis holds that have been cleared', 'why are texts to Gary being held back', 'anyone currently on a crisis hold', 'show the crisis holds and what triggered them', "who can't be contacted automatically right now", 'crisis holds', 'before sending the bulk check-ins, who is on hold so nothing goes to them', 'which people have we paused all messages to because of a crisis?'],
  input: z.object({
    status: z.enum(['active', 'cleared', 'all']).default('active').describe('active (default): holds in force'),
    contactId: z.uuid().optional().describe('Only this person\'s holds'),
    limit: z.number().int().min(1).max(200).default(50).describe('At most this many'),
  }),
  output: z.object({ holds: z.array(crisisHoldSchema) }).strict(),
  run: async (ctx, input) => ({ holds: await listCrisisHolds(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), input) }),
});

export const clearCrisisHoldTool = tools.write('clear_crisis_hold', {
  title: 'Clear a crisis hold',
  description: 'Clears a crisis hold once a person has reached them and it is safe to message them again; held messages can then be approved. Needs people:safeguarding. Say briefly what was done in note.',
  keywords: ['release hold', 'crisis resolved', 'resume messages'],
  examples: ['the pastor has seen her, lift the hold', 'clear the crisis hold on someone', "Revd Jo has spoken to Mark and he's safe, messages can resume", 'lift the block on messaging Sophie', "release the crisis hold on Tom, he's with his GP", "it's safe to contact Paula again", 'end the hold on Daniel, the pastor visited today', "take Ellie off crisis hold now she's supported", "lift Gary's hold", "the curate sat with Nadia last night and she's safe now, so messages to her can start again", 'can we clear the crisis hold on Leon?'],
  scope: 'people:safeguarding',
  input: z.object({
    holdId,
    note: z.string().trim().min(1).max(2000).describe('What was done (e.g. "Pastor visited; GP involved"); refer to people by name'),
  }),
  output: z.object({ hold: crisisHoldSchema }).strict(),
  timeline: (_input, output) => [{
    contactId: output.hold.contactId, kind: 'crisis_hold_cleared', sourceKind: 'crisis_hold_clear', sourceId: output.hold.holdId,
    summary: 'Crisis hold cleared', occurredAt: output.hold.clearedAt ?? undefined, restricted: true,
  }],
  run: async (ctx, input) => ({ hold: await clearCrisisHold(ctx.db, ctx.org.id, input.holdId, ctx.principal.userId, input.note) }),
});

export const listCounselingResourcesTool = tools.read('list_counseling_resources', {
  title: 'Crisis and counselling helplines',
  description: 'UK crisis and counselling helplines (emergency 999, Samaritans, Shout, Childline, NSPCC, National Domestic Abuse Helpline) with who each is for and when it is open, then the organisation\'s own local resources. Give these to someone in distress alongside, never instead of, a person reaching them.',
  keywords: ['helpline', 'samaritans', 'crisis line', 'domestic abuse helpline', 'childline', 'support numbers'],
  examples: ['what number can she call tonight', 'helplines for someone struggling', 'Samaritans number please', 'domestic abuse helpline', 'where can a young person get help right now', 'who can someone ring in a mental health crisis at 2am', 'list the support numbers we give people', 'Childline and NSPCC contact details', 'crisis numbers', 'a man at the night shelter is in a bad way, which helplines can I give him', 'is there a helpline open now for someone being abused at home?'],
  input: z.object({}),
  output: z.object({ resources: z.array(counsellingResourceSchema) }).strict(),
  run: async (ctx) => ({ resources: await listCounsellingResources(ctx.db, ctx.org.id) }),
});

export const addCounselingResourceTool = tools.write('add_counseling_resource', {
  title: 'Add a local support resource',
  description: 'Adds a local support resource (a counselling service, the diocesan safeguarding line, a food bank) listed after the national helplines and given with every crisis result.',
  keywords: ['local helpline', 'counselling service', 'support contact'],
  examples: ['add our local counselling centre to the crisis resources', "add the diocesan safeguarding adviser's number", 'put the local food bank on our support list', 'add Mind in Sheffield to our support resources', "include the town's bereavement counselling service in our list", 'save a local debt advice line for people in crisis', 'we partner with a Christian counsellor, add her details', 'add the Bolton foodbank line', "there's a men's mental health group locally that meets weekly, put them on our support list", 'I need to add the hospice bereavement service to our resources'],
  input: z.object({
    name: z.string().trim().min(1).max(120).describe('Name of the service'),
    contact: z.string().trim().min(1).max(200).describe('Phone number, address, text number or web address'),
    how: z.enum(RESOURCE_HOW).describe('call, text, visit or web'),
    available: z.string().trim().min(1).max(200).optional().describe('When it is open'),
    forWhat: z.string().trim().min(1).max(300).optional().describe('Who it is for'),
  }),
  output: z.object({ resource: counsellingResourceSchema }).strict(),
  run: async (ctx, input) => ({ resource: await addCounsellingResource(ctx.db, ctx.org.id, input) }),
});

export const removeCounselingResourceTool = tools.write('remove_counseling_resource', {
  title: 'Remove a local support resource',
  description: 'Removes one of the organisation\'s own support resources; the national helplines always stay.',
  keywords: ['delete resource', 'remove helpline', 'delete support contact'],
  examples: ['that counselling service has closed, take it off the list', 'remove the old food bank from our support contacts', 'delete the Relate number from our local resources', 'that debt advice service has moved away, get rid of it', 'take the closed drop-in centre off our helplines', 'bin the out-of-date counselling number', 'scrap our local support entry for the youth project', 'the bereavement group in town has closed, remove it', 'delete Cruse from our local resources, we have the wrong number', 'take the foodbank off our support list, it has moved', 'remove the local debt advice centre from the resources'],
  destructive: true,
  input: z.object({ resourceId: z.uuid().describe('The resource\'s id (people_list_counseling_resources)') }),
  output: z.object({ resourceId: z.uuid(), removed: z.literal(true) }).strict(),
  run: async (ctx, input) => {
    await removeCounsellingResource(ctx.db, ctx.org.id, input.resourceId);
    return { resourceId: input.resourceId, removed: true as const };
  },
});
