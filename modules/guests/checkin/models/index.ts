import { DataTypes, Model, type ModelAttributes, type ModelStatic } from 'sequelize';
import { databaseDefault, sequelize } from '../../../../db/sequelize';
import type { PersonKind } from '../checkin';
import type { GateMode, HubSettings, LabelOptions, StationKind } from '../setup';

/*
 * Models of the check-in tables, for the merge/erasure machinery and the schema drift test.
 * The check-in services work in SQL: every gate reads counts under row locks, which SQL says plainly.
 */
const id = { type: DataTypes.UUID, primaryKey: true, allowNull: false };
const uuid = (allowNull: boolean) => ({ type: DataTypes.UUID, allowNull });
const text = (allowNull: boolean) => ({ type: DataTypes.TEXT, allowNull });
const int = (allowNull: boolean) => ({ type: DataTypes.INTEGER, allowNull });
const time = (allowNull: boolean) => ({ type: DataTypes.DATE, allowNull });
const withDefault = <T extends object>(column: T) => ({ ...column, allowNull: false, defaultValue: databaseDefault() });

/** A model whose instances carry the attributes A (camelCase, as declared), so RowOf can name its row; untyped when A is not given. */
type TypedModel<A extends object> = ModelStatic<Model<A> & A>;

function modelOf<A extends object = object>({ tableName }: { tableName: string }, attributes: ModelAttributes): TypedModel<A> {
  class Table extends Model {}
  Table.init(attributes, { sequelize, tableName, modelName: tableName, timestamps: false });
  return Table as unknown as TypedModel<A>;
}

/** `guests_locations`: A room or area people are checked into, with its age/grade filters, capacity, ratio and background-check rule. */
export const GuestsLocation = modelOf<{
  id: string; orgId: string; name: string; minAge: number | null; maxAge: number | null; minGrade: number | null; maxGrade: number | null;
  capacity: number | null; capacityMode: GateMode; childrenPerAdult: number | null; ratioMode: GateMode;
  backgroundCheckRequired: boolean; backgroundCheckType: string | null; createdAt: Date; updatedAt: Date; deletedAt: Date | null; spacesRoomId: string | null;
}>({ tableName: 'guests_locations' }, {
  id, orgId: uuid(false), name: text(false), minAge: int(true), maxAge: int(true), minGrade: int(true), maxGrade: int(true),
  capacity: int(true), capacityMode: withDefault(text(false)), childrenPerAdult: int(true), ratioMode: withDefault(text(false)),
  backgroundCheckRequired: withDefault({ type: DataTypes.BOOLEAN }), backgroundCheckType: text(true),
  createdAt: withDefault(time(false)), updatedAt: withDefault(time(false)), deletedAt: time(true), spacesRoomId: uuid(true),
});

/** `guests_stations`: A check-in point: a self-service kiosk, a manned desk, or a room's roster. */
export const GuestsStation = modelOf<{ id: string; orgId: string; name: string; kind: StationKind; locationId: string | null; createdAt: Date; deletedAt: Date | null }>(
  { tableName: 'guests_stations' }, {
  id, orgId: uuid(false), name: text(false), kind: text(false), locationId: uuid(true), createdAt: withDefault(time(false)), deletedAt: time(true),
});

/** `guests_service_checkin_settings`: Which locations open and how labels print, for a service series or one instance. */
export const GuestsServiceCheckinSettings = modelOf<{
  id: string; orgId: string; seriesId: string | null; instanceId: string | null; openLocationIds: string[]; labelOptions: Partial<LabelOptions>;
  updatedByUserId: string | null; updatedAt: Date;
}>({ tableName: 'guests_service_checkin_settings' }, {
  id, orgId: uuid(false), seriesId: text(true), instanceId: text(true),
  openLocationIds: withDefault({ type: DataTypes.ARRAY(DataTypes.UUID) }), labelOptions: withDefault({ type: DataTypes.JSONB }),
  updatedByUserId: uuid(true), updatedAt: withDefault(time(false)),
});

/** `guests_checkin_settings`: The organisation's check-in settings and check-in hub (kiosk) configuration. */
export const GuestsCheckinSettings = modelOf<{
  orgId: string; securityCodeLength: number; sweepGraceMinutes: number; medicalVisibleRoles: string[]; hub: Partial<HubSettings>; updatedAt: Date;
  checkinOpensMinutesBefore: number; checkinClosesMinutesAfter: number;
}>({ tableName: 'guests_checkin_settings' }, {
  orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  securityCodeLength: withDefault(int(false)), sweepGraceMinutes: withDefault(int(false)),
  medicalVisibleRoles: withDefault({ type: DataTypes.ARRAY(DataTypes.TEXT) }), hub: withDefault({ type: DataTypes.JSONB }),
  updatedAt: withDefault(time(false)), checkinOpensMinutesBefore: withDefault(int(false)), checkinClosesMinutesAfter: withDefault(int(false)),
});

