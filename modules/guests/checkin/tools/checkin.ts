import { z } from 'zod';
import { toolsFor } from '../../../kit';
import type { ToolContext } from '../../../tool';
import { checkIn, checkInChildAtHub, checkInHousehold, type Caller } from '../checkin';
import { checkOutChild, checkOutPerson, reprintLabels } from '../checkout';
import { liveRoster } from '../roster';
import { listSweepReports } from '../sweep';
import { checkinResultSchema, checkoutSchema, labelsSchema, personKind, rosterSchema, sweepReportSchema } from '../schemas';

const tools = toolsFor('guests', { read: 'guests:read', write: 'guests:write' });
const callerOf = (ctx: ToolContext): Caller => ({ orgId: ctx.org.id, userId: ctx.principal.userId, role: ctx.principal.role });
const meter = { feature: 'check_ins' as const, units: 1 };

const instanceId = z.uuid().describe('The service instance (guests_list_services_today)');
const stationId = z.uuid().describe('The check-in station used (guests_list_stations)');
const grade = z.number().int().min(-2).max(13).optional().describe('The child\'s school grade today, if not on their profile');
const overrideReason = z.string().trim().min(1).max(1000).optional()
  .describe('At a manned or roster station only: why a child outside a location\'s age or grade range goes in anyway (recorded on the check-in)');

export const checkInTool = tools.write('check_in', {
  title: 'Check a person or guest in',
  description: 'Checks one person (child, adult or volunteer serving there) into a location for a service instance at a station. Gates are checked in the same transaction: capacity and adult:child ratio (block or warn), age/grade filters (refused at self stations, overridable at manned ones with overrideReason), and a cleared safeguarding check for volunteers where the location requires one. A child gets a fresh security code and labels. For a family use guests_check_in_household.',
  keywords: ['check in', 'checkin', 'sign in', 'register arrival', 'kids check-in', 'volunteer check-in', 'guest check-in'],
  examples: ['check Amy into the toddler room for this morning', 'sign in Sarah as a leader in the youth room', 'a new family\'s boy is joining the juniors today', 'check a first-time visitor in at the welcome desk', 'sign Noah into juniors for the 10:30', 'check Dave in as a creche helper this morning', "put Lily in the toddler room, her mum says she's nearly 2", 'check in a visiting child to Sunday school', 'register Grace as arrived at Messy Church', "Jack's here for kids church, check him in", 'check Freddie in', "Oliver's gran brought him today, sign him into the juniors for the 10:30"],
  meter,
  input: z.object({
    instanceId, stationId,
    contactId: z.uuid().describe('The person arriving'),
    locationId: z.uuid().describe('Where they go (guests_list_locations)'),
    personKind: personKind.describe('child, adult, or volunteer (serving in the location: counts toward the ratio and needs a background check where required)'),
    grade, overrideReason,
  }),
  output: checkinResultSchema,
  run: async (ctx, input) => checkIn(ctx.db, callerOf(ctx), {
    instanceId: input.instanceId, stationId: input.stationId, overrideReason: input.overrideReason,
    arrivals: [{ contactId: input.contactId, locationId: input.locationId, kind: input.personKind, grade: input.grade }],
  }),
});

export const checkInHouseholdTool = tools.write('check_in_household', {
  title: 'Check a household in',
  description: 'Checks a household\'s children and adults in at once under ONE security code (printed on each child\'s label and the parent\'s tag), all or none: every gate of guests_check_in applies to each person inside one transaction. Everyone listed must be in the household of householdContactId.',
  keywords: ['family check-in', 'check in the kids', 'household'],
  examples: ['check the Smith family in: Amy to toddlers, Ben to juniors, mum to the main hall', 'sign in the Browns\' three kids for the 10:30', 'the Patels are here, both children to the crèche', 'the Okafors have arrived, all four in together', 'check the whole Jones family in with one code', "sign in both the Greens' kids and their dad", 'check in Sarah and her three children for the evening service', 'family check-in for the Wilsons: twins to creche, parents to the hall', 'the Khans are here, get everyone in on one pickup tag', 'check in the Nolan family', 'the Harpers are here with all three children, sign them in together under one code', 'can you check the whole family in at once?'],
  meter,
  meterCount: (input: { children: unknown[]; adults?: unknown[] }) => input.children.length + (input.adults?.length ?? 0),
  input: z.object({
    instanceId, stationId,
    householdContactId: z.uuid().describe('Any member of the household'),
    children: z.array(z.object({ contactId: z.uuid(), locationId: z.uuid(), grade })).min(1).max(20).describe('Children and the location each goes to'),
    adults: z.array(z.object({
      contactId: z.uuid(), locationId: z.uuid(),
      serving: z.boolean().default(false).describe('Checked in as a volunteer serving in that location'),
    })).max(20).optional().describe('Adults of the household attending or serving'),
    overrideReason,
  }),
  output: checkinResultSchema,
  run: async (ctx, input) => checkInHousehold(ctx.db, callerOf(ctx), {
    instanceId: input.instanceId, stationId: input.stationId, householdContactId: input.householdContactId, overrideReason: input.overrideReason,
    arrivals: [
      ...input.children.map((child) => ({ contactId: child.contactId, locationId: child.locationId, kind: 'child' as const, grade: child.grade })),
      ...(input.adults ?? []).map((adult) => ({ contactId: adult.contactId, locationId: adult.locationId, kind: adult.serving ? 'volunteer' as const : 'adult' as const })),
    ],
  }),
});

