import { z } from 'zod';
import { ROLES } from '../../../../core/roles';
import { toolsFor } from '../../../kit';
import { exactlyOne, type ToolContext } from '../../../tool';
import { mayReadMedical } from '../labels';
import {
  createLocation, createStation, deleteStation, getCheckinSettings, getChildProfile, getHub, listLocations, listStations, settingsOfService,
  updateCheckinSettings, updateChildProfile, updateHub, updateLocation, updateServiceSettings, type LocationFields,
} from '../setup';
import {
  childProfileSchema, hubSchema, labelOptionsSchema, locationFields, locationSchema, serviceSettingsSchema, settingsSchema, stationKind, stationSchema,
} from '../schemas';

const tools = toolsFor('guests', { read: 'guests:read', write: 'guests:write' });
const serviceTarget = {
  seriesId: z.uuid().optional().describe('A service series (schedule module): applies to each of its instances without settings of their own'),
  instanceId: z.uuid().optional().describe('One service instance: overrides its series\' settings'),
};

export const listLocationsTool = tools.read('list_locations', {
  title: 'List check-in locations',
  description: 'The rooms and areas people are checked into (children\'s groups, crèche, main hall), with their age/grade filters, capacity, adult:child ratio and whether volunteers need a background check.',
  keywords: ['rooms', 'kids rooms', 'classrooms', 'check-in locations', "children's rooms", 'check-in rooms'],
  examples: ['which kids rooms do we have', 'what is the capacity of the toddler room', 'which rooms need a DBS for leaders', 'what rooms do children get checked into', 'list the kids groups and their age ranges', 'how many can the creche take', "what's the leader to child ratio for juniors", 'show all our check-in rooms', 'which areas are set up for Sunday school', 'which check-in locations are set up', 'what age range is the pre-school room for', 'how many children can the juniors room hold'],
  input: z.object({}),
  output: z.object({ locations: z.array(locationSchema) }).strict(),
  run: async (ctx) => ({ locations: await listLocations(ctx.db, ctx.org.id) }),
});

export const createLocationTool = tools.write('create_location', {
  title: 'Create a check-in location',
  description: 'Adds a room or area for check-in: name, age or grade range (enforced at self-service stations, overridable at manned ones), capacity and adult:child ratio (each block or warn), and whether volunteers serving there need a cleared safeguarding check.',
  keywords: ['add room', 'new kids room', 'classroom', 'ratio', 'capacity'],
  examples: ['add a toddler room for ages 2 to 3, 12 places, one leader per 4 children', 'create the youth room, DBS required', 'we now use the upstairs hall for the under-fives', 'add a new room for the year 7 to 9 group', 'set up the baby room, under 2s, 8 places', "we've opened a second creche in the vestry", 'create a quiet sensory room for children with additional needs', 'new Sunday school class for reception and year 1', "add a parents' room for mums with babies", 'add a check-in room', "we're splitting the juniors next term, so create a room for years 5 and 6 with 20 places", 'can we set up the vestry as a check-in room for toddlers?'],
  input: z.object({ ...locationFields }),
  output: z.object({ location: locationSchema }).strict(),
  run: async (ctx, input) => ({ location: await createLocation(ctx.db, ctx.org.id, input as LocationFields) }),
});

export const updateLocationTool = tools.write('update_location', {
  title: 'Update a check-in location',
  description: 'Changes a location\'s name, filters, capacity, ratio, gate modes or background-check rule; only the fields given change, and null clears a filter or limit. Takes effect for the next check-in.',
  keywords: ['change capacity', 'edit room', 'ratio'],
  examples: ['raise the toddler room capacity to 15', 'make the ratio a warning only in the crèche', 'the juniors room now takes years 3 to 6', 'change the creche ratio to one adult per three babies', 'rename Juniors to Explorers', 'the youth room no longer needs DBS-checked leaders', 'drop the capacity limit on the main hall', 'the toddler room is now for 18 months to 3 years', 'make the juniors capacity a hard block, not a warning', 'change the creche capacity', "we've got two more leaders for the toddler room, raise its capacity to 18", 'can the youth room take year 6 as well now?'],
  idempotent: true,
  input: z.object({ locationId: z.uuid().describe('The location'), ...locationFields, name: locationFields.name.optional() }),
  output: z.object({ location: locationSchema }).strict(),
  run: async (ctx, input) => {
    const { locationId, ...patch } = input;
    return { location: await updateLocation(ctx.db, ctx.org.id, locationId, patch as Partial<LocationFields>) };
  },
});

