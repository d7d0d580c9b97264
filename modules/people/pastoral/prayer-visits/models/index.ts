import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault, sequelize } from '../../../../../db/sequelize';

const privacyAttributes = {
  privacy: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  confidentialityLevel: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
};

/** `prayer_requests`: A prayer request about a contact; visibility private / team / congregation is stored as privacy private / team / public. */
export class PrayerRequest extends Model<InferAttributes<PrayerRequest>, InferCreationAttributes<PrayerRequest>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare request: string;
  declare privacy: CreationOptional<string>;
  declare confidentialityLevel: CreationOptional<string>;
  declare urgent: CreationOptional<boolean>;
  declare status: CreationOptional<string>;
  declare answeredAt: CreationOptional<Date | null>;
  declare answerNote: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof PrayerRequest {
    return PrayerRequest.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      request: { type: DataTypes.TEXT, allowNull: false },
      ...privacyAttributes,
      urgent: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      answeredAt: { type: DataTypes.DATE, allowNull: true },
      answerNote: { type: DataTypes.TEXT, allowNull: true },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'prayer_requests', timestamps: false });
  }
}

/** `pastoral_visits`: A pastoral visit or call to a contact, on a date; counts as pastoral contact for welfare checks. */
export class PastoralVisit extends Model<InferAttributes<PastoralVisit>, InferCreationAttributes<PastoralVisit>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare visitDate: string;
  declare kind: string;
  declare durationMinutes: CreationOptional<number | null>;
  declare summary: string;
  declare visitorName: CreationOptional<string | null>;
  declare loggedByUserId: CreationOptional<string | null>;
  declare privacy: CreationOptional<string>;
  declare confidentialityLevel: CreationOptional<string>;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof PastoralVisit {
    return PastoralVisit.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      visitDate: { type: DataTypes.DATEONLY, allowNull: false },
      kind: { type: DataTypes.TEXT, allowNull: false },
      durationMinutes: { type: DataTypes.INTEGER, allowNull: true },
      summary: { type: DataTypes.TEXT, allowNull: false },
      visitorName: { type: DataTypes.TEXT, allowNull: true },
      loggedByUserId: { type: DataTypes.UUID, allowNull: true },
      ...privacyAttributes,
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'pastoral_visits', timestamps: false });
  }
}

/** `community_memberships`: A contact on the community roster, from joined_on until left_on. */
export class CommunityMembership extends Model<InferAttributes<CommunityMembership>, InferCreationAttributes<CommunityMembership>> {
  declare orgId: string;
  declare contactId: string;
  declare joinedOn: string;
  declare leftOn: CreationOptional<string | null>;
  declare celebrationConsent: CreationOptional<boolean>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof CommunityMembership {
    return CommunityMembership.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      contactId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      joinedOn: { type: DataTypes.DATEONLY, allowNull: false },
      leftOn: { type: DataTypes.DATEONLY, allowNull: true },
      celebrationConsent: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'community_memberships', timestamps: false });
  }
}

/** `community_settings`: An organisation's community settings (prayer wall, celebrations, windows); defaults until first written. */
export class CommunitySettings extends Model<InferAttributes<CommunitySettings>, InferCreationAttributes<CommunitySettings>> {
  declare orgId: string;
  declare prayerWallEnabled: CreationOptional<boolean>;
  declare celebrationsEnabled: CreationOptional<boolean>;
  declare celebratedLifeEventTypes: CreationOptional<string[]>;
  declare wallPostLifetimeDays: CreationOptional<number>;
  declare newMemberWindowDays: CreationOptional<number>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof CommunitySettings {
    return CommunitySettings.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      prayerWallEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      celebrationsEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      celebratedLifeEventTypes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
      wallPostLifetimeDays: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      newMemberWindowDays: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'community_settings', timestamps: false });
  }
}

/** The part's models, defined on the process's instance when this file is first imported. */
export const prayerVisitsModels = [
  PrayerRequest.initModel(sequelize), PastoralVisit.initModel(sequelize),
  CommunityMembership.initModel(sequelize), CommunitySettings.initModel(sequelize),
] as const;
