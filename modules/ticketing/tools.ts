import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { cursorInput, cursorOutput, toolsFor } from '../kit';
import type { ToolContext } from '../tool';
import { availability } from './capacity';
import { exportAttendees, checkInTicket } from './doors';
import { createEvent, createTicketType, EVENT_STATUSES, eventExists, eventRow, getEvent, listEvents, listTicketTypes, publishEvent, updateEvent, updateTicketType } from './events';
import { cancelEvent, refundNeedsApproval, refundOrder } from './refunds';
import { salesReport } from './reports';
import {
  createHold, createOrder, createPromoCode, prepareOrder, type PreparedOrder, issueCompTickets, listOrders, orderView, releaseHold, reserveTickets,
} from './sales';
import {
  availabilitySchema, eventSchema, holdSchema, orderSchema, promoSchema, reservationSchema, ticketTypeSchema, waitlistEntrySchema,
} from './schemas';
import { joinWaitlist, listWaitlist, offerWaitlistSpots } from './waitlist';

const tools = toolsFor('ticketing', { read: 'ticketing:read', write: 'ticketing:write' });

const instant = (what: string) => z.iso.datetime({ offset: true }).max(40).describe(`${what}: an ISO date-time with its offset, e.g. 2026-12-20T19:00:00+00:00`);
const money = (what: string) => z.number().int().min(0).max(100_000_000).describe(`${what}, in minor units (pence, cents)`);
const currency = z.string().max(3).regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as GBP').describe('ISO 4217 currency (default: the organisation\'s country\'s)');
const eventId = z.uuid().describe('The event (ticketing_list_events)');
const ticketTypeId = z.uuid().describe('A ticket type of the event (ticketing_get_availability)');
const items = z.array(z.object({ ticketTypeId, quantity: z.number().int().min(1).max(100) })).min(1).max(20);
const actionSummary = z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver');

const COUNTRY_CURRENCY: Record<string, string> = {
  GB: 'GBP', US: 'USD', CA: 'CAD', AU: 'AUD', NZ: 'NZD', IE: 'EUR', FR: 'EUR', DE: 'EUR', NL: 'EUR', ES: 'EUR', IT: 'EUR', BE: 'EUR', PT: 'EUR', ZA: 'ZAR', KE: 'KES', NG: 'NGN', SG: 'SGD',
};

function currencyFor(ctx: ToolContext, given: string | undefined): string {
  const found = given ?? COUNTRY_CURRENCY[ctx.org.country?.toUpperCase() ?? ''];
  if (!found) throw new StewardError('validation_failed', `The organisation's country (${ctx.org.country}) has no default currency`, { issues: [{ path: 'currency', message: 'give the currency' }] });
  return found;
}

const eventFields = {
  description: z.string().trim().max(4000).nullable().optional(),
  venue: z.string().trim().max(300).nullable().optional().describe('Where it happens, in words'),
  endsAt: instant('When it ends').nullable().optional(),
  capacity: z.number().int().min(0).max(1_000_000).nullable().optional().describe('The whole event\'s capacity, shared by every ticket type (beats the sum of the types)'),
  scheduleInstanceId: z.uuid().nullable().optional().describe('The service instance it is (schedule_list_upcoming_instances)'),
  spacesBookingId: z.uuid().nullable().optional().describe('The spaces booking of its room: publishing checks the capacity fits the room'),
  reservationMinutes: z.number().int().min(1).max(1440).optional().describe('How long a cart or unpaid order keeps its places (default 15)'),
  offerMinutes: z.number().int().min(1).max(20160).optional().describe('How long a waitlist offer keeps its places (default 1440, a day)'),
  refundApprovalAbove: money('Refunds above this need a person\'s approval (default 10000)').optional(),
};

// ---------------------------------------------------------------- events

const listEventsTool = tools.read('list_events', {
  title: 'List events',
  description: 'Ticketed events (concerts, dinners, conferences), soonest first, with status (draft, published, sales_closed, completed, cancelled), capacity and pools; filter by status or a start range. ticketing_get_availability shows what is left.',
  keywords: ['events', 'concerts', 'ticketed events', 'what is on sale'],
  examples: ['what events are we selling tickets for', 'list upcoming ticketed events', 'show our concerts this Christmas', 'which events are still drafts', 'is the carol concert published yet', 'which of our events have tickets on sale', 'what ticketed things are coming up this term', 'show all the events we\'ve cancelled this year', 'our events', 'Lois is doing the newsletter, what ticketed events are coming up next month?', 'which events are on sale right now'],
  input: z.object({ status: z.enum(EVENT_STATUSES).optional(), from: instant('Starting at or after').optional(), to: instant('Starting before').optional(), limit: z.number().int().min(1).max(100).default(50) }),
  output: z.object({ events: z.array(eventSchema) }).strict(),
  run: async (ctx, input) => ({ events: await listEvents(ctx.db, ctx.org.id, input) }),
});

