import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';

const uuid = (allowNull = false) => ({ type: DataTypes.UUID, allowNull });
const text = (allowNull = false) => ({ type: DataTypes.TEXT, allowNull });
const date = (allowNull = true) => ({ type: DataTypes.DATE, allowNull });
const defaulted = (type: DataTypes.DataType) => ({ type, allowNull: false, defaultValue: databaseDefault() });

/** `portal_invites`: An invitation to the member portal, sent to one contact's address; only the link token's hash is kept. */
export class PortalInvite extends Model<InferAttributes<PortalInvite>, InferCreationAttributes<PortalInvite>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare channel: string;
  declare address: string;
  declare purpose: string;
  declare status: CreationOptional<string>;
  declare tokenHash: CreationOptional<string | null>;
  declare sendId: string;
  declare sends: CreationOptional<number>;
  declare deliveredSendId: CreationOptional<string | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare sendError: CreationOptional<unknown>;
  declare expiresAt: Date;
  declare joinedAt: CreationOptional<Date | null>;
  declare revokedAt: CreationOptional<Date | null>;
  declare createdBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof PortalInvite {
    return PortalInvite.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: uuid(), contactId: uuid(), channel: text(), address: text(), purpose: text(),
      status: defaulted(DataTypes.TEXT), tokenHash: text(true), sendId: uuid(), sends: defaulted(DataTypes.INTEGER),
      deliveredSendId: uuid(true), sentAt: date(), sendError: { type: DataTypes.JSONB, allowNull: true },
      expiresAt: date(false), joinedAt: date(), revokedAt: date(), createdBy: uuid(true),
      createdAt: defaulted(DataTypes.DATE), updatedAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'portal_invites', timestamps: false, underscored: true });
  }
}

/** `portal_sessions`: A member signed in to the portal from an invite link; the cookie is stored as its hash. */
export class PortalSession extends Model<InferAttributes<PortalSession>, InferCreationAttributes<PortalSession>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare inviteId: string;
  declare tokenHash: string;
  declare createdAt: CreationOptional<Date>;
  declare lastSeenAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare endedAt: CreationOptional<Date | null>;

  static initModel(instance: Sequelize): typeof PortalSession {
    return PortalSession.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: uuid(), contactId: uuid(), inviteId: uuid(), tokenHash: text(),
      createdAt: defaulted(DataTypes.DATE), lastSeenAt: defaulted(DataTypes.DATE), expiresAt: date(false), endedAt: date(),
    }, { sequelize: instance, tableName: 'portal_sessions', timestamps: false, underscored: true });
  }
}

/** `portal_posts`: A member's post on the portal: pending until a person approves or rejects it (with a reason). */
export class PortalPost extends Model<InferAttributes<PortalPost>, InferCreationAttributes<PortalPost>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare body: string;
  declare status: CreationOptional<string>;
  declare rejectionReason: CreationOptional<string | null>;
  declare moderatedBy: CreationOptional<string | null>;
  declare moderatedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof PortalPost {
    return PortalPost.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: uuid(), contactId: uuid(), body: text(), status: defaulted(DataTypes.TEXT), rejectionReason: text(true),
      moderatedBy: uuid(true), moderatedAt: date(), createdAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'portal_posts', timestamps: false, underscored: true });
  }
}

/** `capture_sessions`: A kiosk or tablet taking sign-ups; locks after its idle minutes and only a staff credential unlocks it. */
export class CaptureSession extends Model<InferAttributes<CaptureSession>, InferCreationAttributes<CaptureSession>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare kioskTokenHash: string;
  declare idleLockMinutes: number;
  declare status: CreationOptional<string>;
  declare lockedAt: CreationOptional<Date | null>;
  declare lastActivityAt: CreationOptional<Date>;
  declare signups: CreationOptional<number>;
  declare unlocks: CreationOptional<number>;
  declare lastUnlockedBy: CreationOptional<string | null>;
  declare createdBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof CaptureSession {
    return CaptureSession.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: uuid(), name: text(), kioskTokenHash: text(), idleLockMinutes: { type: DataTypes.INTEGER, allowNull: false },
      status: defaulted(DataTypes.TEXT), lockedAt: date(), lastActivityAt: defaulted(DataTypes.DATE),
      signups: defaulted(DataTypes.INTEGER), unlocks: defaulted(DataTypes.INTEGER), lastUnlockedBy: uuid(true), createdBy: uuid(true),
      createdAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'capture_sessions', timestamps: false, underscored: true });
  }
}

export const portalModels = [
  PortalInvite.initModel(sequelize), PortalSession.initModel(sequelize), PortalPost.initModel(sequelize), CaptureSession.initModel(sequelize),
] as const;
