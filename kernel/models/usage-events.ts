import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `usage_events`: Metered usage, counted once per (idempotency key, feature). */
export class UsageEvent extends Model<InferAttributes<UsageEvent>, InferCreationAttributes<UsageEvent>> {
  declare id: CreationOptional<number>;
  declare orgId: string;
  declare feature: string;
  declare units: number;
  declare idempotencyKey: string;
  declare tool: CreationOptional<string | null>;
  declare occurredAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof UsageEvent {
    return UsageEvent.init({
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      feature: { type: DataTypes.TEXT, allowNull: false },
      units: { type: DataTypes.INTEGER, allowNull: false },
      idempotencyKey: { type: DataTypes.TEXT, allowNull: false },
      tool: { type: DataTypes.TEXT, allowNull: true },
      occurredAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'usage_events', timestamps: false });
  }
}
