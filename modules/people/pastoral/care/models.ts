import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault, sequelize } from '../../../../db/sequelize';
import type { CONFIDENTIALITY_LEVELS, NOTE_PRIVACY } from '../../schemas';
import type { CrisisCategory } from './crisis-rules';
import type { CheckStatus } from './safeguarding';

/**
 * The care part's tables. Its services read and write them with SQL on the Queryable they are
 * given (so they run inside the tool call's transaction and under row-level security); the models
 * declare the tables for the schema check and for anyone who wants model calls later.
 */

// Fresh objects per attribute: Sequelize writes into the definitions it is given.
const uuidKey = () => ({ type: DataTypes.UUID, primaryKey: true, allowNull: false });
const uuid = (allowNull: boolean) => ({ type: DataTypes.UUID, allowNull });
const text = (allowNull: boolean) => ({ type: DataTypes.TEXT, allowNull });
const defaulted = (type: DataTypes.DataType) => ({ type, allowNull: false, defaultValue: databaseDefault() });

/** `pastoral_settings`: an organisation's pastoral settings (welfare interval, default visibility, grief plan, quiet hours). */
export class PastoralSettings extends Model<InferAttributes<PastoralSettings>, InferCreationAttributes<PastoralSettings>> {
  declare orgId: string;
  declare welfareIntervalDays: CreationOptional<number>;
  declare defaultPrivacy: CreationOptional<(typeof NOTE_PRIVACY)[number]>;
  declare defaultConfidentialityLevel: CreationOptional<(typeof CONFIDENTIALITY_LEVELS)[number]>;
  declare griefPlan: Array<{ label: string; offsetDays: number }>;
  declare quietHoursStart: CreationOptional<string | null>;
  declare quietHoursEnd: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof PastoralSettings {
    return PastoralSettings.init({
      orgId: uuidKey(),
      welfareIntervalDays: defaulted(DataTypes.INTEGER),
      defaultPrivacy: defaulted(DataTypes.TEXT),
      defaultConfidentialityLevel: defaulted(DataTypes.TEXT),
      griefPlan: { type: DataTypes.JSONB, allowNull: false },
      quietHoursStart: text(true),
      quietHoursEnd: text(true),
      createdAt: defaulted(DataTypes.DATE),
      updatedAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'pastoral_settings', timestamps: true });
  }
}

/** `care_team_roles`: a care role (Pastoral visitor…) with what holding it permits. */
export class CareTeamRole extends Model<InferAttributes<CareTeamRole>, InferCreationAttributes<CareTeamRole>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare description: CreationOptional<string | null>;
  declare canApproveOutreach: CreationOptional<boolean>;
  declare canViewConfidential: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof CareTeamRole {
    return CareTeamRole.init({
      id: uuidKey(),
      orgId: uuid(false),
      name: text(false),
      description: text(true),
      canApproveOutreach: defaulted(DataTypes.BOOLEAN),
      canViewConfidential: defaulted(DataTypes.BOOLEAN),
      createdAt: defaulted(DataTypes.DATE),
      updatedAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'care_team_roles', timestamps: true });
  }
}

/** `care_team_assignments`: a team member in a care role, congregation-wide or for one contact. */
export class CareTeamAssignment extends Model<InferAttributes<CareTeamAssignment>, InferCreationAttributes<CareTeamAssignment>> {
  declare id: string;
  declare orgId: string;
  declare roleId: string;
  declare userId: string;
  declare contactId: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof CareTeamAssignment {
    return CareTeamAssignment.init({
      id: uuidKey(),
      orgId: uuid(false),
      roleId: uuid(false),
      userId: uuid(false),
      contactId: uuid(true),
      createdByUserId: uuid(true),
      createdAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'care_team_assignments', timestamps: true, updatedAt: false });
  }
}

/** `contact_care_priorities`: each setting of a contact's care priority; the newest is current. */
export class ContactCarePriority extends Model<InferAttributes<ContactCarePriority>, InferCreationAttributes<ContactCarePriority>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare priority: string;
  declare reason: CreationOptional<string | null>;
  declare setByUserId: CreationOptional<string | null>;
  declare setAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof ContactCarePriority {
    return ContactCarePriority.init({
      id: uuidKey(),
      orgId: uuid(false),
      contactId: uuid(false),
      priority: text(false),
      reason: text(true),
      setByUserId: uuid(true),
      setAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'contact_care_priorities', timestamps: false });
  }
}

