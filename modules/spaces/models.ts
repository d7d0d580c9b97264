import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

const uuid = (allowNull = false) => ({ type: DataTypes.UUID, allowNull });
const text = (allowNull = false) => ({ type: DataTypes.TEXT, allowNull });
const int = (allowNull = false) => ({ type: DataTypes.INTEGER, allowNull });
const date = (allowNull = false) => ({ type: DataTypes.DATE, allowNull });
const dateOnly = (allowNull = false) => ({ type: DataTypes.DATEONLY, allowNull });
const stamp = () => ({ type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() });
const id = { type: DataTypes.UUID, primaryKey: true, allowNull: false };

/** `spaces_campuses`: a site (a church's main site, a plant). */
export class Campus extends Model<InferAttributes<Campus>, InferCreationAttributes<Campus>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare address: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
Campus.init({ id, orgId: uuid(), name: text(), address: text(true), createdAt: stamp(), updatedAt: stamp() },
  { sequelize, tableName: 'spaces_campuses', timestamps: false });

/** `spaces_buildings`: a building on a campus. */
export class Building extends Model<InferAttributes<Building>, InferCreationAttributes<Building>> {
  declare id: string;
  declare orgId: string;
  declare campusId: string;
  declare name: string;
  declare address: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
Building.init({ id, orgId: uuid(), campusId: uuid(), name: text(), address: text(true), createdAt: stamp(), updatedAt: stamp() },
  { sequelize, tableName: 'spaces_buildings', timestamps: false });

export interface RoomLayout { name: string; capacity: number | null; note: string | null }

/** `spaces_rooms`: a bookable room, its capacity, features, layouts and approval group. */
export class Room extends Model<InferAttributes<Room>, InferCreationAttributes<Room>> {
  declare id: string;
  declare orgId: string;
  declare buildingId: string;
  declare name: string;
  declare capacity: number;
  declare features: CreationOptional<string[]>;
  declare layouts: CreationOptional<RoomLayout[]>;
  declare approverUserIds: CreationOptional<string[]>;
  declare defaultSetupMinutes: CreationOptional<number>;
  declare defaultTeardownMinutes: CreationOptional<number>;
  declare notes: CreationOptional<string | null>;
  declare archivedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
Room.init({
  id, orgId: uuid(), buildingId: uuid(), name: text(), capacity: int(),
  features: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
  layouts: { type: DataTypes.JSONB, allowNull: false, defaultValue: databaseDefault() },
  approverUserIds: { type: DataTypes.ARRAY(DataTypes.UUID), allowNull: false, defaultValue: databaseDefault() },
  defaultSetupMinutes: { ...int(), defaultValue: databaseDefault() }, defaultTeardownMinutes: { ...int(), defaultValue: databaseDefault() },
  notes: text(true), archivedAt: date(true), createdAt: stamp(), updatedAt: stamp(),
}, { sequelize, tableName: 'spaces_rooms', timestamps: false });

/** `spaces_resources`: a countable resource (120 chairs, 2 projectors). */
export class Resource extends Model<InferAttributes<Resource>, InferCreationAttributes<Resource>> {
  declare id: string;
  declare orgId: string;
  declare buildingId: CreationOptional<string | null>;
  declare name: string;
  declare quantity: number;
  declare notes: CreationOptional<string | null>;
  declare archivedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
Resource.init({ id, orgId: uuid(), buildingId: uuid(true), name: text(), quantity: int(), notes: text(true), archivedAt: date(true), createdAt: stamp(), updatedAt: stamp() },
  { sequelize, tableName: 'spaces_resources', timestamps: false });

export const BOOKING_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];
export const OCCURRENCE_STATUSES = ['pending', 'approved', 'rejected', 'cancelled', 'held'] as const;
export type OccurrenceStatus = (typeof OCCURRENCE_STATUSES)[number];

/** `spaces_bookings`: a booking of a room and/or resources, once or recurring in a zone. */
export class Booking extends Model<InferAttributes<Booking>, InferCreationAttributes<Booking>> {
  declare id: string;
  declare orgId: string;
  declare roomId: string | null;
  declare title: string;
  declare status: BookingStatus;
  declare timeZone: string;
  declare startDate: string;
  declare startTime: string;
  declare durationMinutes: number;
  declare rrule: string | null;
  declare fromDate: CreationOptional<string | null>;
  declare untilDate: CreationOptional<string | null>;
  declare setupMinutes: CreationOptional<number>;
  declare teardownMinutes: CreationOptional<number>;
  declare layout: CreationOptional<string | null>;
  declare expectedAttendance: CreationOptional<number | null>;
  declare scheduleInstanceId: CreationOptional<string | null>;
  declare hirerContactId: CreationOptional<string | null>;
  declare hirerOrganisation: CreationOptional<string | null>;
  declare notes: CreationOptional<string | null>;
  declare requestedByUserId: CreationOptional<string | null>;
  declare decidedByUserId: CreationOptional<string | null>;
  declare decidedAt: CreationOptional<Date | null>;
  declare decisionNote: CreationOptional<string | null>;
  declare splitFromBookingId: CreationOptional<string | null>;
  declare materialisedUntil: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
Booking.init({
  id, orgId: uuid(), roomId: uuid(true), title: text(), status: text(), timeZone: text(), startDate: dateOnly(), startTime: text(), durationMinutes: int(),
  rrule: text(true), fromDate: dateOnly(true), untilDate: dateOnly(true),
  setupMinutes: { ...int(), defaultValue: databaseDefault() }, teardownMinutes: { ...int(), defaultValue: databaseDefault() },
  layout: text(true), expectedAttendance: int(true), scheduleInstanceId: uuid(true), hirerContactId: uuid(true), hirerOrganisation: text(true), notes: text(true),
  requestedByUserId: uuid(true), decidedByUserId: uuid(true), decidedAt: date(true), decisionNote: text(true), splitFromBookingId: uuid(true),
  materialisedUntil: date(true), createdAt: stamp(), updatedAt: stamp(),
}, { sequelize, tableName: 'spaces_bookings', timestamps: false });

/** `spaces_booking_resources`: how many of a resource a booking takes. */
export class BookingResource extends Model<InferAttributes<BookingResource>, InferCreationAttributes<BookingResource>> {
  declare id: string;
  declare orgId: string;
  declare bookingId: string;
  declare resourceId: string;
  declare quantity: number;
}
BookingResource.init({ id, orgId: uuid(), bookingId: uuid(), resourceId: uuid(), quantity: int() },
  { sequelize, tableName: 'spaces_booking_resources', timestamps: false });

/** `spaces_blockouts`: a room, resource, building or campus closed for a window. */
export class Blockout extends Model<InferAttributes<Blockout>, InferCreationAttributes<Blockout>> {
  declare id: string;
  declare orgId: string;
  declare roomId: string | null;
  declare resourceId: string | null;
  declare buildingId: string | null;
  declare campusId: string | null;
  declare startsAt: Date;
  declare endsAt: Date;
  declare reason: string;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
}
Blockout.init({
  id, orgId: uuid(), roomId: uuid(true), resourceId: uuid(true), buildingId: uuid(true), campusId: uuid(true), startsAt: date(), endsAt: date(),
  reason: text(), createdByUserId: uuid(true), createdAt: stamp(),
}, { sequelize, tableName: 'spaces_blockouts', timestamps: false });

/** `spaces_occurrences`: one materialised occurrence of a booking, with its busy window. */
export class Occurrence extends Model<InferAttributes<Occurrence>, InferCreationAttributes<Occurrence>> {
  declare id: string;
  declare orgId: string;
  declare bookingId: string;
  declare roomId: string | null;
  declare originalLocalDate: string;
  declare localDate: string;
  declare localStartTime: string;
  declare startsAt: Date;
  declare endsAt: Date;
  declare busyFrom: Date;
  declare busyTo: Date;
  declare status: OccurrenceStatus;
  declare shared: CreationOptional<boolean>;
  declare detached: CreationOptional<boolean>;
  declare layout: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
Occurrence.init({
  id, orgId: uuid(), bookingId: uuid(), roomId: uuid(true), originalLocalDate: dateOnly(), localDate: dateOnly(), localStartTime: text(),
  startsAt: date(), endsAt: date(), busyFrom: date(), busyTo: date(), status: text(),
  shared: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() }, detached: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
  layout: text(true), createdAt: stamp(), updatedAt: stamp(),
}, { sequelize, tableName: 'spaces_occurrences', timestamps: false });

export const CONFLICT_RESOLUTIONS = ['booking_kept', 'other_kept', 'shared', 'withdrawn'] as const;
export type ConflictResolution = (typeof CONFLICT_RESOLUTIONS)[number];

/** `spaces_conflicts`: an occurrence held back by a clash (another booking, a blockout, or a resource short), open until a person resolves it. */
export class Conflict extends Model<InferAttributes<Conflict>, InferCreationAttributes<Conflict>> {
  declare id: string;
  declare orgId: string;
  declare occurrenceId: string;
  declare otherOccurrenceId: string | null;
  declare blockoutId: string | null;
  /** A shortage: the resource short, what the occurrence wanted of it and what was free when found. */
  declare resourceId: CreationOptional<string | null>;
  declare wanted: CreationOptional<number | null>;
  declare available: CreationOptional<number | null>;
  declare roomId: string | null;
  declare status: CreationOptional<'open' | 'resolved'>;
  declare resolution: CreationOptional<ConflictResolution | null>;
  declare resolvedByUserId: CreationOptional<string | null>;
  declare resolvedAt: CreationOptional<Date | null>;
  declare note: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
}
Conflict.init({
  id, orgId: uuid(), occurrenceId: uuid(), otherOccurrenceId: uuid(true), blockoutId: uuid(true), resourceId: uuid(true), wanted: int(true), available: int(true), roomId: uuid(true),
  status: { ...text(), defaultValue: databaseDefault() }, resolution: text(true), resolvedByUserId: uuid(true), resolvedAt: date(true), note: text(true), createdAt: stamp(),
}, { sequelize, tableName: 'spaces_conflicts', timestamps: false });

export const spacesModels = [Campus, Building, Room, Resource, Booking, BookingResource, Blockout, Occurrence, Conflict] as const;

export const INCIDENT_STATUSES = ['new', 'triaged', 'in_progress', 'done'] as const;
export const INCIDENT_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

/** `spaces_incidents`: an incident or work order (new → triaged → in_progress → done). */
export class Incident extends Model<InferAttributes<Incident>, InferCreationAttributes<Incident>> {
  declare id: string;
  declare orgId: string;
  declare title: string;
  declare description: CreationOptional<string | null>;
  declare status: CreationOptional<(typeof INCIDENT_STATUSES)[number]>;
  declare priority: CreationOptional<(typeof INCIDENT_PRIORITIES)[number]>;
  declare roomId: CreationOptional<string | null>;
  declare buildingId: CreationOptional<string | null>;
  declare locationNote: CreationOptional<string | null>;
  declare assigneeUserId: CreationOptional<string | null>;
  declare reportedByUserId: CreationOptional<string | null>;
  declare resolutionNote: CreationOptional<string | null>;
  declare doneAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
Incident.init({
  id, orgId: uuid(), title: text(), description: text(true), status: { ...text(), defaultValue: databaseDefault() }, priority: { ...text(), defaultValue: databaseDefault() },
  roomId: uuid(true), buildingId: uuid(true), locationNote: text(true), assigneeUserId: uuid(true), reportedByUserId: uuid(true), resolutionNote: text(true),
  doneAt: date(true), createdAt: stamp(), updatedAt: stamp(),
}, { sequelize, tableName: 'spaces_incidents', timestamps: false });

export const UTILITY_KINDS = ['electric', 'gas', 'water'] as const;

/** `spaces_utility_meters`: one utility supply of a building. */
export class UtilityMeter extends Model<InferAttributes<UtilityMeter>, InferCreationAttributes<UtilityMeter>> {
  declare id: string;
  declare orgId: string;
  declare buildingId: string;
  declare kind: (typeof UTILITY_KINDS)[number];
  declare unit: string;
  declare createdAt: CreationOptional<Date>;
}
UtilityMeter.init({ id, orgId: uuid(), buildingId: uuid(), kind: text(), unit: text(), createdAt: stamp() }, { sequelize, tableName: 'spaces_utility_meters', timestamps: false });

/** `spaces_utility_bills`: one bill period of a meter (usage and cost). */
export class UtilityBill extends Model<InferAttributes<UtilityBill>, InferCreationAttributes<UtilityBill>> {
  declare id: string;
  declare orgId: string;
  declare meterId: string;
  declare periodStart: string;
  declare periodEnd: string;
  declare usage: number;
  declare costMinor: number;
  declare currency: string;
  declare supplier: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
}
UtilityBill.init({
  id, orgId: uuid(), meterId: uuid(), periodStart: dateOnly(), periodEnd: dateOnly(), usage: int(), costMinor: int(), currency: text(), supplier: text(true), createdAt: stamp(),
}, { sequelize, tableName: 'spaces_utility_bills', timestamps: false });

/** `spaces_booking_charges`: what a hirer owes for a booking (hire, deposit), and how much is paid. */
export class BookingCharge extends Model<InferAttributes<BookingCharge>, InferCreationAttributes<BookingCharge>> {
  declare id: string;
  declare orgId: string;
  declare bookingId: string;
  declare kind: 'hire' | 'deposit' | 'other';
  declare description: string;
  declare amountMinor: number;
  declare currency: string;
  declare dueDate: string;
  declare paidMinor: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
BookingCharge.init({
  id, orgId: uuid(), bookingId: uuid(), kind: text(), description: text(), amountMinor: int(), currency: text(), dueDate: dateOnly(),
  paidMinor: { ...int(), defaultValue: databaseDefault() }, createdAt: stamp(), updatedAt: stamp(),
}, { sequelize, tableName: 'spaces_booking_charges', timestamps: false });

/** `spaces_charge_payments`: a payment against a charge. */
export class ChargePayment extends Model<InferAttributes<ChargePayment>, InferCreationAttributes<ChargePayment>> {
  declare id: string;
  declare orgId: string;
  declare chargeId: string;
  declare amountMinor: number;
  declare paidOn: string;
  declare method: string;
  declare reference: CreationOptional<string | null>;
  declare recordedByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
}
ChargePayment.init({
  id, orgId: uuid(), chargeId: uuid(), amountMinor: int(), paidOn: dateOnly(), method: text(), reference: text(true), recordedByUserId: uuid(true), createdAt: stamp(),
}, { sequelize, tableName: 'spaces_charge_payments', timestamps: false });

export const facilitiesModels = [Incident, UtilityMeter, UtilityBill, BookingCharge, ChargePayment] as const;