export const listStationsTool = tools.read('list_stations', {
  title: 'List check-in stations',
  description: 'Check-in points: self-service kiosks (self), staffed desks (manned) and room rosters (roster, tied to one location). Children are checked out only at manned or roster stations.',
  keywords: ['kiosks', 'check-in desks', 'stations', 'check-in points', 'self-service screens'],
  examples: ['which check-in stations are set up', 'where can parents collect their children', 'list the kiosks in the foyer', 'what check-in points have we got', 'which check-in desks are staffed', 'is there a roster station for the creche', 'show me all the self check-in screens', 'where do families sign their children in', 'list our check-in desks and kiosks', 'which stations can check children out', 'how many kiosks have we got set up', 'list the staffed check-in desks'],
  input: z.object({}),
  output: z.object({ stations: z.array(stationSchema) }).strict(),
  run: async (ctx) => ({ stations: await listStations(ctx.db, ctx.org.id) }),
});

export const createStationTool = tools.write('create_check_in_station', {
  title: 'Create a check-in station',
  description: 'Adds a check-in point: self (a kiosk families use themselves; age/grade filters cannot be overridden there and children cannot be checked out there), manned (a staffed desk) or roster (one room\'s own list; needs locationId).',
  keywords: ['add kiosk', 'new check-in desk', 'room roster'],
  examples: ['set up a kiosk in the foyer', 'add a roster station for the toddler room', 'we have a welcome desk staffed by the team on Sundays', 'add a second kiosk by the hall entrance', 'new staffed check-in desk at the side door', 'set up a room list station for juniors', "we've bought an iPad for self check-in in the foyer", 'add a check-in desk for the welcome team', 'create a station inside the creche for the leaders', 'add a check-in kiosk', "we've got a spare tablet, set it up as a self check-in kiosk by the hall door", 'can we have a staffed check-in point at the side entrance?'],
  input: z.object({
    name: z.string().trim().min(1).max(200).describe('e.g. "Foyer kiosk 1"'),
    kind: stationKind.describe('self, manned or roster'),
    locationId: z.uuid().optional().describe('The room a roster station serves'),
  }),
  output: z.object({ station: stationSchema }).strict(),
  run: async (ctx, input) => ({ station: await createStation(ctx.db, ctx.org.id, input) }),
});

export const deleteStationTool = tools.write('delete_check_in_station', {
  title: 'Delete a check-in station',
  description: 'Retires a check-in station; past check-ins keep naming it. A missing or already deleted station is not found.',
  keywords: ['remove kiosk', 'delete station', 'retire station', 'remove check-in desk'],
  examples: ['remove the old foyer kiosk', 'we no longer use the side door desk', 'get rid of the spare check-in station', "bin the kiosk by the hall, it's broken", 'take the juniors roster station out', 'delete the old iPad check-in point', "retire last year's welcome desk station", "we've stopped using the upstairs desk, remove it", 'scrap the second kiosk', 'delete the check-in station by the back door', 'the old tablet kiosk has gone, remove its station', 'retire the creche roster station'],
  destructive: true,
  input: z.object({ stationId: z.uuid().describe('The station') }),
  output: z.object({ deleted: z.literal(true), stationId: z.uuid() }).strict(),
  run: async (ctx, input) => {
    await deleteStation(ctx.db, ctx.org.id, input.stationId);
    return { deleted: true as const, stationId: input.stationId };
  },
});