/** `safeguarding_checks`: a person's safeguarding check (DBS or similar); the certificate number only as a keyed hash and last four. */
export class SafeguardingCheck extends Model<InferAttributes<SafeguardingCheck>, InferCreationAttributes<SafeguardingCheck>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare checkType: string;
  declare certificateHash: CreationOptional<string | null>;
  declare certificateLast4: CreationOptional<string | null>;
  declare issuedOn: CreationOptional<string | null>;
  declare expiresOn: CreationOptional<string | null>;
  declare status: CreationOptional<CheckStatus>;
  declare statusComputedOn: CreationOptional<string>;
  declare notes: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof SafeguardingCheck {
    return SafeguardingCheck.init({
      id: uuidKey(),
      orgId: uuid(false),
      contactId: uuid(false),
      checkType: text(false),
      certificateHash: text(true),
      certificateLast4: text(true),
      issuedOn: { type: DataTypes.DATEONLY, allowNull: true },
      expiresOn: { type: DataTypes.DATEONLY, allowNull: true },
      status: defaulted(DataTypes.TEXT),
      statusComputedOn: defaulted(DataTypes.DATEONLY),
      notes: text(true),
      createdByUserId: uuid(true),
      createdAt: defaulted(DataTypes.DATE),
      updatedAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'safeguarding_checks', timestamps: true });
  }
}

/** `safeguarding_policies`: a safeguarding policy document's title, version, review date and owner. */
export class SafeguardingPolicy extends Model<InferAttributes<SafeguardingPolicy>, InferCreationAttributes<SafeguardingPolicy>> {
  declare id: string;
  declare orgId: string;
  declare title: string;
  declare version: string;
  declare reviewOn: CreationOptional<string | null>;
  declare ownerUserId: CreationOptional<string | null>;
  declare notes: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof SafeguardingPolicy {
    return SafeguardingPolicy.init({
      id: uuidKey(),
      orgId: uuid(false),
      title: text(false),
      version: text(false),
      reviewOn: { type: DataTypes.DATEONLY, allowNull: true },
      ownerUserId: uuid(true),
      notes: text(true),
      createdAt: defaulted(DataTypes.DATE),
      updatedAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'safeguarding_policies', timestamps: true });
  }
}

/** `crisis_holds`: every message to a contact held for a person after a crisis referral, until cleared. */
export class CrisisHold extends Model<InferAttributes<CrisisHold>, InferCreationAttributes<CrisisHold>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare signals: CrisisCategory[];
  declare placedByUserId: CreationOptional<string | null>;
  declare placedAt: CreationOptional<Date>;
  declare clearedAt: CreationOptional<Date | null>;
  declare clearedByUserId: CreationOptional<string | null>;
  declare clearNote: CreationOptional<string | null>;

  static initModel(instance: Sequelize): typeof CrisisHold {
    return CrisisHold.init({
      id: uuidKey(),
      orgId: uuid(false),
      contactId: uuid(false),
      signals: { type: DataTypes.JSONB, allowNull: false },
      placedByUserId: uuid(true),
      placedAt: defaulted(DataTypes.DATE),
      clearedAt: { type: DataTypes.DATE, allowNull: true },
      clearedByUserId: uuid(true),
      clearNote: text(true),
    }, { sequelize: instance, tableName: 'crisis_holds', timestamps: false });
  }
}

/** `counseling_resources`: local support an organisation lists beside the national helplines. */
export class CounselingResource extends Model<InferAttributes<CounselingResource>, InferCreationAttributes<CounselingResource>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare contact: string;
  declare how: string;
  declare available: CreationOptional<string | null>;
  declare forWhat: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof CounselingResource {
    return CounselingResource.init({
      id: uuidKey(),
      orgId: uuid(false),
      name: text(false),
      contact: text(false),
      how: text(false),
      available: text(true),
      forWhat: text(true),
      createdAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'counseling_resources', timestamps: true, updatedAt: false });
  }
}

export function initCareModels(instance: Sequelize) {
  return [
    PastoralSettings.initModel(instance), CareTeamRole.initModel(instance), CareTeamAssignment.initModel(instance),
    ContactCarePriority.initModel(instance), SafeguardingCheck.initModel(instance), SafeguardingPolicy.initModel(instance),
    CrisisHold.initModel(instance), CounselingResource.initModel(instance),
  ] as const;
}

/** The care part's models, defined on the process's instance when this file is first imported. */
export const careModels = initCareModels(sequelize);
