import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../../../db/sequelize';
import type { PastoralPrivacy } from '../../privacy';
import type { LifeEventIntent, LifeEventStatus, LifeEventType } from '../constants';

/** `pastoral_life_events`: something that happened in a person's life, to celebrate or to support them through. */
export class PastoralLifeEvent extends Model<InferAttributes<PastoralLifeEvent>, InferCreationAttributes<PastoralLifeEvent>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare eventType: LifeEventType;
  declare intent: LifeEventIntent;
  declare status: CreationOptional<LifeEventStatus>;
  declare title: string;
  declare details: CreationOptional<string | null>;
  declare eventDate: string;
  declare shareWithCommunity: CreationOptional<boolean>;
  declare privacy: CreationOptional<PastoralPrivacy['privacy']>;
  declare confidentialityLevel: CreationOptional<PastoralPrivacy['confidentialityLevel']>;
  declare celebratedAt: CreationOptional<Date | null>;
  declare celebratedByUserId: CreationOptional<string | null>;
  declare recordedByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PastoralLifeEvent {
    return PastoralLifeEvent.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      eventType: { type: DataTypes.TEXT, allowNull: false },
      intent: { type: DataTypes.TEXT, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      title: { type: DataTypes.TEXT, allowNull: false },
      details: { type: DataTypes.TEXT, allowNull: true },
      eventDate: { type: DataTypes.DATEONLY, allowNull: false },
      shareWithCommunity: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      privacy: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      confidentialityLevel: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      celebratedAt: { type: DataTypes.DATE, allowNull: true },
      celebratedByUserId: { type: DataTypes.UUID, allowNull: true },
      recordedByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'pastoral_life_events', timestamps: true });
  }
}
