import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `proposals`: An agent or caller proposing a tool call for a person to approve. */
export class Proposal extends Model<InferAttributes<Proposal>, InferCreationAttributes<Proposal>> {
  declare id: string;
  declare orgId: string;
  declare agentKey: CreationOptional<string | null>;
  declare proposedByUserId: CreationOptional<string | null>;
  declare proposedByCredentialId: CreationOptional<string | null>;
  declare tool: string;
  declare args: unknown;
  declare argsHash: string;
  declare summary: string;
  declare dedupeKey: CreationOptional<string | null>;
  declare sourceRun: CreationOptional<string | null>;
  declare status: CreationOptional<string>;
  declare expiresAt: Date;
  declare decidedByUserId: CreationOptional<string | null>;
  declare decidedAt: CreationOptional<Date | null>;
  declare decisionReason: CreationOptional<string | null>;
  // object, not unknown: CreationOptional<unknown> reduces to a brand-only type that update() refuses an execution record for.
  declare execution: CreationOptional<object | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Proposal {
    return Proposal.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      agentKey: { type: DataTypes.TEXT, allowNull: true },
      proposedByUserId: { type: DataTypes.UUID, allowNull: true },
      proposedByCredentialId: { type: DataTypes.UUID, allowNull: true },
      tool: { type: DataTypes.TEXT, allowNull: false },
      args: { type: DataTypes.JSONB, allowNull: false },
      argsHash: { type: DataTypes.TEXT, allowNull: false },
      summary: { type: DataTypes.TEXT, allowNull: false },
      dedupeKey: { type: DataTypes.TEXT, allowNull: true },
      sourceRun: { type: DataTypes.TEXT, allowNull: true },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      decidedByUserId: { type: DataTypes.UUID, allowNull: true },
      decidedAt: { type: DataTypes.DATE, allowNull: true },
      decisionReason: { type: DataTypes.TEXT, allowNull: true },
      execution: { type: DataTypes.JSONB, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'proposals', timestamps: true, updatedAt: false });
  }
}
