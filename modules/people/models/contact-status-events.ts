import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `contact_status_events`: A change of a contact's consent status. */
export class ContactStatusEvent extends Model<InferAttributes<ContactStatusEvent>, InferCreationAttributes<ContactStatusEvent>> {
  declare id: CreationOptional<number>;
  declare orgId: string;
  declare contactId: CreationOptional<string | null>;
  declare fromStatus: CreationOptional<string | null>;
  declare toStatus: string;
  declare occurredAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ContactStatusEvent {
    return ContactStatusEvent.init({
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: true },
      fromStatus: { type: DataTypes.TEXT, allowNull: true },
      toStatus: { type: DataTypes.TEXT, allowNull: false },
      occurredAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'contact_status_events', timestamps: false });
  }
}