export const checkInChildHubTool = tools.write('check_in_child_hub', {
  title: 'Check a child in at the hub',
  description: 'A child checked in from the check-in hub (kiosk, set up with guests_update_checkin_hub): self-service rules apply, so an age or grade mismatch is refused (a leader at a manned station can override). Returns the code and labels to print.',
  keywords: ['kiosk check-in', 'self check-in', 'hub', 'kiosk check in child', 'touch screen check in'],
  examples: ['check Amy in at the kiosk for the 10:30', 'self check-in for Ben at the foyer screen', "Lily's mum is using the self-service screen to check her in", 'kiosk check-in for Noah into juniors', 'self-service check-in for Jack at the hub', 'a parent wants to check their child in at the touch screen', 'check in Chloe via the foyer kiosk', 'check Ben in at the hub for the family service', 'Max is checking in himself on the kiosk for Kids Church', 'self check-in at the hub for Ella into the toddler room', 'check in Isla on the self-service kiosk this morning', 'a family is at the foyer screen, check in their son Leo'],
  meter,
  input: z.object({ instanceId, childContactId: z.uuid().describe('The child'), locationId: z.uuid().describe('Their room'), grade }),
  output: checkinResultSchema,
  run: async (ctx, input) => checkInChildAtHub(ctx.db, callerOf(ctx), input),
});

export const liveRosterTool = tools.read('get_live_roster', {
  title: 'Live roster',
  description: 'Who is checked in to each location for a service right now (not yet checked out): children, adults and leaders, counts against capacity, places left and whether the adult:child ratio is met. Allergy and medical notes appear only for roles the settings allow; security codes are never listed.',
  keywords: ['who is in', 'room count', 'headcount now', 'kids in rooms', 'roster'],
  examples: ['how many children are in the toddler room', 'who is still checked in', 'is the crèche full', 'do we have enough leaders in juniors right now', "who's in the creche right now", 'how many kids are in Sunday school at the moment', 'are there spaces left in juniors', 'which leaders are on duty in the youth room now', 'is the ratio OK in the toddler room', 'list the children currently in each room', "who's in kids church now", "the fire alarm's gone, give me the list of everyone checked in to each room"],
  input: z.object({ instanceId, locationId: z.uuid().optional().describe('One location only') }),
  output: rosterSchema,
  run: async (ctx, input) => liveRoster(ctx.db, callerOf(ctx), input),
});

export const checkOutChildTool = tools.write('check_out_child', {
  title: 'Check a child out',
  description: 'Checks a child out at a manned or roster station (never self-service). The security code from the parent\'s tag must match, and the person collecting must be in the child\'s household or on their authorised list; otherwise the call is refused unless a staff member gives staffOverride.reason (recorded). An unauthorised pickup is always flagged in the result and the record.',
  keywords: ['check out', 'pickup', 'collect child', 'sign out'],
  examples: ['Amy\'s dad is collecting her, code K7MX', 'check Ben out, his grandmother is here', 'a parent lost their pickup tag', "Lily's mum is here to collect her, tag code 4821", 'sign Noah out, his childminder has the tag', "Jack's uncle wants to pick him up but isn't on the list", 'check out the Okafor twins, code R2D4', 'Chloe is going home with her dad now', "pickup for Ben, his mum's code is 7731", 'check Freddie out', "Oliver's mum is at the door with pickup code H3T9, sign him out of juniors", "can Amelia's grandad collect her, he has the tag?"],
  input: z.object({
    checkinId: z.uuid().describe('The child\'s check-in (guests_get_live_roster)'),
    stationId,
    securityCode: z.string().trim().min(1).max(20).optional().describe('The code on the parent\'s tag'),
    pickupContactId: z.uuid().optional().describe('The person collecting, if a contact'),
    pickupName: z.string().trim().min(1).max(200).optional().describe('The person collecting, when not a contact'),
    staffOverride: z.object({ reason: z.string().trim().min(1).max(1000).describe('The staff decision: why the child may go despite a missing code or an unauthorised pickup') }).optional(),
  }),
  output: checkoutSchema,
  run: async (ctx, input) => checkOutChild(ctx.db, callerOf(ctx), input),
});

