import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';
import type { PledgePeriod } from '../pledges';

/** `giving_pledges`: A giver's promise within a campaign; progress is computed from linked donations. */
export class GivingPledge extends Model<InferAttributes<GivingPledge>, InferCreationAttributes<GivingPledge>> {
  declare id: string;
  declare orgId: string;
  declare campaignId: string;
  declare contactId: CreationOptional<string | null>;
  declare amount: number;
  declare currency: string;
  declare period: CreationOptional<PledgePeriod>;
  declare startsOn: string;
  declare endsOn: CreationOptional<string | null>;
  declare status: CreationOptional<'open' | 'fulfilled' | 'cancelled'>;
  declare spansFunds: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingPledge {
    return GivingPledge.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      campaignId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: true },
      amount: { type: DataTypes.BIGINT, allowNull: false },
      currency: { type: DataTypes.TEXT, allowNull: false },
      period: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      startsOn: { type: DataTypes.DATEONLY, allowNull: false },
      endsOn: { type: DataTypes.DATEONLY, allowNull: true },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      spansFunds: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_pledges', timestamps: true });
  }
}
