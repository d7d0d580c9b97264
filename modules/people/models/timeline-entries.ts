import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `timeline_entries`: One thing that happened to a person; (source_kind, source_id, kind) makes sync idempotent. */
export class TimelineEntry extends Model<InferAttributes<TimelineEntry>, InferCreationAttributes<TimelineEntry>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare kind: string;
  declare sourceKind: string;
  declare sourceId: string;
  declare summary: string;
  /** Set for entries from private or confidential pastoral records other than notes: shown only with people:safeguarding. */
  declare restricted: CreationOptional<boolean>;
  declare occurredAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof TimelineEntry {
    return TimelineEntry.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      kind: { type: DataTypes.TEXT, allowNull: false },
      sourceKind: { type: DataTypes.TEXT, allowNull: false },
      sourceId: { type: DataTypes.UUID, allowNull: false },
      summary: { type: DataTypes.TEXT, allowNull: false },
      restricted: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      occurredAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'timeline_entries', timestamps: false });
  }
}
