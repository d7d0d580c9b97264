import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type ModelAttributeColumnOptions } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

/** The ticketing module's tables (migrations/2026.11.28T04.00.00.ticketing.ts); only this module imports them. */

const req = (type: ModelAttributeColumnOptions['type'], extra: Partial<ModelAttributeColumnOptions> = {}): ModelAttributeColumnOptions => ({ type, allowNull: false, ...extra });
const opt = (type: ModelAttributeColumnOptions['type']): ModelAttributeColumnOptions => ({ type, allowNull: true });
const id = () => req(DataTypes.UUID, { primaryKey: true });
const now = () => req(DataTypes.DATE, { defaultValue: databaseDefault() });

export class TicketingEvent extends Model<InferAttributes<TicketingEvent>, InferCreationAttributes<TicketingEvent>> {
  declare id: string;
  declare orgId: string;
  declare title: string;
  declare description: string | null;
  declare venue: string | null;
  declare startsAt: Date;
  declare endsAt: Date | null;
  declare timeZone: string;
  declare currency: string;
  declare status: CreationOptional<'draft' | 'published' | 'sales_closed' | 'completed' | 'cancelled'>;
  declare scheduleInstanceId: string | null;
  declare spacesBookingId: string | null;
  declare reservationMinutes: CreationOptional<number>;
  declare offerMinutes: CreationOptional<number>;
  declare refundApprovalAboveMinor: CreationOptional<number>;
  declare publishedAt: CreationOptional<Date | null>;
  declare cancelledAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
TicketingEvent.init({
  id: id(), orgId: req(DataTypes.UUID), title: req(DataTypes.TEXT), description: opt(DataTypes.TEXT), venue: opt(DataTypes.TEXT),
  startsAt: req(DataTypes.DATE), endsAt: opt(DataTypes.DATE), timeZone: req(DataTypes.TEXT), currency: req(DataTypes.TEXT),
  status: req(DataTypes.TEXT, { defaultValue: 'draft' }), scheduleInstanceId: opt(DataTypes.TEXT), spacesBookingId: opt(DataTypes.UUID),
  reservationMinutes: req(DataTypes.INTEGER, { defaultValue: 15 }), offerMinutes: req(DataTypes.INTEGER, { defaultValue: 1440 }),
  refundApprovalAboveMinor: req(DataTypes.INTEGER, { defaultValue: 10000 }), publishedAt: opt(DataTypes.DATE), cancelledAt: opt(DataTypes.DATE),
  createdAt: now(), updatedAt: now(),
}, { sequelize, tableName: 'ticketing_events', timestamps: false });

export class TicketingPool extends Model<InferAttributes<TicketingPool>, InferCreationAttributes<TicketingPool>> {
  declare id: string;
  declare orgId: string;
  declare eventId: string;
  declare kind: 'event' | 'type' | 'shared';
  declare name: string;
  declare capacity: number;
  declare createdAt: CreationOptional<Date>;
}
TicketingPool.init({
  id: id(), orgId: req(DataTypes.UUID), eventId: req(DataTypes.UUID), kind: req(DataTypes.TEXT), name: req(DataTypes.TEXT), capacity: req(DataTypes.INTEGER), createdAt: now(),
}, { sequelize, tableName: 'ticketing_pools', timestamps: false });

export class TicketingTicketType extends Model<InferAttributes<TicketingTicketType>, InferCreationAttributes<TicketingTicketType>> {
  declare id: string;
  declare orgId: string;
  declare eventId: string;
  declare name: string;
  declare description: string | null;
  declare priceMinor: number;
  declare capacity: number | null;
  declare minPerOrder: CreationOptional<number>;
  declare maxPerOrder: CreationOptional<number>;
  declare salesStart: Date | null;
  declare salesEnd: Date | null;
  declare accessCodeHash: string | null;
  declare archivedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
TicketingTicketType.init({
  id: id(), orgId: req(DataTypes.UUID), eventId: req(DataTypes.UUID), name: req(DataTypes.TEXT), description: opt(DataTypes.TEXT),
  priceMinor: req(DataTypes.INTEGER), capacity: opt(DataTypes.INTEGER), minPerOrder: req(DataTypes.INTEGER, { defaultValue: 1 }),
  maxPerOrder: req(DataTypes.INTEGER, { defaultValue: 10 }), salesStart: opt(DataTypes.DATE), salesEnd: opt(DataTypes.DATE),
  accessCodeHash: opt(DataTypes.TEXT), archivedAt: opt(DataTypes.DATE), createdAt: now(), updatedAt: now(),
}, { sequelize, tableName: 'ticketing_ticket_types', timestamps: false });

export class TicketingTypePool extends Model<InferAttributes<TicketingTypePool>, InferCreationAttributes<TicketingTypePool>> {
  declare orgId: string;
  declare ticketTypeId: string;
  declare poolId: string;
}
TicketingTypePool.init({
  orgId: req(DataTypes.UUID), ticketTypeId: req(DataTypes.UUID, { primaryKey: true }), poolId: req(DataTypes.UUID, { primaryKey: true }),
}, { sequelize, tableName: 'ticketing_type_pools', timestamps: false });

export class TicketingHold extends Model<InferAttributes<TicketingHold>, InferCreationAttributes<TicketingHold>> {
  declare id: string;
  declare orgId: string;
  declare eventId: string;
  declare ticketTypeId: string;
  declare quantity: number;
  declare reason: string;
  declare status: CreationOptional<'active' | 'released'>;
  declare createdByUserId: string | null;
  declare releasedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
}
TicketingHold.init({
  id: id(), orgId: req(DataTypes.UUID), eventId: req(DataTypes.UUID), ticketTypeId: req(DataTypes.UUID), quantity: req(DataTypes.INTEGER),
  reason: req(DataTypes.TEXT), status: req(DataTypes.TEXT, { defaultValue: 'active' }), createdByUserId: opt(DataTypes.UUID), releasedAt: opt(DataTypes.DATE), createdAt: now(),
}, { sequelize, tableName: 'ticketing_holds', timestamps: false });

export class TicketingPromoCode extends Model<InferAttributes<TicketingPromoCode>, InferCreationAttributes<TicketingPromoCode>> {
  declare id: string;
  declare orgId: string;
  declare eventId: string;
  declare code: string;
  declare kind: 'percent' | 'fixed';
  declare amount: number;
  declare maxUses: number | null;
  declare validFrom: Date | null;
  declare validUntil: Date | null;
  declare ticketTypeIds: CreationOptional<string[]>;
  declare createdAt: CreationOptional<Date>;
}
TicketingPromoCode.init({
  id: id(), orgId: req(DataTypes.UUID), eventId: req(DataTypes.UUID), code: req(DataTypes.TEXT), kind: req(DataTypes.TEXT), amount: req(DataTypes.INTEGER),
  maxUses: opt(DataTypes.INTEGER), validFrom: opt(DataTypes.DATE), validUntil: opt(DataTypes.DATE),
  ticketTypeIds: req(DataTypes.ARRAY(DataTypes.UUID), { defaultValue: [] }), createdAt: now(),
}, { sequelize, tableName: 'ticketing_promo_codes', timestamps: false });

export class TicketingWaitlistEntry extends Model<InferAttributes<TicketingWaitlistEntry>, InferCreationAttributes<TicketingWaitlistEntry>> {
  declare id: string;
  declare orgId: string;
  declare eventId: string;
  declare ticketTypeId: string;
  declare position: CreationOptional<number>;
  declare contactId: string | null;
  declare name: string | null;
  declare email: string | null;
  declare quantity: number;
  declare status: CreationOptional<'waiting' | 'offered' | 'purchased' | 'expired' | 'removed'>;
  declare offeredAt: CreationOptional<Date | null>;
  declare offerExpiresAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
TicketingWaitlistEntry.init({
  id: id(), orgId: req(DataTypes.UUID), eventId: req(DataTypes.UUID), ticketTypeId: req(DataTypes.UUID), position: req(DataTypes.BIGINT, { autoIncrement: true }),
  contactId: opt(DataTypes.UUID), name: opt(DataTypes.TEXT), email: opt(DataTypes.TEXT), quantity: req(DataTypes.INTEGER),
  status: req(DataTypes.TEXT, { defaultValue: 'waiting' }), offeredAt: opt(DataTypes.DATE), offerExpiresAt: opt(DataTypes.DATE), createdAt: now(), updatedAt: now(),
}, { sequelize, tableName: 'ticketing_waitlist_entries', timestamps: false });

export class TicketingReservation extends Model<InferAttributes<TicketingReservation>, InferCreationAttributes<TicketingReservation>> {
  declare id: string;
  declare orgId: string;
  declare eventId: string;
  declare status: CreationOptional<'pending' | 'confirmed' | 'expired' | 'cancelled'>;
  declare expiresAt: Date;
  declare contactId: string | null;
  declare waitlistEntryId: string | null;
  declare accessCode: string | null;
  declare endedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
}
TicketingReservation.init({
  id: id(), orgId: req(DataTypes.UUID), eventId: req(DataTypes.UUID), status: req(DataTypes.TEXT, { defaultValue: 'pending' }), expiresAt: req(DataTypes.DATE),
  contactId: opt(DataTypes.UUID), waitlistEntryId: opt(DataTypes.UUID), accessCode: opt(DataTypes.TEXT), endedAt: opt(DataTypes.DATE), createdAt: now(),
}, { sequelize, tableName: 'ticketing_reservations', timestamps: false });

export class TicketingReservationItem extends Model<InferAttributes<TicketingReservationItem>, InferCreationAttributes<TicketingReservationItem>> {
  declare orgId: string;
  declare reservationId: string;
  declare ticketTypeId: string;
  declare quantity: number;
}
TicketingReservationItem.init({
  orgId: req(DataTypes.UUID), reservationId: req(DataTypes.UUID, { primaryKey: true }), ticketTypeId: req(DataTypes.UUID, { primaryKey: true }), quantity: req(DataTypes.INTEGER),
}, { sequelize, tableName: 'ticketing_reservation_items', timestamps: false });

export class TicketingOrder extends Model<InferAttributes<TicketingOrder>, InferCreationAttributes<TicketingOrder>> {
  declare id: string;
  declare orgId: string;
  declare eventId: string;
  declare reservationId: string | null;
  declare kind: CreationOptional<'sale' | 'comp'>;
  declare status: CreationOptional<'pending' | 'paid' | 'partially_refunded' | 'refunded' | 'cancelled'>;
  declare cancelReason: CreationOptional<string | null>;
  declare contactId: string | null;
  declare buyerName: string | null;
  declare buyerEmail: string | null;
  declare currency: string;
  declare subtotalMinor: number;
  declare discountMinor: CreationOptional<number>;
  declare totalMinor: number;
  declare refundedMinor: CreationOptional<number>;
  declare promoCodeId: string | null;
  declare provider: string | null;
  declare checkoutSessionId: string | null;
  declare checkoutUrl: string | null;
  declare paymentIntentId: string | null;
  declare paidAt: CreationOptional<Date | null>;
  declare createdByUserId: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
TicketingOrder.init({
  id: id(), orgId: req(DataTypes.UUID), eventId: req(DataTypes.UUID), reservationId: opt(DataTypes.UUID), kind: req(DataTypes.TEXT, { defaultValue: 'sale' }),
  status: req(DataTypes.TEXT, { defaultValue: 'pending' }), cancelReason: opt(DataTypes.TEXT), contactId: opt(DataTypes.UUID), buyerName: opt(DataTypes.TEXT),
  buyerEmail: opt(DataTypes.TEXT), currency: req(DataTypes.TEXT), subtotalMinor: req(DataTypes.INTEGER), discountMinor: req(DataTypes.INTEGER, { defaultValue: 0 }),
  totalMinor: req(DataTypes.INTEGER), refundedMinor: req(DataTypes.INTEGER, { defaultValue: 0 }), promoCodeId: opt(DataTypes.UUID), provider: opt(DataTypes.TEXT),
  checkoutSessionId: opt(DataTypes.TEXT), checkoutUrl: opt(DataTypes.TEXT), paymentIntentId: opt(DataTypes.TEXT), paidAt: opt(DataTypes.DATE),
  createdByUserId: opt(DataTypes.UUID), createdAt: now(), updatedAt: now(),
}, { sequelize, tableName: 'ticketing_orders', timestamps: false });

export class TicketingOrderLine extends Model<InferAttributes<TicketingOrderLine>, InferCreationAttributes<TicketingOrderLine>> {
  declare id: string;
  declare orgId: string;
  declare orderId: string;
  declare ticketTypeId: string;
  declare name: string;
  declare quantity: number;
  declare unitPriceMinor: number;
  declare discountMinor: CreationOptional<number>;
}
TicketingOrderLine.init({
  id: id(), orgId: req(DataTypes.UUID), orderId: req(DataTypes.UUID), ticketTypeId: req(DataTypes.UUID), name: req(DataTypes.TEXT), quantity: req(DataTypes.INTEGER),
  unitPriceMinor: req(DataTypes.INTEGER), discountMinor: req(DataTypes.INTEGER, { defaultValue: 0 }),
}, { sequelize, tableName: 'ticketing_order_lines', timestamps: false });

export class TicketingTicket extends Model<InferAttributes<TicketingTicket>, InferCreationAttributes<TicketingTicket>> {
  declare id: string;
  declare orgId: string;
  declare eventId: string;
  declare orderId: string;
  declare ticketTypeId: string;
  declare barcode: string;
  declare status: CreationOptional<'active' | 'used' | 'void'>;
  declare pricePaidMinor: number;
  declare contactId: string | null;
  declare holderName: string | null;
  declare checkedInAt: CreationOptional<Date | null>;
  declare checkedInByUserId: CreationOptional<string | null>;
  declare voidedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
}
TicketingTicket.init({
  id: id(), orgId: req(DataTypes.UUID), eventId: req(DataTypes.UUID), orderId: req(DataTypes.UUID), ticketTypeId: req(DataTypes.UUID), barcode: req(DataTypes.TEXT),
  status: req(DataTypes.TEXT, { defaultValue: 'active' }), pricePaidMinor: req(DataTypes.INTEGER), contactId: opt(DataTypes.UUID), holderName: opt(DataTypes.TEXT),
  checkedInAt: opt(DataTypes.DATE), checkedInByUserId: opt(DataTypes.UUID), voidedAt: opt(DataTypes.DATE), createdAt: now(),
}, { sequelize, tableName: 'ticketing_tickets', timestamps: false });

export class TicketingRefund extends Model<InferAttributes<TicketingRefund>, InferCreationAttributes<TicketingRefund>> {
  declare id: string;
  declare orgId: string;
  declare orderId: string;
  declare amountMinor: number;
  declare ticketIds: CreationOptional<string[]>;
  declare reason: string | null;
  declare providerRefundId: string | null;
  declare createdByUserId: string | null;
  declare createdAt: CreationOptional<Date>;
}
TicketingRefund.init({
  id: id(), orgId: req(DataTypes.UUID), orderId: req(DataTypes.UUID), amountMinor: req(DataTypes.INTEGER), ticketIds: req(DataTypes.ARRAY(DataTypes.UUID), { defaultValue: [] }),
  reason: opt(DataTypes.TEXT), providerRefundId: opt(DataTypes.TEXT), createdByUserId: opt(DataTypes.UUID), createdAt: now(),
}, { sequelize, tableName: 'ticketing_refunds', timestamps: false });

export class TicketingPaymentEvent extends Model<InferAttributes<TicketingPaymentEvent>, InferCreationAttributes<TicketingPaymentEvent>> {
  declare providerEventId: string;
  declare orgId: string;
  declare type: string;
  declare orderId: string | null;
  declare outcome: string;
  declare receivedAt: CreationOptional<Date>;
}
TicketingPaymentEvent.init({
  providerEventId: req(DataTypes.TEXT, { primaryKey: true }), orgId: req(DataTypes.UUID), type: req(DataTypes.TEXT), orderId: opt(DataTypes.UUID),
  outcome: req(DataTypes.TEXT), receivedAt: now(),
}, { sequelize, tableName: 'ticketing_payment_events', timestamps: false });

export const ticketingModels = [
  TicketingEvent, TicketingPool, TicketingTicketType, TicketingTypePool, TicketingHold, TicketingPromoCode, TicketingWaitlistEntry,
  TicketingReservation, TicketingReservationItem, TicketingOrder, TicketingOrderLine, TicketingTicket, TicketingRefund, TicketingPaymentEvent,
] as const;
