import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

/** `groups_types`: cell, home group, class… */
export class GroupType extends Model<InferAttributes<GroupType>, InferCreationAttributes<GroupType>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare description: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

GroupType.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  name: { type: DataTypes.TEXT, allowNull: false },
  description: { type: DataTypes.TEXT, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'groups_types', timestamps: false });

/** `groups_groups`: a small group, with its enrolment. */
export class SmallGroup extends Model<InferAttributes<SmallGroup>, InferCreationAttributes<SmallGroup>> {
  declare id: string;
  declare orgId: string;
  declare typeId: CreationOptional<string | null>;
  declare name: string;
  declare description: CreationOptional<string | null>;
  declare scheduleText: CreationOptional<string | null>;
  declare meetingDay: CreationOptional<string | null>;
  declare meetingTime: CreationOptional<string | null>;
  declare locationKind: CreationOptional<string>;
  declare address: CreationOptional<string | null>;
  declare area: CreationOptional<string | null>;
  declare onlineUrl: CreationOptional<string | null>;
  declare listed: CreationOptional<boolean>;
  declare confidential: CreationOptional<boolean>;
  declare capacity: CreationOptional<number | null>;
  declare minAge: CreationOptional<number | null>;
  declare maxAge: CreationOptional<number | null>;
  declare tags: CreationOptional<string[]>;
  declare enrolment: CreationOptional<string>;
  declare memberLimit: CreationOptional<number | null>;
  declare closesOn: CreationOptional<string | null>;
  declare autoClosedAt: CreationOptional<Date | null>;
  declare autoClosedReason: CreationOptional<string | null>;
  declare archivedAt: CreationOptional<Date | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

SmallGroup.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  typeId: { type: DataTypes.UUID, allowNull: true },
  name: { type: DataTypes.TEXT, allowNull: false },
  description: { type: DataTypes.TEXT, allowNull: true },
  scheduleText: { type: DataTypes.TEXT, allowNull: true },
  meetingDay: { type: DataTypes.TEXT, allowNull: true },
  meetingTime: { type: DataTypes.TEXT, allowNull: true },
  locationKind: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  address: { type: DataTypes.TEXT, allowNull: true },
  area: { type: DataTypes.TEXT, allowNull: true },
  onlineUrl: { type: DataTypes.TEXT, allowNull: true },
  listed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
  confidential: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
  capacity: { type: DataTypes.INTEGER, allowNull: true },
  minAge: { type: DataTypes.INTEGER, allowNull: true },
  maxAge: { type: DataTypes.INTEGER, allowNull: true },
  tags: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
  enrolment: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  memberLimit: { type: DataTypes.INTEGER, allowNull: true },
  closesOn: { type: DataTypes.DATEONLY, allowNull: true },
  autoClosedAt: { type: DataTypes.DATE, allowNull: true },
  autoClosedReason: { type: DataTypes.TEXT, allowNull: true },
  archivedAt: { type: DataTypes.DATE, allowNull: true },
  createdByUserId: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'groups_groups', timestamps: false });

/** `groups_memberships`: leader or member; a row stays when someone leaves (`leftAt`). */
export class GroupMembership extends Model<InferAttributes<GroupMembership>, InferCreationAttributes<GroupMembership>> {
  declare id: string;
  declare orgId: string;
  declare groupId: string;
  declare contactId: string;
  declare role: string;
  declare leaderUserId: CreationOptional<string | null>;
  declare joinedAt: CreationOptional<Date>;
  declare leftAt: CreationOptional<Date | null>;
  declare leftReason: CreationOptional<string | null>;
  declare addedByUserId: CreationOptional<string | null>;
  declare joinRequestId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

GroupMembership.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  groupId: { type: DataTypes.UUID, allowNull: false },
  contactId: { type: DataTypes.UUID, allowNull: false },
  role: { type: DataTypes.TEXT, allowNull: false },
  leaderUserId: { type: DataTypes.UUID, allowNull: true },
  joinedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  leftAt: { type: DataTypes.DATE, allowNull: true },
  leftReason: { type: DataTypes.TEXT, allowNull: true },
  addedByUserId: { type: DataTypes.UUID, allowNull: true },
  joinRequestId: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'groups_memberships', timestamps: false });

