import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';

const uuid = (extra: { primaryKey?: boolean; allowNull?: boolean } = {}) => ({ type: DataTypes.UUID, allowNull: extra.allowNull ?? false, ...(extra.primaryKey ? { primaryKey: true } : {}) });
/** A fresh definition each time: Sequelize writes each attribute's column name into its definition object. */
const timestamp = () => ({ type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() });

/** `people_dashboard_layouts`: one user's widget list for the main or the CRM dashboard. */
export class DashboardLayout extends Model<InferAttributes<DashboardLayout>, InferCreationAttributes<DashboardLayout>> {
  declare orgId: string;
  declare userId: string;
  declare board: string;
  declare widgets: unknown;
  declare updatedAt: CreationOptional<Date>;
  static initModel(instance: Sequelize): typeof DashboardLayout {
    return DashboardLayout.init({
      orgId: uuid({ primaryKey: true }), userId: uuid({ primaryKey: true }),
      board: { type: DataTypes.TEXT, allowNull: false, primaryKey: true },
      widgets: { type: DataTypes.JSONB, allowNull: false },
      updatedAt: timestamp(),
    }, { sequelize: instance, tableName: 'people_dashboard_layouts', timestamps: false });
  }
}

/** `people_saved_searches`: a named CRM search (text and filters) run again from the dashboard. */
export class SavedSearch extends Model<InferAttributes<SavedSearch>, InferCreationAttributes<SavedSearch>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare query: CreationOptional<string | null>;
  declare filters: CreationOptional<unknown>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  static initModel(instance: Sequelize): typeof SavedSearch {
    return SavedSearch.init({
      id: uuid({ primaryKey: true }), orgId: uuid(),
      name: { type: DataTypes.TEXT, allowNull: false },
      query: { type: DataTypes.TEXT, allowNull: true },
      filters: { type: DataTypes.JSONB, allowNull: false, defaultValue: databaseDefault() },
      createdByUserId: uuid({ allowNull: true }),
      createdAt: timestamp(), updatedAt: timestamp(),
    }, { sequelize: instance, tableName: 'people_saved_searches', timestamps: false });
  }
}

/** `people_partner_shares`: a contact list shared read-only with another organisation; revocable, only the token's hash kept. */
export class PartnerShare extends Model<InferAttributes<PartnerShare>, InferCreationAttributes<PartnerShare>> {
  declare id: string;
  declare orgId: string;
  declare partnerName: string;
  declare partnerEmail: CreationOptional<string | null>;
  declare sourceKind: string;
  declare sourceId: string;
  declare fields: string[];
  declare purpose: string;
  declare tokenHash: string;
  declare expiresAt: CreationOptional<Date | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare revokedAt: CreationOptional<Date | null>;
  declare revokedByUserId: CreationOptional<string | null>;
  declare revokeReason: CreationOptional<string | null>;
  static initModel(instance: Sequelize): typeof PartnerShare {
    return PartnerShare.init({
      id: uuid({ primaryKey: true }), orgId: uuid(),
      partnerName: { type: DataTypes.TEXT, allowNull: false },
      partnerEmail: { type: DataTypes.TEXT, allowNull: true },
      sourceKind: { type: DataTypes.TEXT, allowNull: false },
      sourceId: uuid(),
      fields: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      purpose: { type: DataTypes.TEXT, allowNull: false },
      tokenHash: { type: DataTypes.TEXT, allowNull: false },
      expiresAt: { type: DataTypes.DATE, allowNull: true },
      createdByUserId: uuid({ allowNull: true }),
      createdAt: timestamp(),
      revokedAt: { type: DataTypes.DATE, allowNull: true },
      revokedByUserId: uuid({ allowNull: true }),
      revokeReason: { type: DataTypes.TEXT, allowNull: true },
    }, { sequelize: instance, tableName: 'people_partner_shares', timestamps: false });
  }
}

