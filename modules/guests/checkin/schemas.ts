import { z } from 'zod';
import { ROLES } from '../../../core/roles';
import { PERSON_KINDS } from './checkin';
import { STATION_KINDS } from './setup';

const gateMode = z.enum(['block', 'warn']);
const age = z.number().int().min(0).max(120);
const grade = z.number().int().min(-2).max(13);

/** Location fields as input; on update every field is optional and null clears it. */
export const locationFields = {
  name: z.string().trim().min(1).max(200).describe('What people call the room or area, e.g. "Toddlers (Room 2)"'),
  minAge: age.nullable().optional().describe('Youngest age in whole years on the service date (children)'),
  maxAge: age.nullable().optional().describe('Oldest age in whole years on the service date (children)'),
  minGrade: grade.nullable().optional().describe('Lowest school grade (0 = reception/kindergarten, -1 and -2 for pre-school years)'),
  maxGrade: grade.nullable().optional().describe('Highest school grade'),
  capacity: z.number().int().min(1).max(100000).nullable().optional().describe('Most children and adults (not volunteers) in the room at once; null for no limit'),
  capacityMode: gateMode.optional().describe('block (default) refuses a check-in past capacity; warn lets it through and records a warning'),
  childrenPerAdult: z.number().int().min(1).max(100).nullable().optional().describe('Adult:child ratio as children per checked-in leader (volunteer), e.g. 4 for 1:4; null for none'),
  ratioMode: gateMode.optional().describe('block (default) refuses a child past the ratio; warn lets them in and records a warning'),
  backgroundCheckRequired: z.boolean().optional().describe('Volunteers serving here need a cleared, unexpired safeguarding check on the service date'),
  backgroundCheckType: z.string().trim().min(1).max(100).nullable().optional().describe('The check type required (e.g. "Enhanced DBS"); any type when omitted'),
};

export const locationSchema = z.object({
  id: z.uuid(), name: z.string(), minAge: z.number().int().nullable(), maxAge: z.number().int().nullable(), minGrade: z.number().int().nullable(),
  maxGrade: z.number().int().nullable(), capacity: z.number().int().nullable(), capacityMode: gateMode, childrenPerAdult: z.number().int().nullable(),
  ratioMode: gateMode, backgroundCheckRequired: z.boolean(), backgroundCheckType: z.string().nullable(), createdAt: z.string(), updatedAt: z.string(),
}).strict();

export const stationKind = z.enum(STATION_KINDS);
export const stationSchema = z.object({ id: z.uuid(), name: z.string(), kind: stationKind, locationId: z.uuid().nullable(), createdAt: z.string() }).strict();

export const labelOptionsSchema = z.object({
  childLabel: z.boolean().describe('Print a label for each child'),
  parentTag: z.boolean().describe('Print the parent\'s pickup tag (code and children\'s names, never medical notes)'),
  copies: z.number().int().min(1).max(5).describe('Copies of each label'),
  showAllergies: z.boolean().describe('Put allergies and medical notes on the child\'s label (for roles allowed to see them)'),
}).strict();

export const serviceSettingsSchema = z.object({
  source: z.enum(['instance', 'series', 'default']).describe('Whose settings apply: the instance\'s own, its series\', or the defaults'),
  seriesId: z.string().nullable(), instanceId: z.string().nullable(),
  openLocationIds: z.array(z.uuid()).describe('Locations open for check-in; empty means every location'),
  labelOptions: labelOptionsSchema,
}).strict();

export const hubSchema = z.object({
  title: z.string().nullable(), stationId: z.uuid().nullable(), welcomeMessage: z.string().nullable(), allowNewFamilies: z.boolean(),
  lookup: z.enum(['phone', 'name', 'phone_or_name']), printParentTag: z.boolean(),
}).strict();

export const settingsSchema = z.object({
  securityCodeLength: z.number().int(), sweepGraceMinutes: z.number().int(), medicalVisibleRoles: z.array(z.enum(ROLES)),
  checkinOpensMinutesBefore: z.number().int().describe('Check-in to a service opens this many minutes before it starts'),
  checkinClosesMinutesAfter: z.number().int().describe('Check-in closes this many minutes after the service ends (checking out stays open)'),
}).strict();