/** `guests_child_profiles`: A child's grade, allergies, medical notes and authorised pickup people. */
export const GuestsChildProfile = modelOf<{
  id: string; orgId: string; contactId: string; grade: number | null; allergies: string | null; medicalNotes: string | null;
  authorisedPickupIds: string[]; createdAt: Date; updatedAt: Date;
}>({ tableName: 'guests_child_profiles' }, {
  id, orgId: uuid(false), contactId: uuid(false), grade: int(true), allergies: text(true), medicalNotes: text(true),
  authorisedPickupIds: withDefault({ type: DataTypes.ARRAY(DataTypes.UUID) }), createdAt: withDefault(time(false)), updatedAt: withDefault(time(false)),
});

/** `guests_checkin_groups`: One check-in act (a household or one person) and its security code, held until everyone in it is checked out. */
export const GuestsCheckinGroup = modelOf<{
  id: string; orgId: string; instanceId: string; localDate: string; securityCode: string | null; stationId: string; checkedInByUserId: string | null;
  createdAt: Date; releasedAt: Date | null;
}>({ tableName: 'guests_checkin_groups' }, {
  id, orgId: uuid(false), instanceId: text(false), localDate: { type: DataTypes.DATEONLY, allowNull: false }, securityCode: text(true),
  stationId: uuid(false), checkedInByUserId: uuid(true), createdAt: withDefault(time(false)), releasedAt: time(true),
});

/** `guests_checkins`: One person checked into one location for one service instance, and their checkout. */
export const GuestsCheckin = modelOf<{
  id: string; orgId: string; groupId: string; instanceId: string; localDate: string; instanceEndsAt: Date; locationId: string; stationId: string;
  contactId: string; personKind: PersonKind; firstTime: boolean; checkedInAt: Date; checkedInByUserId: string | null; warnings: unknown;
  overrides: unknown[]; labelReprints: number; checkedOutAt: Date | null; checkedOutByUserId: string | null; checkoutStationId: string | null;
  pickupContactId: string | null; pickupName: string | null; pickupAuthorised: boolean | null; checkoutOverrideReason: string | null;
  checkoutOverrideByUserId: string | null; mergedIntoCheckinId: string | null;
}>({ tableName: 'guests_checkins' }, {
  id, orgId: uuid(false), groupId: uuid(false), instanceId: text(false), localDate: { type: DataTypes.DATEONLY, allowNull: false },
  instanceEndsAt: time(false), locationId: uuid(false), stationId: uuid(false), contactId: uuid(false), personKind: text(false),
  firstTime: { type: DataTypes.BOOLEAN, allowNull: false }, checkedInAt: withDefault(time(false)), checkedInByUserId: uuid(true),
  warnings: withDefault({ type: DataTypes.JSONB }), overrides: withDefault({ type: DataTypes.JSONB }), labelReprints: withDefault(int(false)),
  checkedOutAt: time(true), checkedOutByUserId: uuid(true), checkoutStationId: uuid(true), pickupContactId: uuid(true), pickupName: text(true),
  pickupAuthorised: { type: DataTypes.BOOLEAN, allowNull: true }, checkoutOverrideReason: text(true), checkoutOverrideByUserId: uuid(true),
  mergedIntoCheckinId: uuid(true),
});

/** `guests_sweep_reports`: Children still checked in after their service ended, reported to the staff (never checked out by the sweep). */
export const GuestsSweepReport = modelOf({ tableName: 'guests_sweep_reports' }, {
  id, orgId: uuid(false), instanceId: text(false), localDate: { type: DataTypes.DATEONLY, allowNull: false }, instanceEndedAt: time(false),
  childrenCount: int(false), checkinIds: { type: DataTypes.ARRAY(DataTypes.UUID), allowNull: false }, staffOnDutyCount: withDefault(int(false)),
  reportedAt: withDefault(time(false)), updatedAt: withDefault(time(false)),
});

export const checkinModels = [
  GuestsLocation, GuestsStation, GuestsServiceCheckinSettings, GuestsCheckinSettings, GuestsChildProfile, GuestsCheckinGroup, GuestsCheckin, GuestsSweepReport,
] as const;
