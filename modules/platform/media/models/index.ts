import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { sequelize } from '../../../../db/sequelize';
import { databaseDefault } from '../../../../db/sequelize';
import type { StoredThumbnail } from '../library';

/** `media_folders`: a folder of the Media Library, optionally inside another. */
export class MediaFolder extends Model<InferAttributes<MediaFolder>, InferCreationAttributes<MediaFolder>> {
  declare id: string;
  declare orgId: string;
  declare parentId: string | null;
  declare name: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof MediaFolder {
    return MediaFolder.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      parentId: { type: DataTypes.UUID, allowNull: true },
      name: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'media_folders', timestamps: true });
  }
}

/** `media_tags`: a label files of the Media Library carry. */
export class MediaTag extends Model<InferAttributes<MediaTag>, InferCreationAttributes<MediaTag>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof MediaTag {
    return MediaTag.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'media_tags', timestamps: true, updatedAt: false });
  }
}

/** `media_files`: one file of the Media Library; its bytes live on object storage under `storage_key`. */
export class MediaFile extends Model<InferAttributes<MediaFile>, InferCreationAttributes<MediaFile>> {
  declare id: string;
  declare orgId: string;
  declare status: 'pending' | 'ready';
  declare source: 'upload' | 'url' | 'inline' | 'ai';
  declare uploadSessionHash: string | null;
  declare uploadKey: string | null;
  declare uploadExpiresAt: Date | null;
  declare name: string;
  declare displayName: string | null;
  declare altText: string | null;
  declare mimeType: string | null;
  declare sizeBytes: number;
  declare width: number | null;
  declare height: number | null;
  declare folderId: string | null;
  declare isPublic: CreationOptional<boolean>;
  declare storageKey: string | null;
  declare thumbnails: CreationOptional<StoredThumbnail[]>;
  declare aiDescription: string | null;
  declare aiLabels: CreationOptional<string[]>;
  declare createdByUserId: string | null;
  declare processedAt: Date | null;
  declare deletedAt: Date | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof MediaFile {
    return MediaFile.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false },
      source: { type: DataTypes.TEXT, allowNull: false },
      uploadSessionHash: { type: DataTypes.TEXT, allowNull: true },
      uploadKey: { type: DataTypes.TEXT, allowNull: true },
      uploadExpiresAt: { type: DataTypes.DATE, allowNull: true },
      name: { type: DataTypes.TEXT, allowNull: false },
      displayName: { type: DataTypes.TEXT, allowNull: true },
      altText: { type: DataTypes.TEXT, allowNull: true },
      mimeType: { type: DataTypes.TEXT, allowNull: true },
      sizeBytes: { type: DataTypes.INTEGER, allowNull: false },
      width: { type: DataTypes.INTEGER, allowNull: true },
      height: { type: DataTypes.INTEGER, allowNull: true },
      folderId: { type: DataTypes.UUID, allowNull: true },
      isPublic: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      storageKey: { type: DataTypes.TEXT, allowNull: true },
      thumbnails: { type: DataTypes.JSONB, allowNull: false, defaultValue: databaseDefault() },
      aiDescription: { type: DataTypes.TEXT, allowNull: true },
      aiLabels: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      processedAt: { type: DataTypes.DATE, allowNull: true },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'media_files', timestamps: true });
  }
}

/** `media_file_tags`: which tags a file carries. */
export class MediaFileTag extends Model<InferAttributes<MediaFileTag>, InferCreationAttributes<MediaFileTag>> {
  declare orgId: string;
  declare fileId: string;
  declare tagId: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(instance: Sequelize): typeof MediaFileTag {
    return MediaFileTag.init({
      orgId: { type: DataTypes.UUID, allowNull: false },
      fileId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      tagId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize: instance, tableName: 'media_file_tags', timestamps: true, updatedAt: false });
  }
}

const initialised = new WeakSet<Sequelize>();

/** Defines the Media Library's models on `instance`. */
export function initMediaModels(instance: Sequelize) {
  const models = [MediaFolder.initModel(instance), MediaTag.initModel(instance), MediaFile.initModel(instance), MediaFileTag.initModel(instance)] as const;
  if (initialised.has(instance)) return models;
  initialised.add(instance);
  MediaFolder.hasMany(MediaFile, { foreignKey: 'folderId', as: 'files' });
  MediaFile.belongsTo(MediaFolder, { foreignKey: 'folderId', as: 'folder' });
  MediaFile.belongsToMany(MediaTag, { through: MediaFileTag, foreignKey: 'fileId', otherKey: 'tagId', as: 'tags' });
  return models;
}

/** Every Media Library model, defined on the process's instance when this file is first imported. */
export const mediaModels = initMediaModels(sequelize);
