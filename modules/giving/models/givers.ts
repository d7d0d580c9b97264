import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_givers`: A contact's giving details: Gift Aid address and a joint giver; bank details only as last four digits. */
export class GivingGiver extends Model<InferAttributes<GivingGiver>, InferCreationAttributes<GivingGiver>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare giverReference: string;
  declare title: CreationOptional<string | null>;
  declare houseNameOrNumber: CreationOptional<string | null>;
  declare addressLine: CreationOptional<string | null>;
  declare town: CreationOptional<string | null>;
  declare postcode: CreationOptional<string | null>;
  declare jointContactId: CreationOptional<string | null>;
  declare bankAccountLast4: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingGiver {
    return GivingGiver.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      giverReference: { type: DataTypes.TEXT, allowNull: false },
      title: { type: DataTypes.TEXT, allowNull: true },
      houseNameOrNumber: { type: DataTypes.TEXT, allowNull: true },
      addressLine: { type: DataTypes.TEXT, allowNull: true },
      town: { type: DataTypes.TEXT, allowNull: true },
      postcode: { type: DataTypes.TEXT, allowNull: true },
      jointContactId: { type: DataTypes.UUID, allowNull: true },
      bankAccountLast4: { type: DataTypes.TEXT, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_givers', timestamps: true });
  }
}
