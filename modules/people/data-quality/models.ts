import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';

/**
 * The data-quality part's tables. Its services use SQL on the Queryable they are given (inside the
 * tool call's transaction, under row-level security); the models declare the tables for the schema check.
 */

const uuidKey = () => ({ type: DataTypes.UUID, primaryKey: true, allowNull: false });
const uuid = (allowNull: boolean) => ({ type: DataTypes.UUID, allowNull });
const text = (allowNull: boolean) => ({ type: DataTypes.TEXT, allowNull });
const int = () => ({ type: DataTypes.INTEGER, allowNull: false });
const defaulted = (type: DataTypes.DataType) => ({ type, allowNull: false, defaultValue: databaseDefault() });
const date = (allowNull: boolean) => ({ type: DataTypes.DATE, allowNull });

/** `dq_jobs`: a scan, a fix being applied or undone, with its progress (done of total). */
export class DqJob extends Model<InferAttributes<DqJob>, InferCreationAttributes<DqJob>> {
  declare id: string;
  declare orgId: string;
  declare kind: 'scan' | 'apply_fix' | 'undo_fix';
  declare status: CreationOptional<'queued' | 'running' | 'completed' | 'failed'>;
  declare done: CreationOptional<number>;
  declare total: CreationOptional<number>;
  declare params: CreationOptional<Record<string, unknown>>;
  declare result: CreationOptional<Record<string, unknown> | null>;
  declare error: CreationOptional<string | null>;
  declare createdBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare startedAt: CreationOptional<Date | null>;
  declare finishedAt: CreationOptional<Date | null>;

  static initModel(instance: Sequelize): typeof DqJob {
    return DqJob.init({
      id: uuidKey(), orgId: uuid(false), kind: text(false), status: defaulted(DataTypes.TEXT),
      done: defaulted(DataTypes.INTEGER), total: defaulted(DataTypes.INTEGER), params: defaulted(DataTypes.JSONB),
      result: { type: DataTypes.JSONB, allowNull: true }, error: text(true), createdBy: uuid(true),
      createdAt: defaulted(DataTypes.DATE), startedAt: date(true), finishedAt: date(true),
    }, { sequelize: instance, tableName: 'dq_jobs', timestamps: true, updatedAt: false, underscored: true });
  }
}

/** `dq_scans`: one finished scan: score, category scores with their figures, each check's count. */
export class DqScan extends Model<InferAttributes<DqScan>, InferCreationAttributes<DqScan>> {
  declare id: string;
  declare orgId: string;
  declare jobId: string;
  declare contactCount: CreationOptional<number>;
  declare score: CreationOptional<number>;
  declare categories: CreationOptional<unknown>;
  declare checks: CreationOptional<unknown>;
  declare durationMs: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;
  declare completedAt: CreationOptional<Date | null>;

  static initModel(instance: Sequelize): typeof DqScan {
    return DqScan.init({
      id: uuidKey(), orgId: uuid(false), jobId: uuid(false), contactCount: defaulted(DataTypes.INTEGER), score: defaulted(DataTypes.INTEGER),
      categories: defaulted(DataTypes.JSONB), checks: defaulted(DataTypes.JSONB),
      durationMs: defaulted(DataTypes.INTEGER), createdAt: defaulted(DataTypes.DATE), completedAt: date(true),
    }, { sequelize: instance, tableName: 'dq_scans', timestamps: true, updatedAt: false, underscored: true });
  }
}

/** `dq_scan_hits`: a contact a check found in a scan. */
export class DqScanHit extends Model<InferAttributes<DqScanHit>, InferCreationAttributes<DqScanHit>> {
  declare orgId: string;
  declare scanId: string;
  declare checkKey: string;
  declare contactId: string;
  declare detail: CreationOptional<string | null>;

  static initModel(instance: Sequelize): typeof DqScanHit {
    return DqScanHit.init({
      orgId: uuid(false), scanId: { ...uuid(false), primaryKey: true }, checkKey: { ...text(false), primaryKey: true },
      contactId: { ...uuid(false), primaryKey: true }, detail: text(true),
    }, { sequelize: instance, tableName: 'dq_scan_hits', timestamps: false, underscored: true });
  }
}

/** `dq_duplicates`: an exact group (same email or phone) or a fuzzy pair a scan found. */
export class DqDuplicate extends Model<InferAttributes<DqDuplicate>, InferCreationAttributes<DqDuplicate>> {
  declare id: string;
  declare orgId: string;
  declare scanId: string;
  declare kind: 'email' | 'phone' | 'fuzzy';
  declare matchKey: string;
  declare contactIds: string[];
  declare confidence: number;
  declare reasons: CreationOptional<unknown>;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof DqDuplicate {
    return DqDuplicate.init({
      id: uuidKey(), orgId: uuid(false), scanId: uuid(false), kind: text(false), matchKey: text(false),
      contactIds: { type: DataTypes.ARRAY(DataTypes.UUID), allowNull: false }, confidence: int(),
      reasons: defaulted(DataTypes.JSONB), createdAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'dq_duplicates', timestamps: true, updatedAt: false, underscored: true });
  }
}

