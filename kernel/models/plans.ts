import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** `plans`: A billing plan (reference data seeded by the init migration). */
export class Plan extends Model<InferAttributes<Plan>, InferCreationAttributes<Plan>> {
  declare code: string;
  declare name: string;

  static initModel(sequelize: Sequelize): typeof Plan {
    return Plan.init({
      code: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
    }, { sequelize, tableName: 'plans', timestamps: false });
  }
}
