import { z } from 'zod';
import { toolsFor } from '../../kit';
import {
  archiveRoom, createBuilding, createResource, createRoom, listBuildings, listResources, listRooms, requireBuilding, requireCampus, roomView, updateRoom,
} from '../sites';

export const tools = toolsFor('spaces', { read: 'spaces:read', write: 'spaces:write' });

const buildingSchema = z.object({
  id: z.uuid(), name: z.string(), address: z.string().nullable(), campusId: z.uuid(), campus: z.string(), rooms: z.number().int(), createdAt: z.string(),
}).strict();
const layoutSchema = z.object({ name: z.string(), capacity: z.number().int().nullable(), note: z.string().nullable() }).strict();
export const roomSchema = z.object({
  id: z.uuid(), name: z.string(), buildingId: z.uuid(), building: z.string(), campus: z.string(), capacity: z.number().int(), features: z.array(z.string()),
  layouts: z.array(layoutSchema), approverUserIds: z.array(z.uuid()).describe('The approval group: bookings by anyone else wait as pending'),
  needsApproval: z.boolean(), defaultSetupMinutes: z.number().int(), defaultTeardownMinutes: z.number().int(), notes: z.string().nullable(), archived: z.boolean(),
}).strict();
const resourceSchema = z.object({ id: z.uuid(), name: z.string(), quantity: z.number().int(), buildingId: z.uuid().nullable(), notes: z.string().nullable(), archived: z.boolean() }).strict();

const name = z.string().trim().min(1).max(200);
const minutes = z.number().int().min(0).max(1440);
const layoutInput = z.object({ name, capacity: z.number().int().min(0).max(100_000).nullable().optional(), note: z.string().trim().max(500).nullable().optional() });
const roomFields = {
  capacity: z.number().int().min(0).max(100_000).describe('How many people the room holds'),
  features: z.array(z.string().trim().min(1).max(60)).max(50).optional().describe('What it has: projector, piano, kitchen, step-free access…'),
  layouts: z.array(layoutInput).max(20).optional().describe('Named set-ups (theatre, cabaret, circle) with the seats each gives'),
  approverUserIds: z.array(z.uuid()).max(50).optional().describe('The approval group (team members\' user ids); empty: every booking is approved at once'),
  defaultSetupMinutes: minutes.optional().describe('Set-up time added before each booking unless it says otherwise'),
  defaultTeardownMinutes: minutes.optional().describe('Clear-up time added after each booking unless it says otherwise'),
  notes: z.string().trim().max(2000).optional(),
};

export const listBuildingsTool = tools.read('list_buildings', {
  title: 'Buildings',
  description: 'The organisation\'s buildings by campus (site), with how many rooms each has.',
  keywords: ['buildings', 'sites', 'campus', 'premises'],
  examples: ['what buildings do we have', 'list our sites and halls', 'which buildings are on the main campus', 'show the church premises', 'how many rooms has each of our buildings got', 'list the church and the church centre with their rooms count', 'which sites does the parish have', 'our buildings', 'the insurer wants a list of every building we own, can you pull that?', 'which premises do we have on the west site'],
  input: z.object({}),
  output: z.object({ buildings: z.array(buildingSchema) }).strict(),
  run: async (ctx) => ({ buildings: await listBuildings(ctx.db, ctx.org.id) }),
});

export const createBuildingTool = tools.write('create_building', {
  title: 'Add a building',
  description: 'Adds a building on a campus (site), named; the campus is created when it is new (default "Main site").',
  keywords: ['add building', 'new site', 'church hall building'],
  examples: ['add the church centre as a building', 'we have a new building: the youth annex on the north campus', 'set up the parish hall as a building', 'we\'ve bought the old chapel on Mill Lane, add it', 'add St Mark\'s church as a building on the east campus', 'register the vicarage annexe as a building', 'new building: the community café on the high street', 'add the mission hall', "we've taken on the old library on Station Road as a second venue, add it to the north site", 'I need the new youth centre set up as a building'],
  input: z.object({ name, campus: name.optional().describe('The campus or site (created when new; default "Main site")'), address: z.string().trim().max(500).optional() }),
  output: z.object({ building: buildingSchema }).strict(),
  run: async (ctx, input) => ({ building: await createBuilding(ctx.db, ctx.org.id, input) }),
});

