import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

/** `attendance_headcounts`: one count per service instance and area, replaced by a recount. */
export class Headcount extends Model<InferAttributes<Headcount>, InferCreationAttributes<Headcount>> {
  declare id: string;
  declare orgId: string;
  declare instanceId: string;
  declare localDate: string;
  declare locationId: CreationOptional<string | null>;
  declare area: string;
  declare areaKey: string;
  declare count: number;
  declare countedByUserId: CreationOptional<string | null>;
  declare recordedByUserId: CreationOptional<string | null>;
  declare note: CreationOptional<string | null>;
  declare countedAt: CreationOptional<Date>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

Headcount.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  instanceId: { type: DataTypes.TEXT, allowNull: false },
  localDate: { type: DataTypes.DATEONLY, allowNull: false },
  locationId: { type: DataTypes.UUID, allowNull: true },
  area: { type: DataTypes.TEXT, allowNull: false },
  areaKey: { type: DataTypes.TEXT, allowNull: false },
  count: { type: DataTypes.INTEGER, allowNull: false },
  countedByUserId: { type: DataTypes.UUID, allowNull: true },
  recordedByUserId: { type: DataTypes.UUID, allowNull: true },
  note: { type: DataTypes.TEXT, allowNull: true },
  countedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'attendance_headcounts', timestamps: false });

/** `attendance_ticket_checkins`: a ticket scanned at the door of a ticketed event, once per ticket. */
export class TicketCheckin extends Model<InferAttributes<TicketCheckin>, InferCreationAttributes<TicketCheckin>> {
  declare id: string;
  declare orgId: string;
  declare ticketId: string;
  declare eventId: string;
  declare eventTitle: string;
  declare ticketTypeName: string;
  declare instanceId: CreationOptional<string | null>;
  declare localDate: string;
  declare contactId: CreationOptional<string | null>;
  declare checkedInAt: Date;
  declare checkedInByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
}

TicketCheckin.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  ticketId: { type: DataTypes.UUID, allowNull: false },
  eventId: { type: DataTypes.UUID, allowNull: false },
  eventTitle: { type: DataTypes.TEXT, allowNull: false },
  ticketTypeName: { type: DataTypes.TEXT, allowNull: false },
  instanceId: { type: DataTypes.TEXT, allowNull: true },
  localDate: { type: DataTypes.DATEONLY, allowNull: false },
  contactId: { type: DataTypes.UUID, allowNull: true },
  checkedInAt: { type: DataTypes.DATE, allowNull: false },
  checkedInByUserId: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'attendance_ticket_checkins', timestamps: false });

export const attendanceModels = [Headcount, TicketCheckin] as const;
