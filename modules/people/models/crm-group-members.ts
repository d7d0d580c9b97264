import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `crm_group_members`: A contact's membership of a group. */
export class CrmGroupMember extends Model<InferAttributes<CrmGroupMember>, InferCreationAttributes<CrmGroupMember>> {
  declare id: string;
  declare orgId: string;
  declare groupId: string;
  declare contactId: string;
  declare role: CreationOptional<string | null>;
  declare joinedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof CrmGroupMember {
    return CrmGroupMember.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      groupId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      role: { type: DataTypes.TEXT, allowNull: true },
      joinedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'crm_group_members', timestamps: false });
  }
}