const createEventTool = tools.write('create_event', {
  title: 'Create an event',
  description: 'Creates a ticketed event as a draft: title, start (and end), time zone, currency, an optional whole-event capacity and shared pools, optionally linked to a service instance or a spaces booking. Add ticket types (ticketing_create_ticket_type), then publish (ticketing_publish_event).',
  keywords: ['new event', 'set up event', 'sell tickets', 'ticketed event'],
  examples: ['set up the carol concert on 20 December at 7pm for 300 people', 'create a ticketed event for the harvest supper', 'we are doing a quiz night on the 14th, 80 places', 'make an event for the youth weekend away', 'start selling tickets for the Easter breakfast', "we're putting on a barn dance in March and want to sell places", 'set up ticket sales for the Easter breakfast', 'new ticketed event', 'the youth want to run a curry night on 8 March for 60 people, set it up', "I need to sell places for the men's breakfast"],
  input: z.object({
    title: z.string().trim().min(1).max(200), startsAt: instant('When it starts'), timeZone: z.string().max(60).describe('IANA zone, e.g. Europe/London'), currency: currency.optional(),
    ...eventFields,
    sharedPools: z.array(z.object({ name: z.string().trim().min(1).max(200), capacity: z.number().int().min(0).max(1_000_000) })).max(10).optional()
      .describe('Named pools several ticket types can share (e.g. "Balcony" 60)'),
  }),
  output: z.object({ event: eventSchema }).strict(),
  run: async (ctx, input) => ({ event: await createEvent(ctx.db, ctx.org.id, { ...input, currency: currencyFor(ctx, input.currency) }) }),
});

const updateEventTool = tools.write('update_event', {
  title: 'Update an event',
  description: 'Changes an event\'s details, capacity (never below what is sold, pending or held), time limits and links; status closes sales (sales_closed), reopens them (published) or marks it completed. A cancelled or completed event does not change.',
  keywords: ['edit event', 'close sales', 'change capacity', 'reopen sales'],
  examples: ['move the carol concert to 7.30pm', 'close ticket sales for the quiz night', 'raise the harvest supper capacity to 120', 'mark the concert as finished', 'reopen sales for the ceilidh', 'the ceilidh venue is now the church centre', 'stop taking bookings for the Alpha supper, we\'re full enough', 'change the harvest supper to start at 6.30', 'close sales for the curry night', "the men's breakfast moved to the church centre, update the venue", 'can we add 20 more places to the curry night'],
  input: z.object({
    eventId, title: z.string().trim().min(1).max(200).optional(), startsAt: instant('When it starts').optional(), timeZone: z.string().max(60).optional(), currency: currency.optional(),
    ...eventFields, status: z.enum(['published', 'sales_closed', 'completed']).optional(),
  }),
  output: z.object({ event: eventSchema }).strict(),
  run: async (ctx, input) => ({ event: await updateEvent(ctx.db, ctx.org.id, input.eventId, input) }),
});

const publishEventTool = tools.write('publish_event', {
  title: 'Publish an event',
  description: 'Puts a draft event on sale. Checks it has a ticket type and, when linked to a spaces booking, that its capacity fits the booked room (skipped, and said so, when spaces is not installed). Answers the checks made.',
  keywords: ['go live', 'open sales', 'put on sale'],
  examples: ['publish the carol concert', 'put the quiz night tickets on sale', 'open bookings for the harvest supper', 'make the concert live', 'let people start buying places for the barn dance', 'go live with the Easter breakfast bookings', 'the Alpha launch supper is ready, open it for booking', 'open curry night sales', "the men's breakfast details are all in, so people can start booking", 'put the ceilidh on sale now'],
  input: z.object({ eventId }),
  output: z.object({
    event: eventSchema,
    checks: z.array(z.object({ check: z.enum(['ticket_types', 'venue_capacity']), outcome: z.enum(['passed', 'skipped']), detail: z.string() }).strict()),
  }).strict(),
  run: async (ctx, input) => publishEvent(ctx.db, ctx.org.id, input.eventId),
});

