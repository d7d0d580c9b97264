import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { Role } from '../../../core/roles';
import { databaseDefault } from '../../../db/sequelize';

/** `team_invites`: An invitation to join the team with a role; only its emailed token's hash is kept. */
export class TeamInvite extends Model<InferAttributes<TeamInvite>, InferCreationAttributes<TeamInvite>> {
  declare id: string;
  declare orgId: string;
  declare email: string;
  declare role: Role;
  declare status: CreationOptional<'pending' | 'accepted' | 'cancelled' | 'replaced'>;
  declare sendId: string;
  declare sends: CreationOptional<number>;
  declare tokenHash: CreationOptional<string | null>;
  declare expiresAt: Date;
  declare deliveredSendId: CreationOptional<string | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare sendError: CreationOptional<{ code: string; message: string } | null>;
  declare invitedByUserId: CreationOptional<string | null>;
  declare acceptedUserId: CreationOptional<string | null>;
  declare acceptedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof TeamInvite {
    return TeamInvite.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      email: { type: DataTypes.TEXT, allowNull: false },
      role: { type: DataTypes.TEXT, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      sendId: { type: DataTypes.UUID, allowNull: false },
      sends: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      tokenHash: { type: DataTypes.TEXT, allowNull: true },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      deliveredSendId: { type: DataTypes.UUID, allowNull: true },
      sentAt: { type: DataTypes.DATE, allowNull: true },
      sendError: { type: DataTypes.JSONB, allowNull: true },
      invitedByUserId: { type: DataTypes.UUID, allowNull: true },
      acceptedUserId: { type: DataTypes.UUID, allowNull: true },
      acceptedAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'team_invites', timestamps: true });
  }
}
