import { databaseDefault } from '../../../db/sequelize';
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** `audit_chain_heads`: each organisation's last link (sequence number and hash), kept by the chain trigger only. */
export class AuditChainHead extends Model<InferAttributes<AuditChainHead>, InferCreationAttributes<AuditChainHead>> {
  declare orgId: string;
  declare seq: CreationOptional<number>;
  declare hash: CreationOptional<string>;

  static initModel(sequelize: Sequelize): typeof AuditChainHead {
    return AuditChainHead.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      seq: { type: DataTypes.BIGINT, allowNull: false, defaultValue: databaseDefault() },
      hash: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'audit_chain_heads', timestamps: false });
  }
}
