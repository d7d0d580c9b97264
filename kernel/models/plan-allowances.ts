import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** `plan_allowances`: A plan's monthly allowance for one metered feature; a feature without a row is unmetered. */
export class PlanAllowance extends Model<InferAttributes<PlanAllowance>, InferCreationAttributes<PlanAllowance>> {
  declare planCode: string;
  declare feature: string;
  declare monthlyLimit: number;

  static initModel(sequelize: Sequelize): typeof PlanAllowance {
    return PlanAllowance.init({
      planCode: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      feature: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      monthlyLimit: { type: DataTypes.INTEGER, allowNull: false },
    }, { sequelize, tableName: 'plan_allowances', timestamps: false });
  }
}