export const listRoomsTool = tools.read('list_rooms', {
  title: 'Rooms',
  description: 'Bookable rooms with capacity, features, layouts and approval group; narrow by building, campus, minimum capacity or features (all of them).',
  keywords: ['rooms', 'halls', 'spaces', 'capacity', 'features'],
  examples: ['which rooms do we have', 'rooms that seat at least 80', 'which rooms have a projector', 'list the rooms in the church centre', 'who approves bookings of the main hall', 'what size is the lounge', 'which halls have a kitchen and a stage', 'show me all the bookable spaces in the church centre', 'rooms with wheelchair access', "Fran's planning a 50-person workshop, which rooms are big enough and have a screen?", 'what rooms are there in the mission hall'],
  input: z.object({
    buildingId: z.uuid().optional(), campusId: z.uuid().optional(), minCapacity: z.number().int().min(0).max(100_000).optional(),
    features: z.array(z.string().trim().min(1).max(60)).max(20).optional(), includeArchived: z.boolean().default(false),
  }),
  output: z.object({ rooms: z.array(roomSchema) }).strict(),
  run: async (ctx, input) => {
    if (input.buildingId) await requireBuilding(ctx.db, ctx.org.id, input.buildingId);
    if (input.campusId) await requireCampus(ctx.db, ctx.org.id, input.campusId);
    return { rooms: (await listRooms(ctx.db, ctx.org.id, input)).map(roomView) };
  },
});

export const createRoomTool = tools.write('create_room', {
  title: 'Add a room',
  description: 'Adds a bookable room to a building: capacity, features, layouts, default set-up and clear-up minutes, and an approval group (bookings by anyone outside it wait as pending). Counts towards the plan\'s rooms allowance.',
  keywords: ['add room', 'new room', 'hall', 'meeting room'],
  examples: ['add the main hall, seats 200, with a stage and a piano', 'create a meeting room for 12 in the church centre', 'new room: the upper room, 40 people, Sam approves bookings', 'add the crèche room, capacity 15, needs approval from Jo', 'set up the vestry as a bookable room for 8', 'the new café space holds 60 with a serving hatch', 'add the chancel as a room we can book', 'add the green room', 'the mission hall has a side room for 25 with a sink, make it bookable', 'I need the prayer room added, Fran signs off its bookings'],
  meter: { feature: 'rooms', units: 1 },
  input: z.object({ buildingId: z.uuid().describe('spaces_list_buildings'), name, ...roomFields }),
  output: z.object({ room: roomSchema }).strict(),
  run: async (ctx, input) => ({ room: await createRoom(ctx.db, ctx.org.id, input) }),
});

export const updateRoomTool = tools.write('update_room', {
  title: 'Change a room',
  description: 'Changes a room\'s name, building, capacity, features, layouts, approval group, default set-up and clear-up, or notes. Lists given replace the old ones.',
  keywords: ['edit room', 'room capacity', 'approval group', 'layouts'],
  examples: ['the hall now seats 180', 'add a hearing loop to the lounge features', 'make Sam and Priya the approvers for the main hall', 'add a cabaret layout for 90 to the hall', 'rename the lounge to the Wesley Room', 'the upper room has a new screen now, add it to its features', 'set-up for the main hall should be 30 minutes by default', 'move the crèche room to the church centre building', 'green room seats 30 now', "Fran's handing over, so Mark approves the prayer room's bookings from now on", 'can the side room get a theatre layout for 40'],
  idempotent: true,
  input: z.object({
    roomId: z.uuid(),
    changes: z.object({
      name: name.optional(), buildingId: z.uuid().optional(), capacity: roomFields.capacity.optional(), features: roomFields.features, layouts: roomFields.layouts,
      approverUserIds: roomFields.approverUserIds, defaultSetupMinutes: roomFields.defaultSetupMinutes, defaultTeardownMinutes: roomFields.defaultTeardownMinutes,
      notes: z.string().trim().max(2000).nullable().optional(),
    }),
  }),
  output: z.object({ room: roomSchema }).strict(),
  run: async (ctx, input) => ({ room: await updateRoom(ctx.db, ctx.org.id, input.roomId, input.changes) }),
});

