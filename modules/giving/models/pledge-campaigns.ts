import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_pledge_campaigns`: A pledge campaign towards a fund, with an optional goal. */
export class GivingPledgeCampaign extends Model<InferAttributes<GivingPledgeCampaign>, InferCreationAttributes<GivingPledgeCampaign>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare fundId: string;
  declare goalAmount: CreationOptional<number | null>;
  declare currency: string;
  declare startsOn: string;
  declare endsOn: CreationOptional<string | null>;
  declare status: CreationOptional<'active' | 'closed'>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingPledgeCampaign {
    return GivingPledgeCampaign.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      fundId: { type: DataTypes.UUID, allowNull: false },
      goalAmount: { type: DataTypes.BIGINT, allowNull: true },
      currency: { type: DataTypes.TEXT, allowNull: false },
      startsOn: { type: DataTypes.DATEONLY, allowNull: false },
      endsOn: { type: DataTypes.DATEONLY, allowNull: true },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_pledge_campaigns', timestamps: true });
  }
}
