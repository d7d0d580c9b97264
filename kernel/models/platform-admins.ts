import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `platform_admins`: the installation's operators, granted by the admin CLI only (kernel/operators.ts). */
export class PlatformAdmin extends Model<InferAttributes<PlatformAdmin>, InferCreationAttributes<PlatformAdmin>> {
  declare userId: string;
  declare grantedBy: string;
  declare grantedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PlatformAdmin {
    return PlatformAdmin.init({
      userId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      grantedBy: { type: DataTypes.TEXT, allowNull: false },
      grantedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'platform_admins', timestamps: false });
  }
}