export const checkOutPersonTool = tools.write('check_out_person', {
  title: 'Check an adult or leader out',
  description: 'Checks an adult or volunteer out of their location (a leader going off duty changes the room\'s ratio). Children are checked out with guests_check_out_child.',
  keywords: ['leader leaving', 'volunteer off duty', 'check out adult', 'sign out adult', 'leader going off duty'],
  examples: ['Sarah has finished leading in the toddler room', 'mum has left the main hall', 'sign out the youth leader', 'Dave is off duty in the creche now', 'the juniors helper has gone home', 'check out the visiting adult from the main hall', 'Anna has finished her stint in the youth room', 'sign out the welcome volunteer', "Mrs Green has left the parents' room", 'Mark has finished on the creche rota, check him out', "check out Helen from the juniors room, she's off duty", 'the dad helping in toddlers has left'],
  input: z.object({ checkinId: z.uuid().describe('Their check-in'), stationId }),
  output: z.object({ checkinId: z.uuid(), checkedOutAt: z.string() }).strict(),
  run: async (ctx, input) => checkOutPerson(ctx.db, callerOf(ctx), input),
});

export const reprintLabelTool = tools.write('reprint_label', {
  title: 'Reprint check-in labels',
  description: 'Prints a household check-in\'s labels again with the SAME security code (a lost or smudged label); children already checked out are left off. Counted on each child\'s check-in.',
  keywords: ['reprint', 'lost label', 'print again', 'name tag'],
  examples: ['the printer jammed, print Amy\'s label again', 'the Smiths lost their pickup tag, print another with the same code', "Noah's name sticker fell off, print another", "reprint the Okafors' labels", 'the label came out blank, print it again', 'print a fresh parent tag for the Jones family', "Lily's label smudged, need a new one with the same code", 'run the check-in stickers again for the Khans', 'reprint labels', "the Harpers' pickup sticker got wet, print another with the same code", "can you print Freddie's name label again?"],
  input: z.object({ checkinId: z.uuid().describe('Any check-in of the household check-in') }),
  output: z.object({ securityCode: z.string(), labels: labelsSchema, reprints: z.number().int() }).strict(),
  run: async (ctx, input) => reprintLabels(ctx.db, callerOf(ctx), input.checkinId),
});

export const listSweepReportsTool = tools.read('list_sweep_reports', {
  title: 'End-of-service sweep reports',
  description: 'Services that ended with children still checked in, as the periodic sweep reported them (the sweep never checks anyone out), with how many are still in now and how many leaders were on duty.',
  keywords: ['children not collected', 'still checked in', 'sweep'],
  examples: ['were any children left after the service', 'has every child been collected from last Sunday', 'any kids not picked up tonight', 'any children left uncollected after the evening service', 'show kids still signed in after services ended', 'which services had children never signed out', 'end-of-service sweep reports for this month', 'did anyone forget to sign their child out at Messy Church', 'were any kids still on the register after the 10:30 finished', 'uncollected children reports', 'the safeguarding lead wants to know how often kids were left signed in after services this term', "were any children still checked in after Sunday's service?"],
  input: z.object({
    openOnly: z.boolean().default(true).describe('Only reports with a child still checked in'),
    limit: z.number().int().min(1).max(100).default(20),
  }),
  output: z.object({ reports: z.array(sweepReportSchema) }).strict(),
  run: async (ctx, input) => ({ reports: await listSweepReports(ctx.db, ctx.org.id, input) }),
});

export const checkinTools = [
  checkInTool, checkInHouseholdTool, checkInChildHubTool, liveRosterTool, checkOutChildTool, checkOutPersonTool, reprintLabelTool, listSweepReportsTool,
];
