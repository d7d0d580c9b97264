import { z } from 'zod';
import { toolsFor } from '../../../kit';
import { updateContact } from '../../contacts';
import { canSeeRestricted } from '../../pastoral/privacy';
import type { AddressDerivation } from '../../postcodes';
import { contactSchema } from '../../schemas';
import { addressDerivationSchema, contactWriteFields, derivationReport, derivePostcodeAddress } from '../../tools/contacts';
import { calendarDate } from '../../../kit';
import { contactAttendance, contactEmails, contactGroups, contactProfile, contactSummary, contactTimeline } from '../profile';
import { generateMemberQr, revokeMemberQr, verifyMemberQr } from '../qr';
import { ROLL_RULES, previewRollCheck } from '../roll';
import { careAccessOf } from '../../timeline';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });
const contactId = z.uuid().describe('The contact\'s id (from people_search_contacts)');
const person = z.object({ contactId: z.uuid(), displayName: z.string() }).strict();

const profileSchema = z.object({
  contact: contactSchema,
  household: z.array(person).describe('Others in the same household'),
  family: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), relationship: z.string() }).strict()),
  groups: z.array(z.object({ groupId: z.uuid(), name: z.string(), role: z.string().nullable() }).strict()),
  segments: z.array(z.object({ segmentId: z.uuid(), name: z.string() }).strict()),
  community: z.object({ member: z.boolean(), joinedOn: z.string(), leftOn: z.string().nullable(), celebrationConsent: z.boolean() }).strict().nullable(),
  openFollowUps: z.array(z.object({ taskId: z.uuid(), title: z.string(), dueDate: z.string().nullable() }).strict()),
  recentActivity: z.array(z.object({ kind: z.string(), summary: z.string(), occurredAt: z.string() }).strict()),
  hasActiveMemberQr: z.boolean(),
  includesRestricted: z.boolean(),
  restrictedEntryIds: z.array(z.uuid()).describe('Private or confidential care entries among recentActivity (their reading is recorded in the audit log)'),
}).strict();

export const getContactProfileTool = tools.read('get_contact_profile', {
  title: 'Contact profile',
  description: 'A person\'s profile page in one answer: the full record, household and family, ministry teams, segments, community roster entry, open follow-ups, the latest care timeline entries and whether they hold a member QR code. The contact profile widget shows it. Restricted entries only for a caller holding people:safeguarding. For the record alone, people_get_contact.',
  keywords: ['profile page', 'contact overview', 'person at a glance', 'profile card'],
  examples: ['open Margaret\'s profile page', 'profile page for John with his household and teams', 'Sue\'s profile with her teams, segments and open follow-ups', 'show the profile page widget for the Okafor lad', 'show me the whole picture on Ken: family, teams, follow-ups', "Brian's profile with his latest care notes and QR code", 'profile view for the new couple, household included', 'open the person page for Mrs Ahmed', "Hilda's profile page", "I'm meeting Colin for coffee and want his whole picture: family, teams and follow-ups", "what does Ruth's profile page show?"],
  input: z.object({ contactId }),
  output: z.object({ profile: profileSchema }).strict(),
  // Showing private or confidential care entries leaves an access event (reader, person, entry ids; never their words).
  audit: { access: (input, output) => careAccessOf(input.contactId, output.profile.restrictedEntryIds) },
  run: async (ctx, input) => ({ profile: await contactProfile(ctx.db, ctx.org.id, input.contactId, canSeeRestricted(ctx.principal)) }),
});

const profileFields = (({ prefix, firstName, lastName, preferredName, email, phone, dateOfBirth, gender, addressLine1, addressLine2, addressCity, addressCounty, addressPostcode, addressCountry, baptismDate, membershipDate, anniversaryDate }) =>
  ({ prefix, firstName, lastName, preferredName, email, phone, dateOfBirth, gender, addressLine1, addressLine2, addressCity, addressCounty, addressPostcode, addressCountry, baptismDate, membershipDate, anniversaryDate }))(contactWriteFields);

