import { z } from 'zod';

/** Output shapes of ticketing's tools (money in minor units of the event's currency). */

export const poolSchema = z.object({ id: z.uuid(), name: z.string(), kind: z.enum(['event', 'type', 'shared']), capacity: z.number().int() }).strict();

export const eventSchema = z.object({
  id: z.uuid(), title: z.string(), description: z.string().nullable(), venue: z.string().nullable(), startsAt: z.string(), endsAt: z.string().nullable(),
  timeZone: z.string(), currency: z.string(), status: z.enum(['draft', 'published', 'sales_closed', 'completed', 'cancelled']),
  capacity: z.number().int().nullable().describe('The whole event\'s capacity (null: only the ticket types\' own limits)'),
  scheduleInstanceId: z.string().nullable(), spacesBookingId: z.uuid().nullable(), reservationMinutes: z.number().int(), offerMinutes: z.number().int(),
  refundApprovalAbove: z.number().int().describe('Refunds above this (minor units) need a person\'s approval'),
  publishedAt: z.string().nullable(), cancelledAt: z.string().nullable(), pools: z.array(poolSchema).describe('The whole-event and shared pools'), createdAt: z.string(),
}).strict();

export const ticketTypeSchema = z.object({
  id: z.uuid(), eventId: z.uuid(), name: z.string(), description: z.string().nullable(), price: z.number().int(), capacity: z.number().int().nullable(),
  minPerOrder: z.number().int(), maxPerOrder: z.number().int(), salesStart: z.string().nullable(), salesEnd: z.string().nullable(),
  hidden: z.boolean().describe('Sold only with its access code'), archived: z.boolean(), poolIds: z.array(z.uuid()),
}).strict();

const usage = { sold: z.number().int(), pending: z.number().int(), held: z.number().int() };

export const availabilitySchema = z.object({
  pools: z.array(z.object({ id: z.uuid(), name: z.string(), kind: z.enum(['event', 'type', 'shared']), capacity: z.number().int(), ...usage, remaining: z.number().int() }).strict()),
  types: z.array(z.object({
    ticketTypeId: z.uuid(), name: z.string(), capacity: z.number().int().nullable(), ...usage,
    remaining: z.number().int().nullable().describe('The least left in any pool it counts against; null: unlimited'), poolIds: z.array(z.uuid()),
  }).strict()),
}).strict();

export const reservationStatus = z.enum(['pending', 'confirmed', 'expired', 'cancelled']);

export const reservationSchema = z.object({
  id: z.uuid(), eventId: z.uuid(), status: reservationStatus, expiresAt: z.string(), contactId: z.uuid().nullable(), waitlistEntryId: z.uuid().nullable(),
  items: z.array(z.object({ ticketTypeId: z.uuid(), name: z.string(), quantity: z.number().int(), unitPrice: z.number().int() }).strict()), createdAt: z.string(),
}).strict();

export const ticketSchema = z.object({
  id: z.uuid(), barcode: z.string(), ticketTypeId: z.uuid(), ticketTypeName: z.string(), status: z.enum(['active', 'used', 'void']), pricePaid: z.number().int(),
  holderName: z.string().nullable(), contactId: z.uuid().nullable(), checkedInAt: z.string().nullable(),
}).strict();

export const orderSchema = z.object({
  id: z.uuid(), eventId: z.uuid(), eventTitle: z.string(), kind: z.enum(['sale', 'comp']),
  status: z.enum(['pending', 'paid', 'partially_refunded', 'refunded', 'cancelled']).describe('pending: awaiting payment at checkoutUrl'),
  cancelReason: z.string().nullable(), contactId: z.uuid().nullable(), buyerName: z.string().nullable(), buyerEmail: z.string().nullable(), currency: z.string(),
  subtotal: z.number().int(), discount: z.number().int(), total: z.number().int(), refunded: z.number().int(), refundable: z.number().int(), promoCode: z.string().nullable(),
  checkoutUrl: z.string().nullable().describe('Where the buyer pays (while pending)'),
  reservation: z.object({ id: z.uuid(), status: reservationStatus, expiresAt: z.string() }).strict().nullable(),
  lines: z.array(z.object({ ticketTypeId: z.uuid(), name: z.string(), quantity: z.number().int(), unitPrice: z.number().int(), discount: z.number().int() }).strict()),
  tickets: z.array(ticketSchema),
  refunds: z.array(z.object({ id: z.uuid(), amount: z.number().int(), ticketIds: z.array(z.uuid()), reason: z.string().nullable(), createdAt: z.string() }).strict()),
  paidAt: z.string().nullable(), createdAt: z.string(),
}).strict();

export const holdSchema = z.object({
  id: z.uuid(), eventId: z.uuid(), ticketTypeId: z.uuid(), quantity: z.number().int(), reason: z.string(), status: z.enum(['active', 'released']),
  releasedAt: z.string().nullable(), createdAt: z.string(),
}).strict();

export const promoSchema = z.object({
  id: z.uuid(), eventId: z.uuid(), code: z.string(), kind: z.enum(['percent', 'fixed']), amount: z.number().int(), maxUses: z.number().int().nullable(),
  uses: z.number().int().describe('Live orders using it (awaiting payment or paid)'), validFrom: z.string().nullable(), validUntil: z.string().nullable(), ticketTypeIds: z.array(z.uuid()),
}).strict();

export const waitlistEntrySchema = z.object({
  id: z.uuid(), eventId: z.uuid(), ticketTypeId: z.uuid(), contactId: z.uuid().nullable(), name: z.string().nullable(), email: z.string().nullable(),
  quantity: z.number().int(), status: z.enum(['waiting', 'offered', 'purchased', 'expired', 'removed']), place: z.number().int().nullable().describe('Place in line while waiting (1 = next)'),
  offeredAt: z.string().nullable(), offerExpiresAt: z.string().nullable(), createdAt: z.string(),
}).strict();