export const personKind = z.enum(PERSON_KINDS);

const gateNote = z.object({ gate: z.enum(['capacity', 'ratio', 'age', 'grade']), message: z.string() }).strict();
const overrideSchema = z.object({ gate: z.string(), reason: z.string(), byUserId: z.string(), at: z.string() }).strict();

export const childLabelSchema = z.object({
  checkinId: z.uuid(), contactId: z.uuid(), name: z.string(), locationName: z.string(), securityCode: z.string(),
  medicalAlert: z.boolean().describe('The child has allergy or medical notes (always shown, so a leader knows to ask)'),
  allergies: z.string().nullable(), medicalNotes: z.string().nullable(),
  medicalWithheld: z.boolean().describe('Notes exist but the caller\'s role may not see them'),
}).strict();

export const labelsSchema = z.object({
  childLabels: z.array(childLabelSchema),
  parentTag: z.object({ securityCode: z.string(), children: z.array(z.object({ name: z.string(), locationName: z.string() }).strict()) }).strict().nullable(),
  copies: z.number().int(),
}).strict();

export const checkinResultSchema = z.object({
  groupId: z.uuid(), instanceId: z.uuid(), localDate: z.string(),
  securityCode: z.string().nullable().describe('The household\'s code for pickup; null when no child was checked in'),
  checkins: z.array(z.object({
    id: z.uuid(), contactId: z.uuid(), name: z.string(), personKind, locationId: z.uuid(), locationName: z.string(), firstTime: z.boolean(),
    checkedInAt: z.string(), warnings: z.array(gateNote), overrides: z.array(overrideSchema),
  }).strict()),
  labels: labelsSchema,
}).strict();

export const rosterSchema = z.object({
  instanceId: z.uuid(), localDate: z.string(), title: z.string(),
  totals: z.object({ children: z.number().int(), adults: z.number().int(), volunteers: z.number().int() }).strict(),
  rooms: z.array(z.object({
    locationId: z.uuid(), name: z.string(), children: z.number().int(), adults: z.number().int(), volunteers: z.number().int(),
    capacity: z.number().int().nullable(), placesLeft: z.number().int().nullable(), childrenPerAdult: z.number().int().nullable(), ratioMet: z.boolean(),
    people: z.array(z.object({
      checkinId: z.uuid(), contactId: z.uuid(), name: z.string(), personKind, firstTime: z.boolean(), checkedInAt: z.string(),
      medicalAlert: z.boolean(), allergies: z.string().nullable(), medicalNotes: z.string().nullable(), medicalWithheld: z.boolean(),
    }).strict()),
  }).strict()),
}).strict();

export const childProfileSchema = z.object({
  contactId: z.uuid(), grade: z.number().int().nullable(), allergies: z.string().nullable(), medicalNotes: z.string().nullable(),
  authorisedPickupIds: z.array(z.uuid()), medicalWithheld: z.boolean(),
}).strict();

export const checkoutSchema = z.object({
  checkinId: z.uuid(), contactId: z.uuid(), locationName: z.string(), checkedOutAt: z.string(), codeMatched: z.boolean(), pickupAuthorised: z.boolean(),
  flagged: z.boolean().describe('The person collecting is not on the child\'s authorised list (household or profile)'),
  overridden: z.array(z.enum(['security_code', 'pickup'])), overrideReason: z.string().nullable(),
  codeReleased: z.boolean().describe('Every child of the household check-in is out, so the code may be drawn again'),
}).strict();

export const sweepReportSchema = z.object({
  id: z.uuid(), instanceId: z.string(), localDate: z.string(), instanceEndedAt: z.string(), childrenReported: z.number().int(),
  stillCheckedIn: z.number().int(), staffOnDuty: z.number().int(), reportedAt: z.string(), updatedAt: z.string(),
}).strict();
