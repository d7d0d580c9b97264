import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `notes`: A pastoral note about a contact, with its privacy and confidentiality. */
export class Note extends Model<InferAttributes<Note>, InferCreationAttributes<Note>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare authorUserId: CreationOptional<string | null>;
  declare content: string;
  declare privacy: CreationOptional<string>;
  declare confidentialityLevel: CreationOptional<string>;
  declare followUpDate: CreationOptional<string | null>;
  declare followUpCompleted: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Note {
    return Note.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      authorUserId: { type: DataTypes.UUID, allowNull: true },
      content: { type: DataTypes.TEXT, allowNull: false },
      privacy: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      confidentialityLevel: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      followUpDate: { type: DataTypes.DATEONLY, allowNull: true },
      followUpCompleted: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'notes', timestamps: true });
  }
}
