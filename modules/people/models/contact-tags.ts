import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `contact_tags`: A tag on a contact. */
export class ContactTag extends Model<InferAttributes<ContactTag>, InferCreationAttributes<ContactTag>> {
  declare orgId: string;
  declare contactId: string;
  declare tagId: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ContactTag {
    return ContactTag.init({
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      tagId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'contact_tags', timestamps: true, updatedAt: false });
  }
}