/** `dq_dismissals`: a group or pair someone said is not a duplicate (restored_at set when taken back). */
export class DqDismissal extends Model<InferAttributes<DqDismissal>, InferCreationAttributes<DqDismissal>> {
  declare id: string;
  declare orgId: string;
  declare kind: 'group' | 'pair';
  declare matchKey: string;
  declare reason: CreationOptional<string | null>;
  declare dismissedBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare restoredAt: CreationOptional<Date | null>;

  static initModel(instance: Sequelize): typeof DqDismissal {
    return DqDismissal.init({
      id: uuidKey(), orgId: uuid(false), kind: text(false), matchKey: text(false), reason: text(true), dismissedBy: uuid(true),
      createdAt: defaulted(DataTypes.DATE), restoredAt: date(true),
    }, { sequelize: instance, tableName: 'dq_dismissals', timestamps: true, updatedAt: false, underscored: true });
  }
}

/** `dq_previews`: what a fix would change, row by row; applying names it and its hash. */
export class DqPreview extends Model<InferAttributes<DqPreview>, InferCreationAttributes<DqPreview>> {
  declare id: string;
  declare orgId: string;
  declare fix: string;
  declare special: CreationOptional<boolean>;
  declare rows: unknown;
  declare rowCount: number;
  declare hash: string;
  declare createdBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare appliedJobId: CreationOptional<string | null>;
  declare undoneAt: CreationOptional<Date | null>;

  static initModel(instance: Sequelize): typeof DqPreview {
    return DqPreview.init({
      id: uuidKey(), orgId: uuid(false), fix: text(false), special: defaulted(DataTypes.BOOLEAN),
      rows: { type: DataTypes.JSONB, allowNull: false }, rowCount: int(), hash: text(false), createdBy: uuid(true),
      createdAt: defaulted(DataTypes.DATE), expiresAt: date(false), appliedJobId: uuid(true), undoneAt: date(true),
    }, { sequelize: instance, tableName: 'dq_previews', timestamps: true, updatedAt: false, underscored: true });
  }
}

/** `dq_changes`: one field a fix changed, with its value before (undo for 30 days). */
export class DqChange extends Model<InferAttributes<DqChange>, InferCreationAttributes<DqChange>> {
  declare id: CreationOptional<number>;
  declare orgId: string;
  declare jobId: string;
  declare contactId: string;
  declare field: string;
  declare before: CreationOptional<string | null>;
  declare after: CreationOptional<string | null>;
  declare appliedAt: CreationOptional<Date>;
  declare undoneAt: CreationOptional<Date | null>;

  static initModel(instance: Sequelize): typeof DqChange {
    return DqChange.init({
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false }, orgId: uuid(false), jobId: uuid(false),
      contactId: uuid(false), field: text(false), before: text(true), after: text(true),
      appliedAt: defaulted(DataTypes.DATE), undoneAt: date(true),
    }, { sequelize: instance, tableName: 'dq_changes', timestamps: false, underscored: true });
  }
}

/** `dq_queue`: something found that needs a person's decision. */
export class DqQueueItem extends Model<InferAttributes<DqQueueItem>, InferCreationAttributes<DqQueueItem>> {
  declare id: string;
  declare orgId: string;
  declare kind: 'fuzzy_pair' | 'stale_fix' | 'unparseable_phone';
  declare matchKey: string;
  declare contactIds: string[];
  declare summary: string;
  declare details: CreationOptional<unknown>;
  declare status: CreationOptional<'open' | 'resolved' | 'dismissed'>;
  declare decision: CreationOptional<string | null>;
  declare note: CreationOptional<string | null>;
  declare decidedBy: CreationOptional<string | null>;
  declare decidedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof DqQueueItem {
    return DqQueueItem.init({
      id: uuidKey(), orgId: uuid(false), kind: text(false), matchKey: text(false),
      contactIds: { type: DataTypes.ARRAY(DataTypes.UUID), allowNull: false }, summary: text(false), details: defaulted(DataTypes.JSONB),
      status: defaulted(DataTypes.TEXT), decision: text(true), note: text(true), decidedBy: uuid(true), decidedAt: date(true),
      createdAt: defaulted(DataTypes.DATE),
    }, { sequelize: instance, tableName: 'dq_queue', timestamps: true, updatedAt: false, underscored: true });
  }
}

export const dataQualityModels = [
  DqJob.initModel(sequelize), DqScan.initModel(sequelize), DqScanHit.initModel(sequelize), DqDuplicate.initModel(sequelize),
  DqDismissal.initModel(sequelize), DqPreview.initModel(sequelize), DqChange.initModel(sequelize), DqQueueItem.initModel(sequelize),
] as const;
