import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** `org_allowance_overrides`: An organisation's own monthly limit for a feature, replacing its plan's. */
export class OrgAllowanceOverride extends Model<InferAttributes<OrgAllowanceOverride>, InferCreationAttributes<OrgAllowanceOverride>> {
  declare orgId: string;
  declare feature: string;
  declare monthlyLimit: number;

  static initModel(sequelize: Sequelize): typeof OrgAllowanceOverride {
    return OrgAllowanceOverride.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      feature: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      monthlyLimit: { type: DataTypes.INTEGER, allowNull: false },
    }, { sequelize, tableName: 'org_allowance_overrides', timestamps: false });
  }
}
