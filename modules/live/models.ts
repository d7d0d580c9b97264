import { DataTypes, Model, type ModelAttributeColumnOptions, type ModelAttributes, type ModelStatic } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

/**
 * The live module's tables (migrations/2026.11.28T12.00.00.live.ts); only this module imports them.
 * Its services use SQL with bind parameters (votes and sessions must hold under concurrency), so the
 * models describe the tables for the schema checks.
 */

type Kind = 'uuid' | 'text' | 'int' | 'bool' | 'date' | 'day' | 'jsonb';
const TYPES: Record<Kind, ModelAttributeColumnOptions['type']> = {
  uuid: DataTypes.UUID, text: DataTypes.TEXT, int: DataTypes.INTEGER, bool: DataTypes.BOOLEAN, date: DataTypes.DATE, day: DataTypes.DATEONLY, jsonb: DataTypes.JSONB,
};

/** `name: 'kind'` (not null), `'kind?'` (nullable), `'kind='` (not null, database default), `'kind!'` (primary key). */
function columns(spec: Record<string, string>): ModelAttributes {
  const out: ModelAttributes = {};
  for (const [name, raw] of Object.entries(spec)) {
    const mark = /[?=!]$/.test(raw) ? raw.slice(-1) : '';
    out[name] = {
      type: TYPES[(mark ? raw.slice(0, -1) : raw) as Kind], allowNull: mark === '?',
      ...(mark === '!' ? { primaryKey: true } : {}), ...(mark === '=' ? { defaultValue: databaseDefault() } : {}),
    };
  }
  return out;
}

function table(name: string, spec: Record<string, string>): ModelStatic<Model> {
  const model = class extends Model {};
  Object.defineProperty(model, 'name', { value: name.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase()) });
  model.init(columns(spec), { sequelize, tableName: name, timestamps: false });
  return model;
}

export const liveModels = [
  table('live_streams', {
    id: 'uuid!', org_id: 'uuid', title: 'text', description: 'text?', instance_id: 'text?', scheduled_start: 'date', scheduled_end: 'date',
    grace_minutes: 'int=', early_start_minutes: 'int=', chat_before_minutes: 'int=', chat_after_minutes: 'int=', unscheduled: 'bool=', status: 'text=',
    provider: 'text=', provider_broadcast_id: 'text?', provider_stream_id: 'text?', episode_id: 'uuid?', started_at: 'date?', ended_at: 'date?',
    ended_reason: 'text?', hours_recorded: 'int=', auto_created: 'bool=', created_at: 'date=', updated_at: 'date=',
  }),
  table('live_polls', {
    id: 'uuid!', org_id: 'uuid', stream_id: 'uuid', question: 'text', options: 'jsonb', anonymous: 'bool=', status: 'text=', opens_at: 'date=',
    closes_at: 'date?', closed_at: 'date?', created_at: 'date=',
  }),
  table('live_poll_votes', { id: 'uuid!', org_id: 'uuid', poll_id: 'uuid', option_id: 'text', viewer_key: 'text', contact_id: 'uuid?', created_at: 'date=' }),
  table('live_chat', {
    id: 'uuid!', org_id: 'uuid', stream_id: 'uuid', viewer_key: 'text', contact_id: 'uuid?', display_name: 'text', body: 'text', hidden: 'bool=', hidden_at: 'date?', created_at: 'date=',
  }),
  table('live_blocked_viewers', { id: 'uuid!', org_id: 'uuid', viewer_key: 'text', reason: 'text?', blocked_by_user_id: 'uuid?', created_at: 'date=' }),
  table('live_prayer_requests', {
    id: 'uuid!', org_id: 'uuid', stream_id: 'uuid', viewer_key: 'text', contact_id: 'uuid?', name: 'text?', contact_detail: 'text?', body: 'text',
    privacy: 'text=', confidentiality_level: 'text=', status: 'text=', created_at: 'date=',
  }),
  table('live_viewer_sessions', {
    id: 'uuid!', org_id: 'uuid', stream_id: 'uuid', viewer_key: 'text', contact_id: 'uuid?', day: 'day', started_at: 'date=', last_seen_at: 'date=', heartbeats: 'int=',
  }),
  table('live_daily_salts', { org_id: 'uuid!', day: 'day!', salt: 'text', created_at: 'date=' }),
  table('live_attendance_records', {
    id: 'uuid!', org_id: 'uuid', stream_id: 'uuid', instance_id: 'text', method: 'text', base_count: 'int', household_multiplier_pct: 'int=', count: 'int',
    headcount_id: 'uuid?', recorded_by_user_id: 'uuid?', recorded_at: 'date=',
  }),
  table('live_settings', { org_id: 'uuid!', auto_create_streams: 'bool=', create_ahead_days: 'int=', updated_at: 'date=' }),
];
