import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `payload_key_fingerprint`: the one payload key id every process of this installation must share (never the key). */
export class PayloadKeyFingerprint extends Model<InferAttributes<PayloadKeyFingerprint>, InferCreationAttributes<PayloadKeyFingerprint>> {
  declare id: CreationOptional<number>;
  declare keyId: string;
  declare recordedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PayloadKeyFingerprint {
    return PayloadKeyFingerprint.init({
      id: { type: DataTypes.SMALLINT, primaryKey: true, allowNull: false, defaultValue: databaseDefault() },
      keyId: { type: DataTypes.TEXT, allowNull: false },
      recordedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'payload_key_fingerprint', timestamps: false });
  }
}