export const updateContactProfileTool = tools.write('update_contact_profile', {
  title: 'Save the profile page\'s details',
  description: 'Saves the profile page\'s form (names, email, phone, date of birth, gender, address, church dates): only the fields given change, null clears one. Consent, stage, tags and custom fields are not on this form (people_update_contact, people_add_contact_tag_api). A UK postcode alone fills the town, county and country.',
  keywords: ['profile page form', 'profile form'],
  examples: ['save what I typed on Jean\'s profile page', 'the profile page form: new mobile and postcode for Tom', 'profile page says Mary, she goes by Molly', 'fill in the baptism date box on the profile page', 'profile page: Tom\'s preferred name is Tommy, save the form', 'fill in Jean\'s title and baptism date on her profile form', 'profile form for Ken: membership date 4 May 2019', 'Sue\'s profile page form, prefix Revd', "profile form: Grace's new mobile", "Colin's profile page has his old surname, he goes by Walker now, save that", "can you fill in Ruth's membership date on her profile page?"],
  idempotent: true,
  input: z.object({ contactId, ...profileFields }),
  output: z.object({ contact: contactSchema, changedFields: z.array(z.string()), addressDerivation: addressDerivationSchema.optional() }).strict(),
  prepare: derivePostcodeAddress,
  run: async (ctx, { contactId: id, ...fields }) => {
    const derivation = ctx.prepared as AddressDerivation | undefined;
    const { contact, changed } = await updateContact(ctx.db, ctx.org, id, fields, derivation);
    return { contact, changedFields: changed, ...derivationReport(derivation) };
  },
});

export const getContactSummaryTool = tools.read('get_contact_summary', {
  title: 'Contact summary',
  description: 'A short summary of one person: stage, age, membership date, tags, teams, notes and timeline entries the caller may see, last activity, open follow-ups, how they can be reached, and one sentence saying it. Restricted notes and entries count only for a caller holding people:safeguarding.',
  keywords: ['summary', 'quick view', 'brief on a person', 'tl;dr', 'rundown'],
  examples: ['give me a quick summary of Dorothy', 'brief me on Ken in a sentence before I ring him', 'one-line summary of the new lady\'s record', 'quick rundown on Hilda', "I'm about to phone Colin, give me a short summary of where he's at", "what's the gist of Ruth's record?"],
  input: z.object({ contactId }),
  output: z.object({
    contactId: z.uuid(), displayName: z.string(), membershipStatus: z.string().nullable(), status: z.string(), age: z.number().int().nullable(),
    daysKnown: z.number().int(), tags: z.array(z.string()), teams: z.number().int(), notes: z.number().int(), timelineEntries: z.number().int(),
    lastActivityAt: z.string().nullable(), openFollowUps: z.number().int(),
    reachable: z.object({ email: z.boolean(), phone: z.boolean(), post: z.boolean(), whatsapp: z.boolean() }).strict(),
    summary: z.string(), includesRestricted: z.boolean(),
  }).strict(),
  run: async (ctx, input) => contactSummary(ctx.db, ctx.org.id, input.contactId, canSeeRestricted(ctx.principal)),
});

const SOURCES = ['care', 'messages', 'attendance'] as const;

