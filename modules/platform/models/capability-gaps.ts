import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `capability_gaps`: Something an agent needed that no tool could do, as reported. */
export class CapabilityGap extends Model<InferAttributes<CapabilityGap>, InferCreationAttributes<CapabilityGap>> {
  declare id: string;
  declare orgId: string;
  declare tool: string | null;
  declare missing: string;
  declare example: string | null;
  declare reportedByUserId: string | null;
  declare credentialKind: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof CapabilityGap {
    return CapabilityGap.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      tool: { type: DataTypes.TEXT, allowNull: true },
      missing: { type: DataTypes.TEXT, allowNull: false },
      example: { type: DataTypes.TEXT, allowNull: true },
      reportedByUserId: { type: DataTypes.UUID, allowNull: true },
      credentialKind: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'capability_gaps', timestamps: true, updatedAt: false });
  }
}