const cancelEventTool = tools.write('cancel_event', {
  title: 'Cancel an event',
  description: 'Cancels an event: every paid order is refunded in full through the payment provider, tickets voided, unpaid orders, holds, carts and the waitlist ended. Always needs a person\'s approval (an owner or admin), then runs.',
  keywords: ['call off event', 'refund everyone', 'cancel concert'],
  examples: ['cancel the quiz night and refund everyone', 'the concert is off, call it off', 'we have to cancel the harvest supper', 'cancel the youth weekend and give people their money back', "the barn dance can't go ahead, cancel it", 'call off the Easter breakfast and refund people', 'snow has stopped the carol concert, cancel and refund', 'cancel the curry night', "the speaker pulled out of the men's breakfast, so call it off and refund everyone", 'I need to scrap the ceilidh and give people their money back'],
  // Every cancellation of an event of the caller's is proposed; an id that is not theirs runs plainly, and is not found.
  approval: { kind: 'gated', when: { reason: 'cancelling an event refunds every paid order', applies: async (args, deps) => eventExists(deps.db, deps.orgId, String(args.eventId)) } },
  task: {},
  input: z.object({ eventId, reason: z.string().trim().min(1).max(500).optional(), actionSummary }),
  output: z.object({
    event: eventSchema, ordersRefunded: z.number().int(), refundedTotal: z.number().int(), pendingOrdersCancelled: z.number().int(), currency: z.string(),
  }).strict(),
  run: async (ctx, input) => {
    const done = await cancelEvent(ctx.db, ctx.org.id, ctx.principal.userId, ctx.workflowId, input.eventId, input.reason);
    return { event: await getEvent(ctx.db, ctx.org.id, input.eventId), ...done };
  },
});

// ---------------------------------------------------------------- ticket types and availability

const typeFields = {
  description: z.string().trim().max(1000).nullable().optional(),
  minPerOrder: z.number().int().min(1).max(100).optional(), maxPerOrder: z.number().int().min(1).max(100).optional(),
  salesStart: instant('Sales open').nullable().optional(), salesEnd: instant('Sales close').nullable().optional(),
  accessCode: z.string().trim().min(3).max(100).nullable().optional().describe('Hides the type: sold only to those who give this code (null: visible)'),
};

const createTicketTypeTool = tools.write('create_ticket_type', {
  title: 'Add a ticket type',
  description: 'Adds a ticket type to an event: name, price (0 for free), its own capacity (optional), per-order limits, a sales window, an access code that hides it, and shared pools it also counts against. It always counts against the whole event\'s capacity when there is one.',
  keywords: ['ticket price', 'adult ticket', 'child ticket', 'early bird', 'concession'],
  examples: ['add adult tickets at £12 and children at £6 to the carol concert', 'create a free ticket for the open day', 'early bird tickets at £8 until 1 December', 'add 20 VIP tickets with access code FRIENDS', 'a family ticket for £30, max 2 per order', 'add a £5 concession price for the carol concert', 'free tickets for under-5s at the nativity', 'student ticket £4', 'the curry night needs adult tickets at £10 and children at £5', 'can we have a free carer ticket for the concert'],
  input: z.object({ eventId, name: z.string().trim().min(1).max(200), price: money('Price'), capacity: z.number().int().min(0).max(1_000_000).nullable().optional(), ...typeFields, poolIds: z.array(z.uuid()).max(10).optional().describe('Shared pools of the event it also counts against') }),
  output: z.object({ ticketType: ticketTypeSchema }).strict(),
  run: async (ctx, input) => ({ ticketType: await createTicketType(ctx.db, ctx.org.id, input.eventId, input) }),
});

const updateTicketTypeTool = tools.write('update_ticket_type', {
  title: 'Update a ticket type',
  description: 'Changes a ticket type: name, price (orders already taken keep theirs), capacity (never below what is sold, pending or held), limits, sales window, access code, or archives it (no more sales).',
  keywords: ['change price', 'edit ticket', 'stop selling type'],
  examples: ['make adult tickets £15', 'end the early bird price tonight', 'stop selling VIP tickets', 'allow up to 8 children per order', 'give the child tickets 50 places', 'drop the concession price to £4', 'the under-5s ticket should only allow 3 per booking', 'stop the early bird sales tomorrow at midnight', 'child ticket £6 now', 'the early bird for the curry night has run long enough, end it today', 'could adult tickets be limited to 6 per booking'],
  input: z.object({ ticketTypeId, name: z.string().trim().min(1).max(200).optional(), price: money('Price').optional(), capacity: z.number().int().min(0).max(1_000_000).nullable().optional(), ...typeFields, archived: z.boolean().optional() }),
  output: z.object({ ticketType: ticketTypeSchema }).strict(),
  run: async (ctx, input) => ({ ticketType: await updateTicketType(ctx.db, ctx.org.id, input.ticketTypeId, input) }),
});

