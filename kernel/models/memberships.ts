import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `memberships`: A user's role in one organisation. */
export class Membership extends Model<InferAttributes<Membership>, InferCreationAttributes<Membership>> {
  declare orgId: string;
  declare userId: string;
  declare role: string;
  declare safeguarding: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Membership {
    return Membership.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      userId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      role: { type: DataTypes.TEXT, allowNull: false },
      safeguarding: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'memberships', timestamps: true, updatedAt: false });
  }
}
