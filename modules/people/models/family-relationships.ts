import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `family_relationships`: One direction of a family link: (A, B, 'daughter') says B is A's daughter. */
export class FamilyRelationship extends Model<InferAttributes<FamilyRelationship>, InferCreationAttributes<FamilyRelationship>> {
  declare orgId: string;
  declare contactId: string;
  declare relatedContactId: string;
  declare relationship: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof FamilyRelationship {
    return FamilyRelationship.init({
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      relatedContactId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      relationship: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'family_relationships', timestamps: true, updatedAt: false });
  }
}