/** `people_partner_share_events`: a share's audit trail (created, viewed, revoked), by whom and when. */
export class PartnerShareEvent extends Model<InferAttributes<PartnerShareEvent>, InferCreationAttributes<PartnerShareEvent>> {
  declare id: string;
  declare orgId: string;
  declare shareId: string;
  declare action: string;
  declare actorUserId: CreationOptional<string | null>;
  declare detail: CreationOptional<string | null>;
  declare occurredAt: CreationOptional<Date>;
  static initModel(instance: Sequelize): typeof PartnerShareEvent {
    return PartnerShareEvent.init({
      id: uuid({ primaryKey: true }), orgId: uuid(), shareId: uuid(),
      action: { type: DataTypes.TEXT, allowNull: false },
      actorUserId: uuid({ allowNull: true }),
      detail: { type: DataTypes.TEXT, allowNull: true },
      occurredAt: timestamp(),
    }, { sequelize: instance, tableName: 'people_partner_share_events', timestamps: false });
  }
}

/** `people_member_qr_tokens`: a member's QR code token (its hash); revoking it makes the printed code stop working. */
export class MemberQrToken extends Model<InferAttributes<MemberQrToken>, InferCreationAttributes<MemberQrToken>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare tokenHash: string;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare revokedAt: CreationOptional<Date | null>;
  static initModel(instance: Sequelize): typeof MemberQrToken {
    return MemberQrToken.init({
      id: uuid({ primaryKey: true }), orgId: uuid(), contactId: uuid(),
      tokenHash: { type: DataTypes.TEXT, allowNull: false },
      createdByUserId: uuid({ allowNull: true }),
      createdAt: timestamp(),
      revokedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize: instance, tableName: 'people_member_qr_tokens', timestamps: false });
  }
}

/** `people_bulk_operations`: a bulk change to contacts, previewed first, then run as a job with its progress. */
export class BulkOperation extends Model<InferAttributes<BulkOperation>, InferCreationAttributes<BulkOperation>> {
  declare id: string;
  declare orgId: string;
  declare operation: string;
  declare params: unknown;
  declare contactIds: string[];
  declare total: number;
  declare done: CreationOptional<number>;
  declare applied: CreationOptional<number>;
  declare skipped: CreationOptional<number>;
  declare status: string;
  declare error: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare startedAt: CreationOptional<Date | null>;
  declare finishedAt: CreationOptional<Date | null>;
  static initModel(instance: Sequelize): typeof BulkOperation {
    return BulkOperation.init({
      id: uuid({ primaryKey: true }), orgId: uuid(),
      operation: { type: DataTypes.TEXT, allowNull: false },
      params: { type: DataTypes.JSONB, allowNull: false },
      contactIds: { type: DataTypes.ARRAY(DataTypes.UUID), allowNull: false },
      total: { type: DataTypes.INTEGER, allowNull: false },
      done: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      applied: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      skipped: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      status: { type: DataTypes.TEXT, allowNull: false },
      error: { type: DataTypes.TEXT, allowNull: true },
      createdByUserId: uuid({ allowNull: true }),
      createdAt: timestamp(),
      startedAt: { type: DataTypes.DATE, allowNull: true },
      finishedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize: instance, tableName: 'people_bulk_operations', timestamps: false });
  }
}

/** `people_dashboard_insights`: AI insights generated for the people dashboard, newest first. */
export class DashboardInsight extends Model<InferAttributes<DashboardInsight>, InferCreationAttributes<DashboardInsight>> {
  declare id: string;
  declare orgId: string;
  declare generatedByUserId: CreationOptional<string | null>;
  declare model: string;
  declare insights: unknown;
  declare createdAt: CreationOptional<Date>;
  static initModel(instance: Sequelize): typeof DashboardInsight {
    return DashboardInsight.init({
      id: uuid({ primaryKey: true }), orgId: uuid(),
      generatedByUserId: uuid({ allowNull: true }),
      model: { type: DataTypes.TEXT, allowNull: false },
      insights: { type: DataTypes.JSONB, allowNull: false },
      createdAt: timestamp(),
    }, { sequelize: instance, tableName: 'people_dashboard_insights', timestamps: false });
  }
}

export const dashboardModels = [
  DashboardLayout.initModel(sequelize), SavedSearch.initModel(sequelize), PartnerShare.initModel(sequelize),
  PartnerShareEvent.initModel(sequelize), MemberQrToken.initModel(sequelize), BulkOperation.initModel(sequelize),
  DashboardInsight.initModel(sequelize),
] as const;
