import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';
import type { DeclarationMethod, DeclarationScope } from '../gift-aid/rules';

/** `giving_gift_aid_declarations`: A donor's Gift Aid declaration: scope, dates, method, and cancellation. */
export class GivingGiftAidDeclaration extends Model<InferAttributes<GivingGiftAidDeclaration>, InferCreationAttributes<GivingGiftAidDeclaration>> {
  declare id: string;
  declare orgId: string;
  declare contactId: CreationOptional<string | null>;
  declare scope: DeclarationScope;
  declare method: DeclarationMethod;
  declare madeOn: string;
  declare startOn: string;
  declare endOn: CreationOptional<string | null>;
  declare confirmationSentOn: CreationOptional<string | null>;
  declare donationId: CreationOptional<string | null>;
  declare note: CreationOptional<string | null>;
  declare cancelledAt: CreationOptional<Date | null>;
  declare cancelledOn: CreationOptional<string | null>;
  declare cancelReason: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingGiftAidDeclaration {
    return GivingGiftAidDeclaration.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: true },
      scope: { type: DataTypes.TEXT, allowNull: false },
      method: { type: DataTypes.TEXT, allowNull: false },
      madeOn: { type: DataTypes.DATEONLY, allowNull: false },
      startOn: { type: DataTypes.DATEONLY, allowNull: false },
      endOn: { type: DataTypes.DATEONLY, allowNull: true },
      confirmationSentOn: { type: DataTypes.DATEONLY, allowNull: true },
      donationId: { type: DataTypes.UUID, allowNull: true },
      note: { type: DataTypes.TEXT, allowNull: true },
      cancelledAt: { type: DataTypes.DATE, allowNull: true },
      cancelledOn: { type: DataTypes.DATEONLY, allowNull: true },
      cancelReason: { type: DataTypes.TEXT, allowNull: true },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_gift_aid_declarations', timestamps: true });
  }
}
