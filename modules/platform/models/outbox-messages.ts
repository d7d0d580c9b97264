import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `outbox_messages`: The outbox row of one source record's approved message (source_kind, source_id); sends claim it with a lease. */
export class OutboxMessage extends Model<InferAttributes<OutboxMessage>, InferCreationAttributes<OutboxMessage>> {
  declare id: string;
  declare orgId: string;
  declare sourceKind: string;
  declare sourceId: string;
  /** Generated from the source for people.outreach rows (never written): keeps the outreach item's cascade. */
  declare outreachId: CreationOptional<string | null>;
  declare idempotencyKey: string;
  declare channel: string;
  declare recipient: string;
  declare subject: CreationOptional<string | null>;
  declare body: string;
  declare html: CreationOptional<string | null>;
  declare status: CreationOptional<string>;
  declare attempts: CreationOptional<number>;
  declare providerMessageId: CreationOptional<string | null>;
  declare lastError: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare sentAt: CreationOptional<Date | null>;
  declare claimToken: CreationOptional<string | null>;
  declare claimedAt: CreationOptional<Date | null>;
  declare claimedUntil: CreationOptional<Date | null>;
  declare reviewReason: CreationOptional<string | null>;
  declare reviewedByUserId: CreationOptional<string | null>;
  declare reviewedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): typeof OutboxMessage {
    return OutboxMessage.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      sourceKind: { type: DataTypes.TEXT, allowNull: false },
      sourceId: { type: DataTypes.UUID, allowNull: false },
      outreachId: { type: DataTypes.UUID, allowNull: true },
      idempotencyKey: { type: DataTypes.TEXT, allowNull: false },
      channel: { type: DataTypes.TEXT, allowNull: false },
      recipient: { type: DataTypes.TEXT, allowNull: false },
      subject: { type: DataTypes.TEXT, allowNull: true },
      body: { type: DataTypes.TEXT, allowNull: false },
      html: { type: DataTypes.TEXT, allowNull: true },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      providerMessageId: { type: DataTypes.TEXT, allowNull: true },
      lastError: { type: DataTypes.TEXT, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      sentAt: { type: DataTypes.DATE, allowNull: true },
      claimToken: { type: DataTypes.TEXT, allowNull: true },
      claimedAt: { type: DataTypes.DATE, allowNull: true },
      claimedUntil: { type: DataTypes.DATE, allowNull: true },
      reviewReason: { type: DataTypes.TEXT, allowNull: true },
      reviewedByUserId: { type: DataTypes.UUID, allowNull: true },
      reviewedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize, tableName: 'outbox_messages', timestamps: true, updatedAt: false });
  }
}