export const getContactTimelineTool = tools.read('get_contact_timeline', {
  title: 'Contact timeline (profile tab)',
  description: 'The profile\'s timeline tab: care timeline entries, messages sent to the person and services they attended, as one feed, newest first. Choose sources with include. Restricted care entries only for a caller holding people:safeguarding. For the care timeline alone, people_list_care_timeline.',
  keywords: ['timeline tab', 'everything that happened', 'messages and attendance history'],
  examples: ['show the timeline tab on Brian\'s profile', 'messages, care entries and attendance for Sue in one feed', 'profile timeline including the emails we sent', 'everything that has happened with Jean: notes, messages, services', "Ken's activity feed with the texts we sent him", "show the timeline on Sue's profile, messages only", 'what services has Tom attended and what have we sent him, in one list', 'full timeline for the Browns, newest first', "Hilda's timeline tab", 'I want to see everything with Colin in one feed: emails we sent, notes and the services he came to', "what's happened on Ruth's timeline lately?"],
  input: z.object({
    contactId, limit: z.number().int().min(1).max(200).default(50),
    include: z.array(z.enum(SOURCES)).min(1).max(3).default([...SOURCES]),
  }),
  output: z.object({
    contactId: z.uuid(),
    entries: z.array(z.object({ at: z.string(), source: z.enum(SOURCES), kind: z.string(), summary: z.string() }).strict()),
    sources: z.object({ care: z.boolean(), messages: z.boolean(), attendance: z.boolean() }).strict().describe('Which sources were read (a module not installed is false)'),
    includesRestricted: z.boolean(),
    restrictedEntryIds: z.array(z.uuid()).describe('Private or confidential care entries shown (their reading is recorded in the audit log)'),
  }).strict(),
  audit: { access: (input, output) => careAccessOf(input.contactId, output.restrictedEntryIds) },
  run: async (ctx, input) => contactTimeline(ctx.db, ctx.org.id, input.contactId, { ...input, canSeeRestricted: canSeeRestricted(ctx.principal) }),
});