const getAvailabilityTool = tools.read('get_availability', {
  title: 'Event availability',
  description: 'What is left of an event: sold, pending (carts, unpaid orders, waitlist offers), held and remaining per ticket type and per capacity pool, with the ticket types themselves.',
  keywords: ['tickets left', 'sold out', 'how many left', 'capacity'],
  examples: ['how many tickets are left for the carol concert', 'is the quiz night sold out', 'how many adult tickets have we sold', 'what is still available for the harvest supper', 'how many seats are on hold', 'are there any places left for the barn dance', 'how many seats are still unsold for the concert', 'places left at the curry night', 'Lois wants to bring 8 friends, are there enough seats left for the ceilidh?', "how many child tickets remain for the men's breakfast"],
  input: z.object({ eventId }),
  output: z.object({ event: eventSchema, ticketTypes: z.array(ticketTypeSchema), availability: availabilitySchema }).strict(),
  run: async (ctx, input) => ({
    event: await getEvent(ctx.db, ctx.org.id, input.eventId), ticketTypes: await listTicketTypes(ctx.db, ctx.org.id, input.eventId),
    availability: await availability(ctx.db, ctx.org.id, input.eventId),
  }),
});

// ---------------------------------------------------------------- holds and reservations

const createHoldTool = tools.write('create_hold', {
  title: 'Hold places',
  description: 'Keeps places of a ticket type off sale (for the choir, the clergy, wheelchair spaces) until released; refused if they are not free.',
  keywords: ['reserve seats', 'block seats', 'keep back'],
  examples: ['hold 10 seats for the choir', 'keep back 4 wheelchair places at the concert', 'block 6 tickets for the vicar\'s guests', 'set aside a row of seats for the clergy', 'keep some places back for latecomers from the choir', 'reserve the front two rows for the mayor\'s party', 'keep 12 concert places aside for the bell ringers', 'hold 6 seats', 'the welcome team need 10 places kept for guests at the curry night', 'can you block off four wheelchair spaces for the ceilidh'],
  input: z.object({ ticketTypeId, quantity: z.number().int().min(1).max(100_000), reason: z.string().trim().min(1).max(300) }),
  output: z.object({ hold: holdSchema }).strict(),
  run: async (ctx, input) => ({ hold: await createHold(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

const releaseHoldTool = tools.write('release_hold', {
  title: 'Release a hold',
  description: 'Puts held places back on sale at once. Releasing a hold already released changes nothing (alreadyReleased says so).',
  keywords: ['unblock seats', 'release seats', 'let the seats go', 'seats no longer needed', 'held seats', 'reserved seats back'],
  examples: ['release the choir seats', 'put the held tickets back on sale', 'we do not need the wheelchair places held any more', 'free up the seats we kept back for the clergy', "the places we set aside aren't needed, sell them", 'the mayor isn\'t coming, free the front rows', 'the bell ringers won\'t need their 12 seats, release them', 'release the held seats', 'the welcome team only used 4 of their 10 curry night places, put the rest on sale', 'can the wheelchair spaces we kept back go on general sale now'],
  idempotent: true,
  input: z.object({ holdId: z.uuid() }),
  output: z.object({ hold: holdSchema, alreadyReleased: z.boolean() }).strict(),
  run: async (ctx, input) => releaseHold(ctx.db, ctx.org.id, input.holdId),
});

const reserveTicketsTool = tools.write('reserve_tickets', {
  title: 'Reserve tickets',
  description: 'Puts places in a cart for a buyer: kept for the event\'s reservation time (or ttlSeconds), then returned to sale by a timer unless ticketing_create_order { reservationId } turns them into an order. Refused when they are not free.',
  keywords: ['cart', 'basket', 'keep tickets', 'reserve seats'],
  examples: ['reserve 2 adult tickets for the carol concert', 'put 4 quiz night tickets aside while they pay', 'hold two places for Mrs Patel for 10 minutes', 'keep 3 concession tickets in a basket for Mr Jones', 'start a cart with 2 adult places for the harvest supper', 'set aside 2 tickets for the caller while they find their card', 'reserve the family ticket for the Okafors for a quarter of an hour', 'put 2 in a basket', 'Lois is on the phone getting her card, keep 3 curry night tickets for her', 'can you reserve 2 ceilidh places while Raj checks his diary'],
  followUp: { kind: 'ticketing.reservation_timers' },
  input: z.object({
    eventId, items, accessCode: z.string().trim().max(100).optional(), contactId: z.uuid().optional(),
    ttlSeconds: z.number().int().min(5).max(86_400).optional().describe('How long to keep them (default the event\'s reservation minutes)'),
  }),
  output: z.object({ reservation: reservationSchema }).strict(),
  run: async (ctx, input) => ({ reservation: await reserveTickets(ctx.db, ctx.org.id, input) }),
});

// ---------------------------------------------------------------- orders

const createOrderTool = tools.write('create_order', {
  title: 'Create an order',
  description: 'Sells tickets: from a reservation or straight from items, priced by Steward (ticket prices and an optional promo code, never the caller). A free order is paid at once with its tickets; otherwise the buyer pays at checkoutUrl and the order becomes paid only when the payment provider\'s signed webhook says so; unpaid, its places return when the reservation runs out.',
  keywords: ['buy tickets', 'book tickets', 'checkout', 'sell tickets', 'promo code'],
  examples: ['book 2 adult tickets for the carol concert for Jane Smith', 'sell 4 quiz night tickets with code CHOIR10', 'get me a payment link for 3 tickets to the harvest supper', 'order the reserved tickets', 'buy a family ticket for the Easter breakfast', 'sign two people up for the barn dance and take payment', 'buy a family ticket for the Smiths', 'sell Mrs Patel two carol concert seats and send her the pay link', 'sell 2 curry night tickets', 'Raj wants 4 adult tickets to the ceilidh with the WELCOME code, take his order', "I need a payment link for Lois's 3 men's breakfast places"],
  followUp: { kind: 'ticketing.reservation_timers' },
  meter: { feature: 'tickets', units: 1 },
  meterCount: (input) => (input.items ? input.items.reduce((sum, item) => sum + item.quantity, 0) : 100),
  meterUsed: (output) => output.order.lines.reduce((sum, line) => sum + line.quantity, 0),
  input: z.object({
    reservationId: z.uuid().optional().describe('A pending reservation (a cart or a waitlist offer); or give eventId and items'),
    eventId: eventId.optional(), items: items.optional(), accessCode: z.string().trim().max(100).optional(),
    promoCode: z.string().trim().min(3).max(40).optional(), contactId: z.uuid().optional().describe('The buyer, when a contact'),
    buyerName: z.string().trim().min(1).max(200).optional(), buyerEmail: z.email().max(320).optional(),
    returnUrl: z.url().max(2000).optional().describe('Where the checkout sends the buyer afterwards'),
  }).refine((input) => (input.reservationId === undefined) === (input.eventId !== undefined && input.items !== undefined), { message: 'give reservationId, or eventId and items', path: ['reservationId'] }),
  output: z.object({ order: orderSchema, ticketsIssued: z.number().int() }).strict(),
  // The price and the provider's checkout session, before the call's transaction and its locks.
  prepare: async (input, deps) => prepareOrder(deps.db, deps.org.id, input, deps),
  run: async (ctx, input) => createOrder(ctx.db, ctx.org.id, ctx.principal.userId, input, ctx.prepared as PreparedOrder),
});

const getOrderTool = tools.read('get_order', {
  title: 'Get an order',
  description: 'One order: status, lines, discount, total, refunds, its tickets (with barcodes) and, while unpaid, its checkout link and reservation.',
  keywords: ['order status', 'has it been paid', 'tickets of order'],
  examples: ['has Jane paid for her concert tickets', 'show order details', 'what are the barcodes on this order', "look up the Smiths' ticket booking", 'did the payment for that booking go through', 'what\'s the status of Mr Jones\'s ticket order', 'did the Okafors\' booking get refunded', "Raj's order", "Lois says she paid for the curry night but has no tickets, what's her order showing?", 'has that ceilidh booking been refunded'],
  input: z.object({ orderId: z.uuid() }),
  output: z.object({ order: orderSchema }).strict(),
  run: async (ctx, input) => ({ order: await orderView(ctx.db, ctx.org.id, input.orderId) }),
});

const listOrdersTool = tools.read('list_orders', {
  title: 'List orders',
  description: 'Orders, newest first, for an event, a status or a buyer; page with nextCursor.',
  keywords: ['sales', 'bookings', 'who bought', 'who has booked', 'booked so far', 'ticket holders', 'sign-ups for the event'],
  examples: ['who has bought tickets for the carol concert', 'list unpaid orders', 'show refunded orders for the quiz night', 'what tickets has Sam bought', 'show everyone with a place at the barn dance', 'list the bookings for the Easter breakfast', 'which ticket orders are still waiting for payment', 'curry night orders', "before we print badges, who's booked onto the men's breakfast?", "which orders haven't been paid yet"],
  input: z.object({ ...cursorInput, eventId: eventId.optional(), status: orderSchema.shape.status.optional(), contactId: z.uuid().optional() }),
  output: z.object({ orders: z.array(orderSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listOrders(ctx.db, ctx.org.id, input),
});

const issueCompTicketsTool = tools.write('issue_comp_tickets', {
  title: 'Issue complimentary tickets',
  description: 'Issues free tickets (speakers, volunteers, guests) of a ticket type at once, as a paid comp order: they take places like any sale and are refused if none are free.',
  keywords: ['free tickets', 'comps', 'guest list'],
  examples: ['give the organist 2 free tickets', 'comp 5 tickets for the volunteers', 'add the speaker to the guest list', 'the caterers get in free, give them tickets', 'complimentary places for the band', 'the churchwardens get free seats at the carol concert', 'give 3 complimentary quiz night places to the helpers', '2 comps for the caller', 'the youth helpers are serving at the curry night, give them 6 free places', "can the speaker and his wife have free tickets to the men's breakfast"],
  meter: { feature: 'tickets', units: 1 },
  meterCount: (input) => input.quantity,
  input: z.object({ eventId, ticketTypeId, quantity: z.number().int().min(1).max(100), holderName: z.string().trim().min(1).max(200).optional(), contactId: z.uuid().optional() }),
  output: z.object({ order: orderSchema, ticketsIssued: z.number().int() }).strict(),
  run: async (ctx, input) => issueCompTickets(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

const refundOrderTool = tools.write('refund_order', {
  title: 'Refund an order',
  description: 'Refunds a paid order in full, or chosen tickets (each returns what it paid), through the payment provider: never more than was paid. Refunded tickets are voided and their places go back on sale. A refund above the event\'s threshold (refundApprovalAbove) needs a person\'s approval.',
  keywords: ['refund', 'money back', 'cancel tickets'],
  examples: ['refund Jane\'s concert tickets', 'give a refund for one of the two tickets', 'they cannot come, refund the order', 'money back for the quiz night booking', 'the Smiths want their money back for the barn dance', 'give back what they paid for the concert', 'refund one of Mr Jones\'s three concert tickets', 'refund Raj', "Lois has Covid and can't come to the curry night, refund her order", 'can we give back the money for one of the ceilidh tickets'],
  scope: 'ticketing:refund',
  approval: { kind: 'gated', when: { reason: 'the refund is above the event\'s refund approval threshold', applies: async (args, deps) => refundNeedsApproval(deps.db, deps.orgId, args) } },
  task: {},
  input: z.object({ orderId: z.uuid(), ticketIds: z.array(z.uuid()).min(1).max(100).optional().describe('Only these tickets; omit for the whole order'), reason: z.string().trim().min(1).max(500).optional(), actionSummary }),
  output: z.object({ order: orderSchema, refunded: z.number().int().describe('Minor units returned by this refund'), ticketsVoided: z.number().int() }).strict(),
  // The gate is asked again inside a plain call's transaction by the kernel; an approved proposal's action is not.
  run: async (ctx, input) => refundOrder(ctx.db, ctx.org.id, ctx.principal.userId, ctx.workflowId, input),
});

const createPromoCodeTool = tools.write('create_promo_code', {
  title: 'Create a promo code',
  description: 'A discount code for an event: a percentage or a fixed sum off, for all or some ticket types, with a use limit (counted on live orders, held under concurrency) and a validity window.',
  keywords: ['discount code', 'voucher', 'coupon'],
  examples: ['make a code CHOIR10 for 10% off the carol concert', 'create a £5 off voucher for the first 20 quiz night bookings', 'discount code for church members on adult tickets', 'set up STAFF50 for half-price harvest supper tickets', 'a code giving students £3 off, valid until Friday', 'make a promo code for the first 50 early buyers', 'give Alpha guests a discount code for the supper', '10% off code', 'youth families get £2 off the curry night with code YOUTH2, first 30 uses', 'I need a voucher for volunteers valid until Sunday'],
  input: z.object({
    eventId, code: z.string().trim().max(40).regex(/^[A-Za-z0-9_-]{3,40}$/, '3 to 40 letters, digits, _ or -'), kind: z.enum(['percent', 'fixed']),
    amount: z.number().int().min(1).max(100_000_000).describe('Percent (1-100) or minor units off'), maxUses: z.number().int().min(1).max(1_000_000).optional(),
    validFrom: instant('Valid from').optional(), validUntil: instant('Valid until').optional(), ticketTypeIds: z.array(z.uuid()).max(20).optional().describe('Only these types (default all)'),
  }),
  output: z.object({ promoCode: promoSchema }).strict(),
  run: async (ctx, input) => ({ promoCode: await createPromoCode(ctx.db, ctx.org.id, input) }),
});

// ---------------------------------------------------------------- waitlist

const joinWaitlistTool = tools.write('join_waitlist', {
  title: 'Join a waitlist',
  description: 'Puts someone in line for a ticket type (a contact, or a name and email): when places come free, ticketing_offer_waitlist_spots offers them in the order people joined.',
  keywords: ['waiting list', 'sold out', 'notify when available', 'reserve list'],
  examples: ['put Mary on the waiting list for the carol concert', 'add the Browns to the waitlist for 4 tickets', 'the quiz is sold out, can Tom wait for a place', "the barn dance is full, take Anna's name in case a place comes up", 'add the Greens to the reserve list', 'Mr Jones wants to be told if a concert seat frees up', 'join Sue to the waitlist for 2 family tickets', 'waitlist Lois', 'the ceilidh is full, so put Raj and his wife down in case tickets come back', 'could Dan be on the reserve list for the curry night'],
  input: z.object({ eventId, ticketTypeId, quantity: z.number().int().min(1).max(20).default(1), contactId: z.uuid().optional(), name: z.string().trim().min(1).max(200).optional(), email: z.email().max(320).optional() }),
  output: z.object({ entry: waitlistEntrySchema }).strict(),
  run: async (ctx, input) => ({ entry: await joinWaitlist(ctx.db, ctx.org.id, input) }),
});

const offerWaitlistSpotsTool = tools.write('offer_waitlist_spots', {
  title: 'Offer places to the waitlist',
  description: 'Offers free places to those waiting, first come first served: each offer reserves its places for the event\'s offer time (buy with ticketing_create_order { reservationId }); an offer not taken expires and passes to the next in line by itself. Answers the offers and the waitlist.',
  keywords: ['waiting list', 'release to waitlist', 'offer tickets'],
  examples: ['offer the returned tickets to the waiting list', 'give the next people in line their places', 'we have 5 more seats, offer them to the waitlist', 'two people cancelled, let the reserve list know', 'give the freed places to whoever is waiting', 'the held seats were released, offer them to people waiting', 'send offers to the first three on the concert waiting list', 'offer to the waitlist', 'three curry night tickets were refunded, so pass them to the people waiting', 'can the ceilidh waiting list have the spare places'],
  followUp: { kind: 'ticketing.reservation_timers' },
  input: z.object({
    eventId, ticketTypeId: ticketTypeId.optional(), maxOffers: z.number().int().min(1).max(100).default(20),
    offerSeconds: z.number().int().min(5).max(1_209_600).optional().describe('How long these offers keep their places (default the event\'s offer minutes); later offers use the event\'s'),
  }),
  output: z.object({
    offers: z.array(z.object({ entry: waitlistEntrySchema, reservation: z.object({ id: z.uuid(), status: z.literal('pending'), expiresAt: z.string() }).strict() }).strict()),
    waitlist: z.array(waitlistEntrySchema),
  }).strict(),
  run: async (ctx, input) => ({ offers: await offerWaitlistSpots(ctx.db, ctx.org.id, input), waitlist: await listWaitlist(ctx.db, ctx.org.id, input.eventId) }),
});

// ---------------------------------------------------------------- the door and reports

const checkInTicketTool = tools.write('check_in_ticket', {
  title: 'Check in a ticket',
  description: 'Scans a ticket\'s barcode at the door: the first scan admits and marks it used (and records attendance where that is installed); any later scan answers already_checked_in with when it was first used. Void (refunded) tickets and tickets for another event are refused.',
  keywords: ['scan ticket', 'door', 'admit', 'barcode'],
  examples: ['scan ticket TKT-ABC', 'check in this barcode at the door', 'is this ticket valid', 'let this person in, here is their code', 'mark this guest as arrived at the concert door', 'scan people in at the barn dance', 'check Mrs Patel\'s ticket at the entrance', 'scan this ticket', 'Raj is at the ceilidh door with code TKT-9QX, let him in', 'is this curry night ticket already used'],
  idempotent: true,
  input: z.object({ barcode: z.string().trim().min(4).max(64), eventId: eventId.optional().describe('The event at this door: a ticket for another is refused') }),
  output: z.object({
    outcome: z.enum(['checked_in', 'already_checked_in']), firstCheckedInAt: z.string(), attendanceRecorded: z.boolean(),
    ticket: z.object({ id: z.uuid(), eventId: z.uuid(), eventTitle: z.string(), ticketTypeName: z.string(), holderName: z.string().nullable(), status: z.literal('used') }).strict(),
  }).strict(),
  run: async (ctx, input) => checkInTicket(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

const getSalesReportTool = tools.read('get_sales_report', {
  title: 'Sales report',
  description: 'An event\'s sales: per ticket type sold, comps, pending, held, remaining, gross and discounts; totals with refunds and net; promo code uses; check-ins; the waitlist.',
  keywords: ['ticket sales', 'takings', 'revenue', 'how much have we made'],
  examples: ['how are carol concert sales going', 'how much have we taken for the quiz night', 'sales report for the harvest supper', 'how many used the CHOIR10 code', 'how much money have the barn dance tickets brought in', 'ticket takings so far for the concert', 'how many people checked in at the carol concert', 'curry night takings', 'the youth treasurer wants to know how much the curry night raised after refunds', 'how did ticket sales go for the ceilidh'],
  input: z.object({ eventId }),
  output: z.object({
    eventId: z.uuid(), title: z.string(), status: z.string(), currency: z.string(),
    totals: z.object({ ordersPaid: z.number().int(), ordersPending: z.number().int(), ticketsSold: z.number().int(), compTickets: z.number().int(), checkedIn: z.number().int(), gross: z.number().int(), discounts: z.number().int(), refunded: z.number().int(), net: z.number().int() }).strict(),
    byType: z.array(z.object({ ticketTypeId: z.uuid(), name: z.string(), price: z.number().int(), sold: z.number().int(), comps: z.number().int(), pending: z.number().int(), held: z.number().int(), remaining: z.number().int().nullable(), gross: z.number().int(), discounts: z.number().int(), checkedIn: z.number().int() }).strict()),
    promoCodes: z.array(z.object({ code: z.string(), uses: z.number().int(), maxUses: z.number().int().nullable(), discountGiven: z.number().int() }).strict()),
    waitlist: z.object({ waiting: z.number().int(), offered: z.number().int(), purchased: z.number().int(), expired: z.number().int() }).strict(),
  }).strict(),
  run: async (ctx, input) => salesReport(ctx.db, ctx.org.id, input.eventId),
});

const exportAttendeesTool = tools.read('export_attendees', {
  title: 'Export attendees',
  description: 'The door list of an event as CSV: one row per live ticket (ticket, type, holder, buyer, email, status, checked-in time); includeVoid adds refunded ones.',
  keywords: ['attendee list', 'door list', 'csv', 'guest list'],
  examples: ['download the attendee list for the carol concert', 'export who is coming to the quiz night as a spreadsheet', 'print the door list', 'a spreadsheet of everyone coming to the barn dance', 'who has places, as a list for the welcome desk', 'CSV of concert ticket holders including refunded ones', 'give me the door list for the harvest supper', 'curry night door list', 'the welcome desk at the ceilidh needs a printout of everyone with tickets', "can I have the men's breakfast guest list in Excel"],
  input: z.object({ eventId, includeVoid: z.boolean().default(false) }),
  output: z.object({ filename: z.string(), csv: z.string(), rows: z.number().int(), checkedIn: z.number().int() }).strict(),
  run: async (ctx, input) => {
    await eventRow(ctx.db, ctx.org.id, input.eventId);
    return exportAttendees(ctx.db, ctx.org.id, input);
  },
});

export const ticketingTools = [
  listEventsTool, createEventTool, updateEventTool, publishEventTool, cancelEventTool, createTicketTypeTool, updateTicketTypeTool, getAvailabilityTool,
  createHoldTool, releaseHoldTool, reserveTicketsTool, createOrderTool, getOrderTool, listOrdersTool, issueCompTicketsTool, refundOrderTool,
  createPromoCodeTool, joinWaitlistTool, offerWaitlistSpotsTool, checkInTicketTool, getSalesReportTool, exportAttendeesTool,
];
