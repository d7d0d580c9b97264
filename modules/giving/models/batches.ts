import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_batches`: A batch of donations: a staging area until committed, then immutable. */
export class GivingBatch extends Model<InferAttributes<GivingBatch>, InferCreationAttributes<GivingBatch>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare status: CreationOptional<'in_progress' | 'committed'>;
  declare currency: string;
  declare createdByUserId: CreationOptional<string | null>;
  declare committedAt: CreationOptional<Date | null>;
  declare committedByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingBatch {
    return GivingBatch.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      currency: { type: DataTypes.TEXT, allowNull: false },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      committedAt: { type: DataTypes.DATE, allowNull: true },
      committedByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_batches', timestamps: true });
  }
}
