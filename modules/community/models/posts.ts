import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';
import type { POST_KINDS, PostStatus } from '../schemas';

/** `community_posts`: A prayer request or life event shared with the congregation, shown only once a person approved it. */
export class CommunityPost extends Model<InferAttributes<CommunityPost>, InferCreationAttributes<CommunityPost>> {
  declare id: string;
  declare orgId: string;
  declare kind: (typeof POST_KINDS)[number];
  declare prayerRequestId: CreationOptional<string | null>;
  declare lifeEventId: CreationOptional<string | null>;
  declare contactId: string;
  declare displayName: string;
  declare body: string;
  declare eventType: CreationOptional<string | null>;
  declare eventDate: CreationOptional<string | null>;
  declare status: CreationOptional<PostStatus>;
  declare submittedByUserId: CreationOptional<string | null>;
  declare submittedAt: CreationOptional<Date>;
  declare decidedByUserId: CreationOptional<string | null>;
  declare decidedAt: CreationOptional<Date | null>;
  declare rejectionReason: CreationOptional<string | null>;
  declare answeredAt: CreationOptional<Date | null>;
  declare answerNote: CreationOptional<string | null>;
  declare removedAt: CreationOptional<Date | null>;
  declare removalReason: CreationOptional<string | null>;
  declare prayedCount: CreationOptional<number>;
}

CommunityPost.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  kind: { type: DataTypes.TEXT, allowNull: false },
  prayerRequestId: { type: DataTypes.UUID, allowNull: true },
  lifeEventId: { type: DataTypes.UUID, allowNull: true },
  contactId: { type: DataTypes.UUID, allowNull: false },
  displayName: { type: DataTypes.TEXT, allowNull: false },
  body: { type: DataTypes.TEXT, allowNull: false },
  eventType: { type: DataTypes.TEXT, allowNull: true },
  eventDate: { type: DataTypes.DATEONLY, allowNull: true },
  status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  submittedByUserId: { type: DataTypes.UUID, allowNull: true },
  submittedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  decidedByUserId: { type: DataTypes.UUID, allowNull: true },
  decidedAt: { type: DataTypes.DATE, allowNull: true },
  rejectionReason: { type: DataTypes.TEXT, allowNull: true },
  answeredAt: { type: DataTypes.DATE, allowNull: true },
  answerNote: { type: DataTypes.TEXT, allowNull: true },
  removedAt: { type: DataTypes.DATE, allowNull: true },
  removalReason: { type: DataTypes.TEXT, allowNull: true },
  prayedCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'community_posts', timestamps: false });

export const communityModels = [CommunityPost] as const;
