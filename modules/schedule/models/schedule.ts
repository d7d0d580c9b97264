import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';

/** `schedule_series`: a recurring service (RRULE in floating local time of its zone). */
export class ScheduleSeries extends Model<InferAttributes<ScheduleSeries>, InferCreationAttributes<ScheduleSeries>> {
  declare id: string;
  declare orgId: string;
  declare title: string;
  declare rrule: string;
  declare timeZone: string;
  declare startDate: string;
  declare startTime: string;
  declare durationMinutes: number;
  declare locationLabel: CreationOptional<string | null>;
  declare campus: CreationOptional<string | null>;
  declare splitFromSeriesId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare deletedAt: CreationOptional<Date | null>;
}

ScheduleSeries.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  title: { type: DataTypes.TEXT, allowNull: false },
  rrule: { type: DataTypes.TEXT, allowNull: false },
  timeZone: { type: DataTypes.TEXT, allowNull: false },
  startDate: { type: DataTypes.DATEONLY, allowNull: false },
  startTime: { type: DataTypes.TEXT, allowNull: false },
  durationMinutes: { type: DataTypes.INTEGER, allowNull: false },
  locationLabel: { type: DataTypes.TEXT, allowNull: true },
  campus: { type: DataTypes.TEXT, allowNull: true },
  splitFromSeriesId: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  deletedAt: { type: DataTypes.DATE, allowNull: true },
}, { sequelize, tableName: 'schedule_series', timestamps: false });

/** `schedule_instances`: one materialised occurrence of a series, or a one-off extra instance. */
export class ScheduleInstance extends Model<InferAttributes<ScheduleInstance>, InferCreationAttributes<ScheduleInstance>> {
  declare id: string;
  declare orgId: string;
  declare seriesId: string;
  declare originalStartsAt: CreationOptional<Date | null>;
  declare title: string;
  declare startsAt: Date;
  declare endsAt: Date;
  declare localDate: string;
  declare localStartTime: string;
  declare timeZone: string;
  declare locationLabel: CreationOptional<string | null>;
  declare campus: CreationOptional<string | null>;
  declare status: CreationOptional<'scheduled' | 'cancelled'>;
  declare cancelReason: CreationOptional<string | null>;
  declare detached: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

ScheduleInstance.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  seriesId: { type: DataTypes.UUID, allowNull: false },
  originalStartsAt: { type: DataTypes.DATE, allowNull: true },
  title: { type: DataTypes.TEXT, allowNull: false },
  startsAt: { type: DataTypes.DATE, allowNull: false },
  endsAt: { type: DataTypes.DATE, allowNull: false },
  localDate: { type: DataTypes.DATEONLY, allowNull: false },
  localStartTime: { type: DataTypes.TEXT, allowNull: false },
  timeZone: { type: DataTypes.TEXT, allowNull: false },
  locationLabel: { type: DataTypes.TEXT, allowNull: true },
  campus: { type: DataTypes.TEXT, allowNull: true },
  status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  cancelReason: { type: DataTypes.TEXT, allowNull: true },
  detached: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'schedule_instances', timestamps: false });

export const scheduleModels = [ScheduleSeries, ScheduleInstance] as const;
