import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';

/** `semantic_segment_previews`: Rules read from a request in words, shown for confirmation; saving a segment takes exactly these by id. */
export class SemanticSegmentPreview extends Model<InferAttributes<SemanticSegmentPreview>, InferCreationAttributes<SemanticSegmentPreview>> {
  declare id: string;
  declare orgId: string;
  declare request: string;
  declare rules: unknown;
  declare readings: unknown;
  declare freeText: CreationOptional<string | null>;
  declare matchCount: number;
  declare createdBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare savedSegmentId: CreationOptional<string | null>;
  declare savedAt: CreationOptional<Date | null>;

  static initModel(instance: Sequelize): typeof SemanticSegmentPreview {
    return SemanticSegmentPreview.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      request: { type: DataTypes.TEXT, allowNull: false },
      rules: { type: DataTypes.JSONB, allowNull: false },
      readings: { type: DataTypes.JSONB, allowNull: false },
      freeText: { type: DataTypes.TEXT, allowNull: true },
      matchCount: { type: DataTypes.INTEGER, allowNull: false },
      createdBy: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      savedSegmentId: { type: DataTypes.UUID, allowNull: true },
      savedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize: instance, tableName: 'semantic_segment_previews', timestamps: false });
  }
}

/** `contact_text_embeddings`: Cached embedding of a contact's free text for one kind of reader (open, or all including restricted notes). */
export class ContactTextEmbedding extends Model<InferAttributes<ContactTextEmbedding>, InferCreationAttributes<ContactTextEmbedding>> {
  declare orgId: string;
  declare contactId: string;
  declare reader: string;
  declare model: string;
  declare textHash: string;
  declare embedding: number[];
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof ContactTextEmbedding {
    return ContactTextEmbedding.init({
      orgId: { type: DataTypes.UUID, allowNull: false, primaryKey: true },
      contactId: { type: DataTypes.UUID, allowNull: false, primaryKey: true },
      reader: { type: DataTypes.TEXT, allowNull: false, primaryKey: true },
      model: { type: DataTypes.TEXT, allowNull: false },
      textHash: { type: DataTypes.TEXT, allowNull: false },
      embedding: { type: DataTypes.ARRAY(DataTypes.DOUBLE), allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'contact_text_embeddings', timestamps: false });
  }
}

export const semanticModels = [SemanticSegmentPreview.initModel(sequelize), ContactTextEmbedding.initModel(sequelize)] as const;
