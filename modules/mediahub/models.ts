import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

const uuid = (allowNull = false) => ({ type: DataTypes.UUID, allowNull });
const text = (allowNull = false) => ({ type: DataTypes.TEXT, allowNull });
const int = (allowNull = false) => ({ type: DataTypes.INTEGER, allowNull });
const date = (allowNull = false) => ({ type: DataTypes.DATE, allowNull });
const stamp = () => ({ type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() });
const withDefault = <T extends object>(type: T) => ({ ...type, allowNull: false, defaultValue: databaseDefault() });
const id = { type: DataTypes.UUID, primaryKey: true, allowNull: false };

/** `mediahub_items`: one uploaded file and what processing learned of it. */
export class MediaHubItem extends Model<InferAttributes<MediaHubItem>, InferCreationAttributes<MediaHubItem>> {
  declare id: string; declare orgId: string; declare kind: string; declare title: string; declare fileName: string;
  declare extension: string; declare mimeType: string; declare sizeBytes: number; declare status: CreationOptional<string>;
  declare uploadKey: string; declare uploadExpiresAt: Date; declare storageKey: CreationOptional<string | null>;
  declare thumbnailKey: CreationOptional<string | null>; declare durationMs: CreationOptional<number | null>;
  declare width: CreationOptional<number | null>; declare height: CreationOptional<number | null>; declare codec: CreationOptional<string | null>;
  declare waveform: CreationOptional<number[] | null>; declare failure: CreationOptional<string | null>;
  declare processingAttempts: CreationOptional<number>; declare licence: CreationOptional<string | null>;
  declare ccliNumber: CreationOptional<string | null>; declare streamingLicence: CreationOptional<string | null>;
  declare captions: CreationOptional<string | null>; declare processedAt: CreationOptional<Date | null>;
  declare archivedAt: CreationOptional<Date | null>; declare objectsRemovedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>; declare updatedAt: CreationOptional<Date>;
}
MediaHubItem.init({
  id, orgId: uuid(), kind: text(), title: text(), fileName: text(), extension: text(), mimeType: text(),
  sizeBytes: { type: DataTypes.BIGINT, allowNull: false }, status: withDefault({ type: DataTypes.TEXT }),
  uploadKey: text(), uploadExpiresAt: date(), storageKey: text(true), thumbnailKey: text(true), durationMs: int(true),
  width: int(true), height: int(true), codec: text(true), waveform: { type: DataTypes.JSONB, allowNull: true }, failure: text(true),
  processingAttempts: withDefault({ type: DataTypes.INTEGER }), licence: text(true), ccliNumber: text(true), streamingLicence: text(true),
  captions: text(true), processedAt: date(true), archivedAt: date(true), objectsRemovedAt: date(true), createdAt: stamp(), updatedAt: stamp(),
}, { sequelize, tableName: 'mediahub_items', timestamps: false, underscored: true });

/** `mediahub_channels`: a podcast channel and its feed's settings. */
export class MediaHubChannel extends Model<InferAttributes<MediaHubChannel>, InferCreationAttributes<MediaHubChannel>> {
  declare id: string; declare orgId: string; declare name: string; declare description: CreationOptional<string | null>;
  declare author: CreationOptional<string | null>; declare language: CreationOptional<string>; declare category: CreationOptional<string>;
  declare artworkItemId: CreationOptional<string | null>; declare artworkMediaId: CreationOptional<string | null>; declare createdAt: CreationOptional<Date>;
}
MediaHubChannel.init({
  id, orgId: uuid(), name: text(), description: text(true), author: text(true), language: withDefault({ type: DataTypes.TEXT }),
  category: withDefault({ type: DataTypes.TEXT }), artworkItemId: uuid(true), artworkMediaId: uuid(true), createdAt: stamp(),
}, { sequelize, tableName: 'mediahub_channels', timestamps: false, underscored: true });

/** `mediahub_series`: a sermon series in a channel. */
export class MediaHubSeries extends Model<InferAttributes<MediaHubSeries>, InferCreationAttributes<MediaHubSeries>> {
  declare id: string; declare orgId: string; declare channelId: string; declare title: string;
  declare description: CreationOptional<string | null>; declare artworkItemId: CreationOptional<string | null>;
  declare artworkMediaId: CreationOptional<string | null>; declare createdAt: CreationOptional<Date>;
}
MediaHubSeries.init({
  id, orgId: uuid(), channelId: uuid(), title: text(), description: text(true), artworkItemId: uuid(true), artworkMediaId: uuid(true), createdAt: stamp(),
}, { sequelize, tableName: 'mediahub_series', timestamps: false, underscored: true });

