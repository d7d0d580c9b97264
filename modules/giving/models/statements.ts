import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';
import type { StatementDeliveryStatus } from '../gift-aid/statement-delivery';

/** `giving_statements`: One giver's statement in a run: the gifts counted and their total. */
export class GivingStatement extends Model<InferAttributes<GivingStatement>, InferCreationAttributes<GivingStatement>> {
  declare id: string;
  declare orgId: string;
  declare runId: string;
  declare contactId: CreationOptional<string | null>;
  declare currency: string;
  declare donationCount: number;
  declare totalAmount: number;
  declare giftAidClaimed: CreationOptional<number>;
  declare content: Record<string, unknown>;
  declare deliveryStatus: CreationOptional<StatementDeliveryStatus | null>;
  declare deliveryError: CreationOptional<{ code: string; message: string } | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingStatement {
    return GivingStatement.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      runId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: true },
      currency: { type: DataTypes.TEXT, allowNull: false },
      donationCount: { type: DataTypes.INTEGER, allowNull: false },
      totalAmount: { type: DataTypes.BIGINT, allowNull: false },
      giftAidClaimed: { type: DataTypes.BIGINT, allowNull: false, defaultValue: databaseDefault() },
      content: { type: DataTypes.JSONB, allowNull: false },
      deliveryStatus: { type: DataTypes.TEXT, allowNull: true },
      deliveryError: { type: DataTypes.JSONB, allowNull: true },
      sentAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_statements', timestamps: true, updatedAt: false });
  }
}
