import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../../../db/sequelize';
import type { GriefTouchpoint } from '../service';

/** `pastoral_grief_touchpoints`: one step of a bereavement's grief-care plan (1 week, 1 month, …). */
export class PastoralGriefTouchpoint extends Model<InferAttributes<PastoralGriefTouchpoint>, InferCreationAttributes<PastoralGriefTouchpoint>> {
  declare id: string;
  declare orgId: string;
  declare lifeEventId: string;
  declare position: number;
  declare label: string;
  declare dueOn: string;
  declare status: CreationOptional<GriefTouchpoint['status']>;
  declare surfacedAt: CreationOptional<Date | null>;
  declare completedAt: CreationOptional<Date | null>;
  declare completedByUserId: CreationOptional<string | null>;
  declare completionNote: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PastoralGriefTouchpoint {
    return PastoralGriefTouchpoint.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      lifeEventId: { type: DataTypes.UUID, allowNull: false },
      position: { type: DataTypes.INTEGER, allowNull: false },
      label: { type: DataTypes.TEXT, allowNull: false },
      dueOn: { type: DataTypes.DATEONLY, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      surfacedAt: { type: DataTypes.DATE, allowNull: true },
      completedAt: { type: DataTypes.DATE, allowNull: true },
      completedByUserId: { type: DataTypes.UUID, allowNull: true },
      completionNote: { type: DataTypes.TEXT, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'pastoral_grief_touchpoints', timestamps: true });
  }
}
