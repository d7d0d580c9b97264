import { z } from 'zod';
import { assertDateRange, calendarDate } from '../../kit';
import { addDays, todayUtc } from '../../metrics';
import { createCharge, listCharges, listIncidents, recordPayment, recordUtilityBill, reportIncident, updateIncident, utilitySummary } from '../facilities';
import { INCIDENT_PRIORITIES, INCIDENT_STATUSES, UTILITY_KINDS } from '../models';
import { requireBuilding, requireRoom } from '../sites';
import { tools } from './sites';

const currency = z.string().max(3).regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as GBP').describe('ISO 4217 currency code, e.g. GBP');
const minorUnits = z.number().int().min(1).max(2_000_000_000).describe('Minor units: pence or cents (£12.50 is 1250)');

const incidentSchema = z.object({
  id: z.uuid(), title: z.string(), description: z.string().nullable(), status: z.enum(INCIDENT_STATUSES), priority: z.enum(INCIDENT_PRIORITIES),
  roomId: z.uuid().nullable(), room: z.string().nullable(), buildingId: z.uuid().nullable(), building: z.string().nullable(), locationNote: z.string().nullable(),
  assigneeUserId: z.uuid().nullable(), reportedByUserId: z.uuid().nullable(), resolutionNote: z.string().nullable(), doneAt: z.string().nullable(),
  createdAt: z.string(), updatedAt: z.string(),
}).strict();

