import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `contacts`: A person the organisation cares for. Soft-deleted (deleted_at). */
export class Contact extends Model<InferAttributes<Contact>, InferCreationAttributes<Contact>> {
  declare id: string;
  declare orgId: string;
  declare prefix: CreationOptional<string | null>;
  declare firstName: CreationOptional<string | null>;
  declare lastName: CreationOptional<string | null>;
  declare preferredName: CreationOptional<string | null>;
  declare email: CreationOptional<string | null>;
  declare phone: CreationOptional<string | null>;
  declare dateOfBirth: CreationOptional<string | null>;
  declare gender: CreationOptional<string | null>;
  declare addressLine1: CreationOptional<string | null>;
  declare addressLine2: CreationOptional<string | null>;
  declare addressCity: CreationOptional<string | null>;
  declare addressCounty: CreationOptional<string | null>;
  declare addressPostcode: CreationOptional<string | null>;
  declare addressCountry: CreationOptional<string | null>;
  declare status: CreationOptional<string>;
  declare membershipStatus: CreationOptional<string | null>;
  declare familyId: CreationOptional<string | null>;
  declare whatsappConsent: CreationOptional<boolean>;
  declare baptismDate: CreationOptional<string | null>;
  declare membershipDate: CreationOptional<string | null>;
  declare anniversaryDate: CreationOptional<string | null>;
  declare customFields: CreationOptional<Record<string, unknown>>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare deletedAt: CreationOptional<Date | null>;
  declare firstVisitDate: CreationOptional<string | null>;

  static initModel(sequelize: Sequelize): typeof Contact {
    return Contact.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      prefix: { type: DataTypes.TEXT, allowNull: true },
      firstName: { type: DataTypes.TEXT, allowNull: true },
      lastName: { type: DataTypes.TEXT, allowNull: true },
      preferredName: { type: DataTypes.TEXT, allowNull: true },
      email: { type: DataTypes.TEXT, allowNull: true },
      phone: { type: DataTypes.TEXT, allowNull: true },
      dateOfBirth: { type: DataTypes.DATEONLY, allowNull: true },
      gender: { type: DataTypes.TEXT, allowNull: true },
      addressLine1: { type: DataTypes.TEXT, allowNull: true },
      addressLine2: { type: DataTypes.TEXT, allowNull: true },
      addressCity: { type: DataTypes.TEXT, allowNull: true },
      addressCounty: { type: DataTypes.TEXT, allowNull: true },
      addressPostcode: { type: DataTypes.TEXT, allowNull: true },
      addressCountry: { type: DataTypes.TEXT, allowNull: true },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      membershipStatus: { type: DataTypes.TEXT, allowNull: true },
      familyId: { type: DataTypes.UUID, allowNull: true },
      whatsappConsent: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      baptismDate: { type: DataTypes.DATEONLY, allowNull: true },
      membershipDate: { type: DataTypes.DATEONLY, allowNull: true },
      anniversaryDate: { type: DataTypes.DATEONLY, allowNull: true },
      customFields: { type: DataTypes.JSONB, allowNull: false, defaultValue: databaseDefault() },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
      firstVisitDate: { type: DataTypes.DATEONLY, allowNull: true },
    }, { sequelize, tableName: 'contacts', timestamps: true, paranoid: true });
  }
}
