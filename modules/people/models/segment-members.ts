import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `segment_members`: A contact in a segment: 'rule' rows are rebuilt on refresh, 'manual' ones survive it. */
export class SegmentMember extends Model<InferAttributes<SegmentMember>, InferCreationAttributes<SegmentMember>> {
  declare orgId: string;
  declare segmentId: string;
  declare contactId: string;
  declare source: string;
  declare addedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof SegmentMember {
    return SegmentMember.init({
      orgId: { type: DataTypes.UUID, allowNull: false },
      segmentId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      contactId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      source: { type: DataTypes.TEXT, allowNull: false },
      addedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'segment_members', timestamps: false });
  }
}
