import { z } from 'zod';

export const CONTACT_STATUSES = ['subscribed', 'unsubscribed', 'non_subscribed', 'bounced'] as const;
export const MEMBERSHIP_STATUSES = ['first_time_visitor', 'returning_visitor', 'regular_attender', 'member', 'inactive'] as const;
export const GENDERS = ['female', 'male', 'other', 'undisclosed'] as const;
export const NOTE_PRIVACY = ['public', 'team', 'private'] as const;
export const CONFIDENTIALITY_LEVELS = ['green', 'amber', 'red'] as const;

const text = (max: number) => z.string().trim().min(1).max(max);

/**
 * A date as a caller writes it ("31/12/2024", "2024-12-31"): ten characters, so a little
 * surrounding space is the most there is any reason to send. Parsed by parseOrgDate.
 */
export const MAX_DATE_TEXT = 32;
export const dateText = () => z.string().max(MAX_DATE_TEXT);

/** Custom number fields hold counts and amounts; far past any real one, and exact in a double. */
const MAX_CUSTOM_NUMBER = 1e15;
/** More custom fields than one write ever carries: the organisation defines them one by one. */
export const MAX_CUSTOM_FIELDS_PER_WRITE = 100;
const customValue = z.union([z.string().max(2000), z.number().min(-MAX_CUSTOM_NUMBER).max(MAX_CUSTOM_NUMBER), z.boolean(), z.null()]);

/** Fields a caller may set on a contact. Dates are strings in the organisation's format. */
export const contactFields = {
  prefix: text(20).describe('Title such as Mr, Mrs, Dr, Rev'),
  firstName: text(100),
  lastName: text(100),
  preferredName: text(100).describe('What the person likes to be called'),
  email: z.email().max(254),
  phone: z.string().trim().max(32).regex(/^\+?[0-9 ()-]{5,24}$/, 'digits, spaces, +, ( ) and - only'),
  dateOfBirth: dateText().describe("In the organisation's date format (DD/MM/YYYY for UK organisations) or YYYY-MM-DD"),
  gender: z.enum(GENDERS),
  addressLine1: text(200),
  addressLine2: text(200),
  addressCity: text(100),
  addressCounty: text(100),
  addressPostcode: text(12),
  addressCountry: text(60),
  status: z.enum(CONTACT_STATUSES).describe('Marketing/consent status; not the Welcome Desk lifecycle'),
  membershipStatus: z.enum(MEMBERSHIP_STATUSES).describe('Welcome Desk lifecycle; distinct from status'),
  whatsappConsent: z.boolean(),
  baptismDate: dateText(),
  membershipDate: dateText(),
  anniversaryDate: dateText(),
  // The count is checked and, through meta, shown in the JSON Schema (zod records have no size check of their own).
  customFields: z.record(z.string().min(1).max(64), customValue)
    .refine((fields) => Object.keys(fields).length <= MAX_CUSTOM_FIELDS_PER_WRITE, { message: `at most ${MAX_CUSTOM_FIELDS_PER_WRITE} custom fields in one write` })
    .meta({ maxProperties: MAX_CUSTOM_FIELDS_PER_WRITE }),
};

export const contactSchema = z.object({
  id: z.uuid(),
  displayName: z.string(),
  prefix: z.string().nullable(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  preferredName: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  dateOfBirth: z.string().nullable(),
  gender: z.string().nullable(),
  addressLine1: z.string().nullable(),
  addressLine2: z.string().nullable(),
  addressCity: z.string().nullable(),
  addressCounty: z.string().nullable(),
  addressPostcode: z.string().nullable(),
  addressCountry: z.string().nullable(),
  status: z.string(),
  membershipStatus: z.string().nullable(),
  familyId: z.string().nullable(),
  whatsappConsent: z.boolean(),
  baptismDate: z.string().nullable(),
  membershipDate: z.string().nullable(),
  anniversaryDate: z.string().nullable(),
  customFields: z.record(z.string(), customValue),
  tags: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();

export type Contact = z.infer<typeof contactSchema>;

export const contactSummarySchema = z.object({
  id: z.uuid(),
  displayName: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  status: z.string(),
  membershipStatus: z.string().nullable(),
  tags: z.array(z.string()),
}).strict();

export type ContactSummary = z.infer<typeof contactSummarySchema>;

export const duplicateSchema = z.object({
  id: z.uuid(),
  displayName: z.string(),
  email: z.string().nullable(),
  matchedOn: z.array(z.enum(['email', 'phone', 'name'])),
}).strict();

export const noteSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid(),
  content: z.string(),
  privacy: z.enum(NOTE_PRIVACY),
  confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS),
  followUpDate: z.string().nullable(),
  followUpCompleted: z.boolean(),
  authorUserId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();

export type Note = z.infer<typeof noteSchema>;

export const timelineEntrySchema = z.object({
  id: z.uuid(),
  kind: z.string(),
  summary: z.string(),
  sourceKind: z.string(),
  sourceId: z.string(),
  occurredAt: z.string(),
  restricted: z.boolean().describe('A private or confidential entry (shown only to people:safeguarding; its reading is recorded in the audit log)'),
}).strict();
