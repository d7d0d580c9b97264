import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `capability_gaps`: Something an agent needed that no tool could do, as reported; open until an owner or admin resolves it. */
export class CapabilityGap extends Model<InferAttributes<CapabilityGap>, InferCreationAttributes<CapabilityGap>> {
  declare id: string;
  declare orgId: string;
  declare tool: string | null;
  declare missing: string;
  declare example: string | null;
  declare reportedByUserId: string | null;
  declare credentialKind: string;
  declare createdAt: CreationOptional<Date>;
  declare resolvedAt: CreationOptional<Date | null>;
  declare resolvedByUserId: CreationOptional<string | null>;
  declare resolution: CreationOptional<string | null>;

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
      resolvedAt: { type: DataTypes.DATE, allowNull: true },
      resolvedByUserId: { type: DataTypes.UUID, allowNull: true },
      resolution: { type: DataTypes.TEXT, allowNull: true },
    }, { sequelize, tableName: 'capability_gaps', timestamps: true, updatedAt: false });
  }
}