export const getServiceSettingsTool = tools.read('get_service_checkin_settings', {
  title: 'Get a service\'s check-in settings',
  description: 'Which locations are open for check-in and how labels print, for a service series or one instance; an instance without its own settings shows its series\', else the defaults (every location open).',
  keywords: ['open rooms', 'label settings', 'service check-in setup', 'service labels', 'rooms open at service'],
  examples: ['which rooms are open for the 10:30 service', 'how many label copies print on Sunday mornings', 'which kids rooms are open at the evening service', 'is the creche open for check-in this Sunday', 'do parent tags print at the 8am', 'what label setup does the carol service use', 'show the open check-in rooms for the 10:30', 'which rooms can families use at Messy Church', "which children's rooms are open at the 9am", 'what are the check-in settings for Christmas Eve', 'how do labels print for the family service', 'is the youth room open for check-in on Sunday evening'],
  input: z.object({ ...serviceTarget }).refine(...exactlyOne('seriesId', 'instanceId')),
  output: z.object({ settings: serviceSettingsSchema }).strict(),
  run: async (ctx, input) => ({ settings: await settingsOfService(ctx.db, ctx.org.id, input) }),
});

export const updateServiceSettingsTool = tools.write('update_service_checkin_settings', {
  title: 'Update a service\'s check-in settings',
  description: 'Sets which locations open for check-in and the label options, for a whole service series or one instance (an instance\'s settings win over its series\'). Fields not given keep their value.',
  keywords: ['open rooms', 'close room', 'labels', 'parent tag', 'open room for service', 'label copies'],
  examples: ['only open the crèche and toddler room for the evening service', 'print two copies of the labels on Sunday', 'the youth room is closed this Sunday', 'open the youth room for the evening service too', 'close the creche for the carol service', "don't print parent tags at the 8am", 'for Easter Sunday only, open every room', 'just the main hall for Messy Church check-in', 'turn on parent tags for the family service', 'open only the creche at the midweek service', 'print one label per child at the 9am from now on', 'close the juniors room for the Christmas Day service'],
  idempotent: true,
  input: z.object({
    ...serviceTarget,
    openLocationIds: z.array(z.uuid()).max(200).optional().describe('Locations open for check-in; an empty list opens every location'),
    labelOptions: labelOptionsSchema.partial().optional().describe('Label options to change'),
  }).refine(...exactlyOne('seriesId', 'instanceId')),
  output: z.object({ settings: serviceSettingsSchema }).strict(),
  run: async (ctx, input) => ({ settings: await updateServiceSettings(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

export const getHubTool = tools.read('get_checkin_hub', {
  title: 'Get the check-in hub',
  description: 'The check-in hub (kiosk) configuration: its self-service station, title, welcome message, how families look themselves up, and whether it prints parent tags.',
  keywords: ['kiosk settings', 'hub', 'kiosk setup', 'self check-in screen'],
  examples: ['how is the kiosk set up', 'which station does the self check-in screen use', 'what does the kiosk say to families', 'how do parents find themselves on the self check-in screen', 'does the kiosk print parent tags', 'show the check-in hub settings', "what's the welcome message on the foyer screen", 'which kiosk is the hub', 'how do families look themselves up at the kiosk', 'what title does the self check-in screen show', 'show me the kiosk configuration', 'is the hub set to print parent tags'],
  input: z.object({}),
  output: z.object({ hub: hubSchema }).strict(),
  run: async (ctx) => ({ hub: await getHub(ctx.db, ctx.org.id) }),
});

export const updateHubTool = tools.write('update_checkin_hub', {
  title: 'Update the check-in hub',
  description: 'Configures the check-in hub (kiosk) that guests_check_in_child_hub uses: its station (must be a self station), title, welcome message, family lookup and parent tag printing. Fields not given keep their value.',
  keywords: ['kiosk setup', 'hub settings', 'configure kiosk', 'kiosk greeting'],
  examples: ['use the foyer kiosk as the hub and welcome families to St Anne\'s', 'let families find themselves by phone number at the kiosk', 'stop the kiosk printing parent tags', "change the kiosk greeting to Welcome to St Mary's", 'let families search by surname on the kiosk', 'make the hub print parent tags again', 'switch the hub to the new kiosk by the hall', 'retitle the self check-in screen Kids Church', 'families should look themselves up by email at the screen', 'change the kiosk welcome to Hello and welcome to Kids Zone', 'set the hub to the kiosk in the church hall', 'let parents look up by last name on the self check-in screen'],
  idempotent: true,
  input: z.object({
    stationId: z.uuid().nullable().optional().describe('The self-service station the hub runs at'),
    title: z.string().trim().min(1).max(200).nullable().optional(),
    welcomeMessage: z.string().trim().min(1).max(500).nullable().optional(),
    allowNewFamilies: z.boolean().optional().describe('Let unknown families start at the hub (a leader completes their details)'),
    lookup: z.enum(['phone', 'name', 'phone_or_name']).optional(),
    printParentTag: z.boolean().optional(),
  }),
  output: z.object({ hub: hubSchema }).strict(),
  run: async (ctx, input) => ({ hub: await updateHub(ctx.db, ctx.org.id, input) }),
});

export const getSettingsTool = tools.read('get_checkin_settings', {
  title: 'Get check-in settings',
  description: 'The organisation\'s check-in settings: security code length, minutes after a service before the sweep reports children still checked in, the roles allowed to see medical and allergy notes, and the check-in window (opens minutes before a service starts, closes minutes after it ends).',
  keywords: ['security code length', 'medical notes access', 'check-in window', 'pickup code length'],
  examples: ['who can see allergy notes at check-in', 'how long are our security codes', 'when does the end-of-service check run', 'how long after the service do we flag uncollected kids', 'when does check-in open before the 10:30', "which roles can see children's medical info", 'how many digits are the pickup codes', 'what are our check-in window times', "show the organisation's check-in settings", 'how early can families check in before a service', 'how many minutes after the service do we sweep for children', 'who is allowed to see medical notes on the check-in screen'],
  input: z.object({}),
  output: z.object({ settings: settingsSchema }).strict(),
  run: async (ctx) => ({ settings: await getCheckinSettings(ctx.db, ctx.org.id) as z.input<typeof settingsSchema> }),
});

export const updateSettingsTool = tools.write('update_settings', {
  title: 'Update guests check-in settings',
  description: 'Changes the guests module\'s check-in settings: security code length (3 to 8), the sweep\'s grace minutes after a service ends, which roles may see medical and allergy notes, and the check-in window (how long before a service starts check-in opens, and how long after it ends it closes). Fields not given keep their value.',
  keywords: ['security code length', 'sweep timing', 'medical notes roles', 'check-in window', 'check-in opens', 'check-in closes'],
  examples: ['use 5-character security codes', 'only admins may see medical notes', 'flag children not collected 15 minutes after the service', 'open check-in 90 minutes before the service', 'make pickup codes 6 characters', "let children's workers see allergy notes too", 'close check-in 30 minutes after the service ends', 'report kids still signed in 20 minutes after the end', 'check-in should open an hour before each service', 'only safeguarding leads can view medical notes', 'change check-in settings', 'parents are arriving early, so open check-in an hour and a half before the service'],
  idempotent: true,
  input: z.object({
    securityCodeLength: z.number().int().min(3).max(8).optional(),
    sweepGraceMinutes: z.number().int().min(0).max(720).optional(),
    medicalVisibleRoles: z.array(z.enum(ROLES)).max(4).optional().describe('Roles that see medical and allergy notes on labels, rosters and profiles'),
    checkinOpensMinutesBefore: z.number().int().min(0).max(43_200).optional()
      .describe('Minutes before a service starts that check-in opens (default 60; at most 30 days)'),
    checkinClosesMinutesAfter: z.number().int().min(0).max(1440).optional()
      .describe('Minutes after a service ends that check-in closes (default 30; at most a day). Checking out is never closed'),
  }),
  output: z.object({ settings: settingsSchema }).strict(),
  run: async (ctx, input) => ({ settings: await updateCheckinSettings(ctx.db, ctx.org.id, input) as z.input<typeof settingsSchema> }),
});

async function profileFor(ctx: ToolContext, contactId: string, profile?: Awaited<ReturnType<typeof getChildProfile>>) {
  const value = profile ?? await getChildProfile(ctx.db, ctx.org.id, contactId);
  const mayRead = mayReadMedical(ctx.principal.role, await getCheckinSettings(ctx.db, ctx.org.id));
  const hasNotes = Boolean(value.allergies || value.medicalNotes);
  return { ...value, allergies: mayRead ? value.allergies : null, medicalNotes: mayRead ? value.medicalNotes : null, medicalWithheld: hasNotes && !mayRead };
}

export const getChildProfileTool = tools.read('get_child_profile', {
  title: 'Get a child\'s check-in profile',
  description: 'A child\'s grade, allergies, medical notes and the people authorised to collect them besides their household. Medical and allergy notes are shown only to roles the settings allow (medicalWithheld says when they exist but are hidden).',
  keywords: ['allergies', 'medical notes', 'authorised pickup'],
  examples: ['does Amy have any allergies', 'who can collect Ben', 'what grade is Chloe in', 'is Lily allergic to anything', 'has Jack got any medical needs we should know about', "who's allowed to pick up the Okafor twins", 'what school year is Noah in', "can Ben's auntie collect him", "show Chloe's check-in details", "Amelia's allergies", 'before the Sunday school party, check whether Oliver has any food allergies and who collects him', 'is anyone besides his parents allowed to pick up Freddie?'],
  input: z.object({ contactId: z.uuid().describe('The child') }),
  output: z.object({ profile: childProfileSchema }).strict(),
  run: async (ctx, input) => ({ profile: await profileFor(ctx, input.contactId) }),
});

export const updateChildProfileTool = tools.write('update_child_profile', {
  title: 'Update a child\'s check-in profile',
  description: 'Records a child\'s school grade, allergies, medical notes and people authorised to collect them (besides their household). Notes print on the child\'s own label only, never on the parent\'s tag.',
  keywords: ['allergy', 'medical', 'authorised pickup', 'grade', 'child allergies', 'who can collect'],
  examples: ['Amy is allergic to peanuts', 'Grandma Joan can collect Ben', 'Chloe moved up to year 4', 'Sam uses an inhaler for asthma', 'Lily has a nut allergy and carries an EpiPen', "add Ben's uncle Dave as allowed to collect him", 'Noah is now in year 6', "take Grandad off Amy's pickup list", 'Jack is diabetic, note it for check-in', "Chloe's egg allergy has gone, remove it", 'Ella is coeliac, note it on her check-in labels', 'Auntie Rose is allowed to pick up Max'],
  idempotent: true,
  input: z.object({
    contactId: z.uuid().describe('The child'),
    grade: z.number().int().min(-2).max(13).nullable().optional(),
    allergies: z.string().trim().min(1).max(1000).nullable().optional(),
    medicalNotes: z.string().trim().min(1).max(2000).nullable().optional(),
    authorisedPickupIds: z.array(z.uuid()).max(20).optional().describe('Contacts (outside the household) who may collect the child; replaces the list'),
  }),
  output: z.object({ profile: childProfileSchema }).strict(),
  run: async (ctx, input) => {
    const { contactId, ...patch } = input;
    return { profile: await profileFor(ctx, contactId, await updateChildProfile(ctx.db, ctx.org.id, contactId, patch)) };
  },
});

export const setupTools = [
  listLocationsTool, createLocationTool, updateLocationTool, listStationsTool, createStationTool, deleteStationTool, getServiceSettingsTool,
  updateServiceSettingsTool, getHubTool, updateHubTool, getSettingsTool, updateSettingsTool, getChildProfileTool, updateChildProfileTool,
];
