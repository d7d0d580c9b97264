import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_statement_runs`: One generation of giving statements for a period. */
export class GivingStatementRun extends Model<InferAttributes<GivingStatementRun>, InferCreationAttributes<GivingStatementRun>> {
  declare id: string;
  declare orgId: string;
  declare taxYear: CreationOptional<string | null>;
  declare periodStart: string;
  declare periodEnd: string;
  declare delivery: string;
  declare status: CreationOptional<string>;
  declare statementCount: CreationOptional<number>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingStatementRun {
    return GivingStatementRun.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      taxYear: { type: DataTypes.TEXT, allowNull: true },
      periodStart: { type: DataTypes.DATEONLY, allowNull: false },
      periodEnd: { type: DataTypes.DATEONLY, allowNull: false },
      delivery: { type: DataTypes.TEXT, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      statementCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_statement_runs', timestamps: true, updatedAt: false });
  }
}