export const reportIncidentTool = tools.write('report_incident', {
  title: 'Report an incident',
  description: 'Logs an incident or work order (a leak, a broken boiler, a fault): title, what happened, priority, where (room, building or a note) and optionally who deals with it. Starts as new.',
  keywords: ['report fault', 'maintenance request', 'work order', 'repair', 'incident'],
  examples: ['the boiler in the church centre has broken down', 'report a leak in the lounge ceiling, urgent', 'the hall projector bulb has gone', 'log a work order: fix the broken toilet door upstairs', 'a window in the vestry is cracked', 'there\'s no hot water in the church centre kitchen', 'the fire door in the hall won\'t shut properly', 'log that the heating isn\'t working in the lounge', 'toilet blocked in the hall', 'Mark noticed water coming through the side room ceiling after the storm, log it as urgent', 'can you report that the mission hall door lock is broken'],
  input: z.object({
    title: z.string().trim().min(1).max(200), description: z.string().trim().max(4000).optional(), priority: z.enum(INCIDENT_PRIORITIES).default('normal'),
    roomId: z.uuid().optional(), buildingId: z.uuid().optional(), locationNote: z.string().trim().min(1).max(200).optional(), assigneeUserId: z.uuid().optional(),
  }),
  output: z.object({ incident: incidentSchema }).strict(),
  run: async (ctx, input) => ({ incident: await reportIncident(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

export const updateIncidentTool = tools.write('update_incident', {
  title: 'Update an incident',
  description: 'Moves an incident along (new → triaged → in_progress → done, or back a step), changes its priority or assignee, or records how it was fixed.',
  keywords: ['update work order', 'incident done', 'assign repair', 'triage'],
  examples: ['the boiler is fixed, close that incident', 'give the roof leak to Tom and mark it in progress', 'raise the lounge leak to urgent', 'the electrician is working on the hall lights now', 'the plumber has sorted the kitchen tap, mark it done', 'the heating fault has been looked at, move it to triaged', 'hand the fire door job to the churchwarden', 'lower the cracked window job to low priority', 'mark the leak fixed', 'Mark has rung the roofer, so put the ceiling job in progress and give it to him', 'could you make the broken lock a high priority'],
  input: z.object({
    incidentId: z.uuid(), status: z.enum(INCIDENT_STATUSES).optional(), priority: z.enum(INCIDENT_PRIORITIES).optional(), assigneeUserId: z.uuid().nullable().optional(),
    resolutionNote: z.string().trim().min(1).max(2000).optional(), title: z.string().trim().min(1).max(200).optional(), description: z.string().trim().max(4000).optional(),
  }),
  output: z.object({ incident: incidentSchema }).strict(),
  run: async (ctx, input) => ({ incident: await updateIncident(ctx.db, ctx.org.id, input) }),
});

export const listIncidentsTool = tools.read('list_incidents', {
  title: 'Incidents',
  description: 'Incidents and work orders, most urgent first (default the open ones: new, triaged, in progress); narrow by status, priority, room, building or assignee.',
  keywords: ['incidents', 'work orders', 'repairs', 'maintenance list', 'faults'],
  examples: ['what repairs are outstanding', 'which urgent maintenance jobs are open', 'what is Tom working on', 'any faults reported in the hall', 'show the maintenance log for the church centre', 'what\'s still broken in the buildings', 'list the jobs assigned to the caretaker', 'open work orders', 'before the trustees meet, which repairs are still waiting across the buildings?', 'what maintenance has been given to Mark'],
  input: z.object({
    statuses: z.array(z.enum(INCIDENT_STATUSES)).min(1).max(4).optional(), priority: z.enum(INCIDENT_PRIORITIES).optional(), roomId: z.uuid().optional(),
    buildingId: z.uuid().optional(), assigneeUserId: z.uuid().optional(), limit: z.number().int().min(1).max(200).default(50),
  }),
  output: z.object({ truncated: z.boolean(), incidents: z.array(incidentSchema) }).strict(),
  run: async (ctx, input) => {
    if (input.roomId) await requireRoom(ctx.db, ctx.org.id, input.roomId, { includeArchived: true });
    if (input.buildingId) await requireBuilding(ctx.db, ctx.org.id, input.buildingId);
    return listIncidents(ctx.db, ctx.org.id, input);
  },
});

export const recordUtilityBillTool = tools.write('record_utility_bill', {
  title: 'Record a utility bill',
  description: 'Records one bill period of a building\'s electricity, gas or water: dates, usage (kWh, or m3 for water) and cost in minor units. A period overlapping one already recorded for the same supply is refused.',
  keywords: ['utility bill', 'electricity bill', 'gas bill', 'water bill', 'energy'],
  examples: ['the church centre electricity bill for October was £412.60 for 1830 kWh', 'record the hall gas bill, 1 Sept to 30 Nov, 5200 kWh, £780', 'water bill for the church this quarter was £96', 'log the electricity bill for the church, £520, 2400 kWh, Oct to Dec', 'enter this quarter\'s water bill for the hall, £64', 'the gas bill from British Gas for January was £610', 'add the latest energy bill for the church centre', 'enter the gas bill', 'the mission hall electric for July to September came to £288 for 1,100 kWh, record it', 'I need to log the church water bill for last quarter'],
  input: z.object({
    buildingId: z.uuid(), kind: z.enum(UTILITY_KINDS), periodStart: calendarDate(), periodEnd: calendarDate(), usage: z.number().int().min(0).max(2_000_000_000),
    costMinor: z.number().int().min(0).max(2_000_000_000), currency, supplier: z.string().trim().min(1).max(200).optional(),
  }),
  output: z.object({
    bill: z.object({ id: z.uuid(), buildingId: z.uuid(), building: z.string(), kind: z.enum(UTILITY_KINDS), unit: z.string(), periodStart: z.string(), periodEnd: z.string(), usage: z.number().int(), costMinor: z.number().int(), currency: z.string(), supplier: z.string().nullable() }).strict(),
  }).strict(),
  run: async (ctx, input) => recordUtilityBill(ctx.db, ctx.org.id, input),
});

export const getUtilitySummaryTool = tools.read('get_utility_summary', {
  title: 'Utility costs',
  description: 'Utility cost and usage over a range (default the last 12 months) per building and supply, bills shared out by the days inside the range; the hours its rooms were occupied by approved bookings; and the cost per occupied hour.',
  keywords: ['utility costs', 'energy cost', 'cost per hour', 'running costs'],
  examples: ['how much did heating the church centre cost this year', 'what does an hour in the hall cost us in energy', 'utility spend per building last quarter', 'is the gas bill going up', 'how much did we spend on gas and electricity last year', 'which building costs most to heat', 'what does it cost per hour to run the lounge', 'show energy use across our buildings', 'energy costs per building', "the treasurer's doing the budget, what did gas and electric cost us over the year?", 'how much does each occupied hour of the mission hall cost'],
  input: z.object({ from: calendarDate().optional(), to: calendarDate().optional(), buildingId: z.uuid().optional() }),
  output: z.object({
    from: z.string(), to: z.string(), currency: z.string().nullable(), mixedCurrencies: z.boolean(),
    buildings: z.array(z.object({
      buildingId: z.uuid(), building: z.string(), costMinor: z.number().int(), occupiedHours: z.number(), costPerOccupiedHourMinor: z.number().int().nullable(),
      lines: z.array(z.object({ kind: z.enum(UTILITY_KINDS), unit: z.string(), usage: z.number().int(), costMinor: z.number().int() }).strict()),
    }).strict()),
    totals: z.object({ costMinor: z.number().int(), occupiedHours: z.number(), costPerOccupiedHourMinor: z.number().int().nullable() }).strict(),
  }).strict(),
  run: async (ctx, input) => {
    const to = input.to ?? todayUtc();
    const range = { from: input.from ?? addDays(to, -364), to };
    assertDateRange(range);
    return utilitySummary(ctx.db, ctx.org.id, { ...range, buildingId: input.buildingId });
  },
});

const chargeSchema = z.object({
  id: z.uuid(), bookingId: z.uuid(), kind: z.enum(['hire', 'deposit', 'other']), description: z.string(), amountMinor: z.number().int(), currency: z.string(), dueDate: z.string(),
  paidMinor: z.number().int(), outstandingMinor: z.number().int(), status: z.enum(['unpaid', 'part_paid', 'paid']),
}).strict();

export const createBookingChargeTool = tools.write('create_booking_charge', {
  title: 'Charge for a booking',
  description: 'Adds a charge to a booking (an external hire fee, a deposit): amount in minor units, currency and due date. Paid or unpaid shows on spaces_list_charges.',
  keywords: ['hire fee', 'deposit', 'invoice hirer', 'room hire charge'],
  examples: ['charge the Smiths £150 for the hall hire, due on the 1st', 'add a £50 deposit to the party booking', 'the Pilates class owes £25 a week for the lounge', 'invoice the wedding party £300 for the church centre', 'put a £75 hire fee on the Brownies\' booking', 'add a refundable £100 deposit to Saturday\'s hire', 'bill the dance school for this term\'s hall hire', 'charge the Guides £40', "the wedding party's hiring the mission hall, so add a £200 fee due on the 30th", "I need to add a £50 damage deposit to Fran's booking"],
  input: z.object({ bookingId: z.uuid(), kind: z.enum(['hire', 'deposit', 'other']).default('hire'), description: z.string().trim().min(1).max(200), amountMinor: minorUnits, currency, dueDate: calendarDate() }),
  output: z.object({ charge: chargeSchema }).strict(),
  run: async (ctx, input) => createCharge(ctx.db, ctx.org.id, input),
});

export const recordChargePaymentTool = tools.write('record_charge_payment', {
  title: 'Record a hire payment',
  description: 'Records a payment against a booking charge (cash, card, bank transfer, cheque); never more than is outstanding. The charge is paid when nothing is left.',
  keywords: ['hire payment', 'deposit paid', 'paid invoice'],
  examples: ['the Smiths paid the £150 hall hire by bank transfer', 'record the £50 deposit as paid in cash', 'the dance school paid half their hire fee', 'the Brownies paid their £75 by cheque', 'mark the wedding hire as paid by card', '£100 deposit came in by bank transfer today', 'the Pilates teacher paid £25 cash for the lounge', 'Guides paid £40', 'Fran handed over the £50 deposit in cash at the office today', 'can you mark the wedding hire fee as paid by transfer'],
  input: z.object({
    chargeId: z.uuid(), amountMinor: minorUnits, paidOn: calendarDate(), method: z.enum(['cash', 'card', 'bank_transfer', 'cheque', 'other']),
    reference: z.string().trim().min(1).max(200).optional(),
  }),
  output: z.object({ paymentId: z.uuid(), charge: chargeSchema }).strict(),
  run: async (ctx, input) => recordPayment(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

export const listChargesTool = tools.read('list_charges', {
  title: 'Hire charges',
  description: 'Booking charges (hire fees, deposits) with what is paid and outstanding, earliest due first; narrow to one booking, the unpaid ones, or those due by a date.',
  keywords: ['unpaid hire', 'outstanding deposits', 'who owes for room hire'],
  examples: ['which hirers have not paid', 'what deposits are outstanding', 'show the charges for the wedding booking', 'who still owes us for hall hire', 'list hire fees due by the end of the month', 'how much room hire money is outstanding', 'show all unpaid booking charges', 'unpaid hire fees', "the treasurer's chasing money, who owes us for room hire this quarter?", "what's due from hirers by the end of March"],
  input: z.object({ bookingId: z.uuid().optional(), unpaidOnly: z.boolean().default(false), dueBy: calendarDate().optional(), limit: z.number().int().min(1).max(200).default(50) }),
  output: z.object({ truncated: z.boolean(), charges: z.array(chargeSchema.extend({ bookingTitle: z.string() }).strict()) }).strict(),
  run: async (ctx, input) => listCharges(ctx.db, ctx.org.id, input),
});

export const facilitiesTools = [
  reportIncidentTool, updateIncidentTool, listIncidentsTool, recordUtilityBillTool, getUtilitySummaryTool, createBookingChargeTool, recordChargePaymentTool, listChargesTool,
];
