import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../../db/sequelize';
import type { EmojiUse, Formality } from '../presets';

/** `brand_voice_profiles`: The organisation's saved brand voice: how its messages should sound. */
export class BrandVoiceProfile extends Model<InferAttributes<BrandVoiceProfile>, InferCreationAttributes<BrandVoiceProfile>> {
  declare orgId: string;
  declare templateId: string | null;
  declare customised: CreationOptional<boolean>;
  declare name: string;
  declare tone: string;
  declare formality: Formality;
  declare emojiUse: EmojiUse;
  declare vocabularyDo: CreationOptional<string[]>;
  declare vocabularyDont: CreationOptional<string[]>;
  declare sample: string;
  declare updatedByUserId: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof BrandVoiceProfile {
    return BrandVoiceProfile.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      templateId: { type: DataTypes.TEXT, allowNull: true },
      customised: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      name: { type: DataTypes.TEXT, allowNull: false },
      tone: { type: DataTypes.TEXT, allowNull: false },
      formality: { type: DataTypes.TEXT, allowNull: false },
      emojiUse: { type: DataTypes.TEXT, allowNull: false },
      vocabularyDo: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
      vocabularyDont: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
      sample: { type: DataTypes.TEXT, allowNull: false },
      updatedByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'brand_voice_profiles', timestamps: true });
  }
}
