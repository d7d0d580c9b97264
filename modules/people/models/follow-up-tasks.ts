import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `follow_up_tasks`: A Welcome Desk follow-up for a contact. */
export class FollowUpTask extends Model<InferAttributes<FollowUpTask>, InferCreationAttributes<FollowUpTask>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare title: string;
  declare dueDate: CreationOptional<string | null>;
  declare status: CreationOptional<string>;
  declare outcome: CreationOptional<string | null>;
  declare completedAt: CreationOptional<Date | null>;
  declare completedBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof FollowUpTask {
    return FollowUpTask.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      title: { type: DataTypes.TEXT, allowNull: false },
      dueDate: { type: DataTypes.DATEONLY, allowNull: true },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      outcome: { type: DataTypes.TEXT, allowNull: true },
      completedAt: { type: DataTypes.DATE, allowNull: true },
      completedBy: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'follow_up_tasks', timestamps: true, updatedAt: false });
  }
}