export const archiveRoomTool = tools.write('archive_room', {
  title: 'Archive a room',
  description: 'Takes a room out of use (kept for history, no longer bookable or counted). Refused while it has upcoming bookings, which are listed: move or cancel them first.',
  keywords: ['archive room', 'remove room', 'room out of use'],
  examples: ['the old vestry is no longer used, archive it', 'remove the portakabin from the rooms', 'we demolished the scout hut, take it off the list', 'the crèche room is now storage, stop people booking it', 'retire the old youth room', 'we sold the cottage, archive its meeting room', 'take the portable classroom out of use', 'retire the green room', 'the side room is being turned into offices, so nobody should book it any more', 'I need the prayer room taken off the bookable list for good'],
  destructive: true,
  input: z.object({ roomId: z.uuid() }),
  output: z.object({ room: roomSchema }).strict(),
  run: async (ctx, input) => archiveRoom(ctx.db, ctx.org.id, input.roomId, new Date()),
});

export const listResourcesTool = tools.read('list_resources', {
  title: 'Resources',
  description: 'Countable resources that bookings take (120 chairs, 2 projectors), with how many there are.',
  keywords: ['resources', 'equipment', 'chairs', 'projectors', 'tables', 'kit'],
  examples: ['how many chairs do we have', 'what equipment can be booked', 'list the projectors and PA systems', 'have we got enough tables for 100', 'what kit can hirers book with the hall', 'how many urns and trestle tables are there', 'show all bookable equipment in the church centre', 'our equipment list', 'the Guides are asking what they can borrow, so what bookable kit is there?', 'have we got any PA speakers or microphones'],
  input: z.object({ buildingId: z.uuid().optional() }),
  output: z.object({ resources: z.array(resourceSchema) }).strict(),
  run: async (ctx, input) => {
    if (input.buildingId) await requireBuilding(ctx.db, ctx.org.id, input.buildingId);
    return { resources: await listResources(ctx.db, ctx.org.id, input) };
  },
});

export const createResourceTool = tools.write('create_resource', {
  title: 'Add a resource',
  description: 'Adds a countable resource (how many there are): bookings take some of it, and never more than there is at once.',
  keywords: ['add equipment', 'chairs', 'projector', 'resource'],
  examples: ['we have 120 stacking chairs', 'add 2 projectors as bookable equipment', 'record the 15 trestle tables in the hall store', 'we bought 4 new tea urns', 'add the portable PA as equipment people can book', 'there are 60 folding chairs in the church centre', 'add the popcorn machine to the things hirers can book', 'add 8 gazebos', 'we were given 30 high chairs for the toddler group, make them bookable', 'I need the new portable hearing loop set up as equipment'],
  input: z.object({ name, quantity: z.number().int().min(1).max(100_000), buildingId: z.uuid().optional(), notes: z.string().trim().max(2000).optional() }),
  output: z.object({ resource: resourceSchema }).strict(),
  run: async (ctx, input) => ({ resource: await createResource(ctx.db, ctx.org.id, input) }),
});

export const siteTools = [listBuildingsTool, createBuildingTool, listRoomsTool, createRoomTool, updateRoomTool, archiveRoomTool, listResourcesTool, createResourceTool];