/** `mediahub_episodes`: one sermon episode. */
export class MediaHubEpisode extends Model<InferAttributes<MediaHubEpisode>, InferCreationAttributes<MediaHubEpisode>> {
  declare id: string; declare orgId: string; declare seriesId: string; declare title: string; declare speaker: CreationOptional<string | null>;
  declare scripture: CreationOptional<string | null>; declare episodeDate: string; declare notes: CreationOptional<string | null>;
  declare links: CreationOptional<Array<{ title: string; url: string }>>; declare artworkItemId: CreationOptional<string | null>;
  declare artworkMediaId: CreationOptional<string | null>;
  declare videoItemId: CreationOptional<string | null>; declare audioItemId: CreationOptional<string | null>;
  declare planId: CreationOptional<string | null>; declare instanceId: CreationOptional<string | null>; declare status: CreationOptional<string>;
  declare publishAt: CreationOptional<Date | null>; declare publishedAt: CreationOptional<Date | null>;
  declare transcript: CreationOptional<string | null>; declare transcriptStatus: CreationOptional<string>; declare transcriptRequestedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>; declare updatedAt: CreationOptional<Date>;
}
MediaHubEpisode.init({
  id, orgId: uuid(), seriesId: uuid(), title: text(), speaker: text(true), scripture: text(true),
  episodeDate: { type: DataTypes.DATEONLY, allowNull: false }, notes: text(true), links: withDefault({ type: DataTypes.JSONB }),
  artworkItemId: uuid(true), artworkMediaId: uuid(true), videoItemId: uuid(true), audioItemId: uuid(true), planId: uuid(true), instanceId: uuid(true),
  status: withDefault({ type: DataTypes.TEXT }), publishAt: date(true), publishedAt: date(true), transcript: text(true),
  transcriptStatus: withDefault({ type: DataTypes.TEXT }), transcriptRequestedAt: date(true), createdAt: stamp(), updatedAt: stamp(),
}, { sequelize, tableName: 'mediahub_episodes', timestamps: false, underscored: true });

/** `mediahub_episode_songs`: a song sung in an episode, and the licence it is published under. */
export class MediaHubEpisodeSong extends Model<InferAttributes<MediaHubEpisodeSong>, InferCreationAttributes<MediaHubEpisodeSong>> {
  declare id: string; declare orgId: string; declare episodeId: string; declare songId: string | null; declare title: string;
  declare ccliNumber: string | null; declare publicDomain: CreationOptional<boolean>; declare licence: string | null;
  declare licenceNumber: string | null; declare sortOrder: number;
}
MediaHubEpisodeSong.init({
  id, orgId: uuid(), episodeId: uuid(), songId: uuid(true), title: text(), ccliNumber: text(true),
  publicDomain: withDefault({ type: DataTypes.BOOLEAN }), licence: text(true), licenceNumber: text(true), sortOrder: int(),
}, { sequelize, tableName: 'mediahub_episode_songs', timestamps: false, underscored: true });

/** `mediahub_plays`: one play or download through Steward's redirect (no listener data kept). */
export class MediaHubPlay extends Model<InferAttributes<MediaHubPlay>, InferCreationAttributes<MediaHubPlay>> {
  declare id: string; declare orgId: string; declare episodeId: string; declare kind: string; declare media: string;
  declare playedOn: CreationOptional<string>; declare createdAt: CreationOptional<Date>;
}
MediaHubPlay.init({
  id, orgId: uuid(), episodeId: uuid(), kind: text(), media: text(),
  playedOn: withDefault({ type: DataTypes.DATEONLY }), createdAt: stamp(),
}, { sequelize, tableName: 'mediahub_plays', timestamps: false, underscored: true });

export const mediahubModels = [MediaHubItem, MediaHubChannel, MediaHubSeries, MediaHubEpisode, MediaHubEpisodeSong, MediaHubPlay] as const;