export const listContactEmailsTool = tools.read('list_contact_emails', {
  title: 'Emails sent to a contact',
  description: 'The profile\'s emails tab: messages sent to the person (email by default; channel "all" adds SMS and WhatsApp), newest first, with subject, status and a preview. available is false when no messaging module is installed.',
  keywords: ['emails tab', 'messages sent', 'email history', 'correspondence'],
  examples: ['which emails have we sent to Jean', 'did the newsletter reach Mr Ahmed', 'show the emails tab on this profile', 'what messages have we sent Ken, texts included', 'show emails to Mrs Hughes with their status', 'did our email to Brian bounce', 'list the WhatsApps and emails sent to Sue', 'last five emails we sent the churchwarden', 'emails to Hilda', "Colin says he never got the harvest letter, show the emails we've sent him", 'have any of our messages to Ruth bounced?'],
  input: z.object({ contactId, channel: z.enum(['email', 'all']).default('email'), limit: z.number().int().min(1).max(100).default(25) }),
  output: z.object({
    contactId: z.uuid(), address: z.string().nullable(), available: z.boolean(),
    messages: z.array(z.object({
      id: z.uuid(), channel: z.string(), purpose: z.string(), status: z.string(), subject: z.string().nullable(), preview: z.string(),
      recipientAddress: z.string().nullable(), createdAt: z.string(), sentAt: z.string().nullable(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => contactEmails(ctx.db, ctx.org.id, input.contactId, input),
});

export const listContactGroupsTabTool = tools.read('list_contact_groups_tab', {
  title: 'Contact groups tab',
  description: 'The profile\'s groups tab: the ministry teams (CRM groups) the person is in with their role, the segments they belong to (by rule or added by hand) and their community roster entry.',
  keywords: ['groups tab', 'which teams', 'memberships of a person'],
  examples: ['which teams and segments is Ken in', 'groups tab on Sue\'s profile', 'every team, segment and roster entry for the Browns\' eldest', "Hilda's groups tab", "I'm asking Colin to join the tea team, which teams and lists is he already in", 'what segments is Ruth in?'],
  input: z.object({ contactId }),
  output: z.object({
    contactId: z.uuid(),
    groups: z.array(z.object({ groupId: z.uuid(), name: z.string(), status: z.string(), role: z.string().nullable(), joinedAt: z.string() }).strict()),
    segments: z.array(z.object({ segmentId: z.uuid(), name: z.string(), how: z.enum(['rule', 'manual']), addedAt: z.string() }).strict()),
    community: z.object({ member: z.boolean(), joinedOn: z.string(), leftOn: z.string().nullable(), celebrationConsent: z.boolean() }).strict().nullable(),
  }).strict(),
  run: async (ctx, input) => contactGroups(ctx.db, ctx.org.id, input.contactId),
});

export const getContactAttendanceTool = tools.read('get_contact_attendance', {
  title: 'Contact attendance (profile tab)',
  description: 'The profile\'s attendance tab: services the person checked in to over a range (default the last six months), with the weeks they came and their first and last visit. available is false when the attendance module is not installed.',
  keywords: ['attendance tab', 'how often they come', 'services attended'],
  examples: ['attendance tab on Tom\'s profile', 'profile attendance for Jean over the last six months', 'attendance tab for Tom on his profile since January', 'on Jean\'s profile, which weeks did she come this year', 'profile attendance: first and last visit for the Okafor lad', 'Mrs Patel\'s profile, attendance since she started coming', 'profile tab of services Ken checked in to, Easter to summer', 'the attendance section of Sue\'s person page this term', "Hilda's attendance tab", "Colin says he's been coming every week since Lent, check his attendance on his profile", 'when did Ruth last come to a service?'],
  input: z.object({ contactId, from: calendarDate().optional(), to: calendarDate().optional() }),
  output: z.object({
    contactId: z.uuid(), from: z.string(), to: z.string(), available: z.boolean(), services: z.number().int(), weeksAttended: z.number().int(),
    firstVisit: z.string().nullable(), lastVisit: z.string().nullable(),
    visits: z.array(z.object({ title: z.string().nullable(), localDate: z.string(), locations: z.array(z.string()), firstTime: z.boolean() }).strict()),
  }).strict(),
  run: async (ctx, input) => contactAttendance(ctx.db, ctx.org.id, input.contactId, input),
});

// ---------------------------------------------------------------- member QR codes

export const generateMemberQrTool = tools.write('generate_member_qr', {
  title: 'Generate a member QR code',
  description: 'Makes a member\'s QR code: a PNG (base64) encoding a signed token that people_verify_member_qr checks when scanned. Issuing a new code revokes the person\'s earlier one; people_revoke_member_qr stops it at once. Only the token\'s hash is stored.',
  keywords: ['qr code', 'member card', 'membership badge', 'check-in code'],
  examples: ['make a QR code for Jean\'s membership card', 'print a new member QR for Tom, he lost his', 'generate the check-in code for the Smith family dad', 'create a scannable member badge for Sue', "new QR code for Ken's member badge, 300 pixels", 'make a membership QR for the new churchwarden', 'issue Brian a fresh check-in QR', 'give Mrs Ahmed a member QR code to scan at the door', 'QR code for Grace', "Colin's new membership card needs a code for scanning at the door, make one", 'can Ruth have a check-in badge?'],
  input: z.object({ contactId, sizePx: z.number().int().min(128).max(1024).default(300) }),
  output: z.object({
    qrId: z.uuid(), contactId: z.uuid(), displayName: z.string(), token: z.string(), mimeType: z.literal('image/png'), imageBase64: z.string(),
    widthPx: z.number().int(), createdAt: z.string(), replacedEarlierCodes: z.number().int(),
  }).strict(),
  run: async (ctx, input) => generateMemberQr(ctx.db, ctx.org.id, ctx.principal.userId, input.contactId, input.sizePx),
});

export const revokeMemberQrTool = tools.write('revoke_member_qr', {
  title: 'Revoke a member QR code',
  description: 'Stops a member QR code working at once, by its qrId or every active code of a contact.',
  keywords: ['revoke qr', 'cancel member card', 'lost badge'],
  examples: ['Jean lost her member card, cancel the QR code', 'revoke Tom\'s QR code', 'stop the old membership badge working', 'cancel every active QR code for Sue', "Brian's badge was stolen, kill the QR", 'deactivate member QR code 57', "switch off Mrs Ahmed's old member code", 'stop the check-in QR for someone who left', "cancel Grace's QR", 'Colin left his membership card on the bus, stop that code working', "can you switch off all Ruth's member codes?"],
  destructive: true,
  input: z.object({ qrId: z.uuid().optional(), contactId: z.uuid().optional() }).refine((v) => (v.qrId === undefined) !== (v.contactId === undefined), { message: 'give exactly one of qrId or contactId', path: ['qrId'] }),
  output: z.object({ revoked: z.number().int() }).strict(),
  run: async (ctx, input) => revokeMemberQr(ctx.db, ctx.org.id, input),
});

export const verifyMemberQrTool = tools.read('verify_member_qr', {
  title: 'Check a scanned member QR code',
  description: 'Checks the text of a scanned member QR code: valid, with the person, only if this organisation issued it and it has not been revoked; otherwise the reason (malformed, bad_signature, unknown, revoked).',
  keywords: ['scan qr', 'verify member card', 'check badge'],
  examples: ['is this member QR code genuine', 'who does this scanned badge belong to', 'check the code I just scanned at the door', 'scan check: is this QR from our church', 'validate the member badge at the welcome desk', 'has this member card been revoked', 'whose QR is this, and is it still valid', 'check this scanned member code text', 'check this QR', "someone at the door showed a membership code I don't recognise, is it one of ours", 'is this scanned badge still valid?'],
  input: z.object({ token: z.string().trim().min(1).max(200) }),
  output: z.object({ valid: z.boolean(), reason: z.enum(['malformed', 'bad_signature', 'unknown', 'revoked']).nullable(), contactId: z.uuid().nullable(), displayName: z.string().nullable() }).strict(),
  run: async (ctx, input) => verifyMemberQr(ctx.db, ctx.org.id, input.token),
});

// ---------------------------------------------------------------- roll check

export const previewRollCheckTool = tools.read('preview_roll_check', {
  title: 'Preview a roll check',
  description: `Checks the membership roll (contacts at the member stage) without changing anything: who passes, who needs attention and why (${Object.keys(ROLL_RULES).join(', ')}), and regular attenders of age who could be invited onto it. Act on it with people_run_contacts_bulk_operation or people_update_contact.`,
  keywords: ['electoral roll', 'membership roll', 'roll review', 'roll check'],
  examples: ['preview the electoral roll check', 'who on the membership roll needs their details checking', 'which members are under 16 or have no address', 'who could we invite onto the roll', 'review the church roll before the APCM', 'check the membership roll without changing it', 'electoral roll review: who has no address or contact', 'regular attenders old enough to join the roll', 'check the roll', 'the APCM is in April and the electoral roll needs reviewing, who has problems', 'which members are missing an address for the roll?'],
  input: z.object({
    minimumAge: z.number().int().min(0).max(120).default(16),
    activityDays: z.number().int().min(30).max(1095).default(180).describe('A member with no care timeline entry in this many days is flagged no_recent_activity'),
    limit: z.number().int().min(1).max(500).default(100),
  }),
  output: z.object({
    previewOnly: z.literal(true),
    rules: z.object({ minimumAge: z.number().int(), activityDays: z.number().int(), issues: z.record(z.string(), z.string()) }).strict(),
    onRoll: z.number().int(), passing: z.number().int(), byIssue: z.record(z.string(), z.number().int()),
    needingAttention: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), ok: z.boolean(), issues: z.array(z.enum(Object.keys(ROLL_RULES) as [keyof typeof ROLL_RULES])) }).strict()),
    candidates: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), age: z.number().int().nullable() }).strict()),
    candidateCount: z.number().int(),
    includesRestricted: z.boolean(),
  }).strict(),
  run: async (ctx, input) => previewRollCheck(ctx.db, ctx.org.id, { ...input, canSeeRestricted: canSeeRestricted(ctx.principal) }),
});

export const profileTools = [
  getContactProfileTool, updateContactProfileTool, getContactSummaryTool, getContactTimelineTool, listContactEmailsTool, listContactGroupsTabTool,
  getContactAttendanceTool, generateMemberQrTool, revokeMemberQrTool, verifyMemberQrTool, previewRollCheckTool,
];