/** `groups_join_requests`: pending → approved | declined. */
export class JoinRequest extends Model<InferAttributes<JoinRequest>, InferCreationAttributes<JoinRequest>> {
  declare id: string;
  declare orgId: string;
  declare groupId: string;
  declare contactId: string;
  declare status: CreationOptional<string>;
  declare message: CreationOptional<string | null>;
  declare declineReason: CreationOptional<string | null>;
  declare requestedByUserId: CreationOptional<string | null>;
  declare decidedByUserId: CreationOptional<string | null>;
  declare decidedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

JoinRequest.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  groupId: { type: DataTypes.UUID, allowNull: false },
  contactId: { type: DataTypes.UUID, allowNull: false },
  status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  message: { type: DataTypes.TEXT, allowNull: true },
  declineReason: { type: DataTypes.TEXT, allowNull: true },
  requestedByUserId: { type: DataTypes.UUID, allowNull: true },
  decidedByUserId: { type: DataTypes.UUID, allowNull: true },
  decidedAt: { type: DataTypes.DATE, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'groups_join_requests', timestamps: false });

/** `groups_meetings`: one meeting; a recurring schedule's occurrences share `seriesId`. */
export class GroupMeeting extends Model<InferAttributes<GroupMeeting>, InferCreationAttributes<GroupMeeting>> {
  declare id: string;
  declare orgId: string;
  declare groupId: string;
  declare seriesId: CreationOptional<string | null>;
  declare rrule: CreationOptional<string | null>;
  declare title: CreationOptional<string | null>;
  declare startsAt: Date;
  declare localDate: string;
  declare localTime: string;
  declare timeZone: string;
  declare durationMinutes: number;
  declare location: CreationOptional<string | null>;
  declare notes: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

GroupMeeting.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  groupId: { type: DataTypes.UUID, allowNull: false },
  seriesId: { type: DataTypes.UUID, allowNull: true },
  rrule: { type: DataTypes.TEXT, allowNull: true },
  title: { type: DataTypes.TEXT, allowNull: true },
  startsAt: { type: DataTypes.DATE, allowNull: false },
  localDate: { type: DataTypes.DATEONLY, allowNull: false },
  localTime: { type: DataTypes.TEXT, allowNull: false },
  timeZone: { type: DataTypes.TEXT, allowNull: false },
  durationMinutes: { type: DataTypes.INTEGER, allowNull: false },
  location: { type: DataTypes.TEXT, allowNull: true },
  notes: { type: DataTypes.TEXT, allowNull: true },
  createdByUserId: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'groups_meetings', timestamps: false });

/** `groups_meeting_rsvps`: yes, no or maybe, one per person and meeting. */
export class MeetingRsvp extends Model<InferAttributes<MeetingRsvp>, InferCreationAttributes<MeetingRsvp>> {
  declare id: string;
  declare orgId: string;
  declare meetingId: string;
  declare contactId: string;
  declare response: string;
  declare note: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

MeetingRsvp.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  meetingId: { type: DataTypes.UUID, allowNull: false },
  contactId: { type: DataTypes.UUID, allowNull: false },
  response: { type: DataTypes.TEXT, allowNull: false },
  note: { type: DataTypes.TEXT, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'groups_meeting_rsvps', timestamps: false });

/** `groups_attendance`: one record per person per meeting; visitors inline by contact or name. */
export class GroupAttendance extends Model<InferAttributes<GroupAttendance>, InferCreationAttributes<GroupAttendance>> {
  declare id: string;
  declare orgId: string;
  declare meetingId: string;
  declare groupId: string;
  declare contactId: CreationOptional<string | null>;
  declare visitorName: CreationOptional<string | null>;
  declare visitor: CreationOptional<boolean>;
  declare present: boolean;
  declare recordedByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

GroupAttendance.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  meetingId: { type: DataTypes.UUID, allowNull: false },
  groupId: { type: DataTypes.UUID, allowNull: false },
  contactId: { type: DataTypes.UUID, allowNull: true },
  visitorName: { type: DataTypes.TEXT, allowNull: true },
  visitor: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
  present: { type: DataTypes.BOOLEAN, allowNull: false },
  recordedByUserId: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'groups_attendance', timestamps: false });

export const groupsModels = [GroupType, SmallGroup, GroupMembership, JoinRequest, GroupMeeting, MeetingRsvp, GroupAttendance] as const;
