import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `contact_merges`: A record of one duplicate merged into a kept contact. */
export class ContactMerge extends Model<InferAttributes<ContactMerge>, InferCreationAttributes<ContactMerge>> {
  declare id: string;
  declare orgId: string;
  declare keptContactId: string;
  declare mergedContactId: string;
  declare mergedByUserId: CreationOptional<string | null>;
  declare moved: CreationOptional<unknown>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ContactMerge {
    return ContactMerge.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      keptContactId: { type: DataTypes.UUID, allowNull: false },
      mergedContactId: { type: DataTypes.UUID, allowNull: false },
      mergedByUserId: { type: DataTypes.UUID, allowNull: true },
      moved: { type: DataTypes.JSONB, allowNull: false, defaultValue: databaseDefault() },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'contact_merges', timestamps: true, updatedAt: false });
  }
}
