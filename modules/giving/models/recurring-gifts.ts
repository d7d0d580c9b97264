import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';
import type { RecurringFrequency } from '../recurring/calendar';
import type { RecurringMethod } from '../recurring/gifts';

/** `giving_recurring_gifts`: A gift repeated on a schedule; each occurrence records exactly one donation. */
export class GivingRecurringGift extends Model<InferAttributes<GivingRecurringGift>, InferCreationAttributes<GivingRecurringGift>> {
  declare id: string;
  declare orgId: string;
  declare contactId: CreationOptional<string | null>;
  declare fundId: string;
  declare amount: number;
  declare currency: string;
  declare method: RecurringMethod;
  declare frequency: RecurringFrequency;
  declare startsOn: string;
  declare nextOn: CreationOptional<string | null>;
  declare status: CreationOptional<'active' | 'paused' | 'cancelled'>;
  declare pausedAt: CreationOptional<Date | null>;
  declare resumeOn: CreationOptional<string | null>;
  declare cancelledAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingRecurringGift {
    return GivingRecurringGift.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: true },
      fundId: { type: DataTypes.UUID, allowNull: false },
      amount: { type: DataTypes.BIGINT, allowNull: false },
      currency: { type: DataTypes.TEXT, allowNull: false },
      method: { type: DataTypes.TEXT, allowNull: false },
      frequency: { type: DataTypes.TEXT, allowNull: false },
      startsOn: { type: DataTypes.DATEONLY, allowNull: false },
      nextOn: { type: DataTypes.DATEONLY, allowNull: true },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      pausedAt: { type: DataTypes.DATE, allowNull: true },
      resumeOn: { type: DataTypes.DATEONLY, allowNull: true },
      cancelledAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_recurring_gifts', timestamps: true });
  }
}
