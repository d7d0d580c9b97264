import { DataTypes, Model, type ModelAttributeColumnOptions, type ModelStatic } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

/**
 * The runsheet module's tables as Sequelize models, one per table (migrations/2026.11.28T01.00.00.runsheet.ts).
 * Services read and write them with SQL on the call's connection (bind parameters); the models keep
 * the schema described and checked (test/unit/model-columns.test.ts).
 */
type Kind = 'uuid' | 'text' | 'int' | 'bool' | 'date' | 'ts' | 'jsonb' | 'text[]';
const TYPES = {
  uuid: DataTypes.UUID, text: DataTypes.TEXT, int: DataTypes.INTEGER, bool: DataTypes.BOOLEAN, date: DataTypes.DATEONLY,
  ts: DataTypes.DATE, jsonb: DataTypes.JSONB, 'text[]': DataTypes.ARRAY(DataTypes.TEXT),
} as const;

/** `name: 'kind'` is NOT NULL; `name: 'kind?'` is nullable; `id` is the primary key; `…_at`/defaults come from the database. */
function table(tableName: string, columns: Record<string, `${Kind}` | `${Kind}?`>): ModelStatic<Model> {
  const attributes: Record<string, ModelAttributeColumnOptions> = {};
  for (const [column, spec] of Object.entries(columns)) {
    const nullable = spec.endsWith('?');
    const kind = (nullable ? spec.slice(0, -1) : spec) as Kind;
    const camel = column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    attributes[camel] = {
      type: TYPES[kind], allowNull: nullable, field: column, ...(column === 'id' ? { primaryKey: true } : {}),
      ...(!nullable && (kind === 'ts' || kind === 'jsonb' || kind === 'text[]' || kind === 'bool') && column !== 'id' ? { defaultValue: databaseDefault() } : {}),
    };
  }
  class RunsheetModel extends Model {}
  Object.defineProperty(RunsheetModel, 'name', { value: tableName });
  RunsheetModel.init(attributes, { sequelize, tableName, timestamps: false, modelName: tableName });
  return RunsheetModel;
}

const owned = { id: 'uuid', org_id: 'uuid' } as const;

export const runsheetModels: readonly ModelStatic<Model>[] = [
  table('runsheet_service_types', { ...owned, name: 'text', schedule_series_id: 'uuid?', created_at: 'ts' }),
  table('runsheet_plans', {
    ...owned, service_type_id: 'uuid', instance_id: 'uuid?', plan_date: 'date', time_zone: 'text', title: 'text?', series_title: 'text?', notes: 'text?',
    status: 'text', starts_at: 'ts', ends_at: 'ts', copied_from_plan_id: 'uuid?', locked_at: 'ts?', created_by_user_id: 'uuid?', created_at: 'ts', updated_at: 'ts',
  }),
  table('runsheet_plan_times', { ...owned, plan_id: 'uuid', kind: 'text', name: 'text?', starts_at: 'ts', ends_at: 'ts' }),
  table('runsheet_songs', { ...owned, title: 'text', author: 'text?', ccli_number: 'text?', public_domain: 'bool', created_at: 'ts' }),
  table('runsheet_arrangements', {
    ...owned, song_id: 'uuid', name: 'text', music_key: 'text?', bpm: 'int?', meter: 'text?', sequence: 'text[]', lyrics: 'text?', length_seconds: 'int?', created_at: 'ts',
  }),
  table('runsheet_song_files', { ...owned, song_id: 'uuid', arrangement_id: 'uuid?', kind: 'text', media_file_id: 'uuid', name: 'text', created_at: 'ts' }),
  table('runsheet_items', {
    ...owned, plan_id: 'uuid', parent_id: 'uuid?', kind: 'text', title: 'text', length_seconds: 'int', sort_order: 'int', song_id: 'uuid?', arrangement_id: 'uuid?',
    music_key: 'text?', notes: 'jsonb', created_at: 'ts',
  }),
  table('runsheet_teams', { ...owned, service_type_id: 'uuid?', name: 'text', auto_replace: 'bool', offer_expires_seconds: 'int', created_at: 'ts' }),
  table('runsheet_positions', { ...owned, team_id: 'uuid', name: 'text', requires_clearance: 'bool', clearance_check_type: 'text?', created_at: 'ts' }),
  table('runsheet_team_members', { ...owned, team_id: 'uuid', position_id: 'uuid', contact_id: 'uuid', created_at: 'ts' }),
  table('runsheet_needed_positions', { ...owned, plan_id: 'uuid', position_id: 'uuid', plan_time_id: 'uuid?', quantity: 'int' }),
  table('runsheet_autofill_runs', { ...owned, plan_id: 'uuid', filled: 'int', created_by_user_id: 'uuid?', undone_at: 'ts?', created_at: 'ts' }),
  table('runsheet_plan_people', {
    ...owned, plan_id: 'uuid', position_id: 'uuid', plan_time_id: 'uuid?', contact_id: 'uuid', status: 'text', decline_reason: 'text?', scheduled_by_user_id: 'uuid?', scheduled_at: 'ts',
    notified_at: 'ts?', responded_at: 'ts?', autofill_run_id: 'uuid?', substitution_id: 'uuid?', conflicts_overridden: 'text[]',
  }),
  table('runsheet_blockouts', { ...owned, contact_id: 'uuid', starts_on: 'date', ends_on: 'date', reason: 'text?', created_at: 'ts' }),
  table('runsheet_preferences', { ...owned, contact_id: 'uuid', max_per_month: 'int?', household_rule: 'text?', updated_at: 'ts' }),
  table('runsheet_templates', { ...owned, service_type_id: 'uuid?', name: 'text', items: 'jsonb', positions: 'jsonb', created_at: 'ts' }),
  table('runsheet_substitutions', {
    ...owned, plan_id: 'uuid', position_id: 'uuid', plan_time_id: 'uuid?', vacated_plan_person_id: 'uuid?', cause: 'text', status: 'text', filled_plan_person_id: 'uuid?',
    notify_user_id: 'uuid?', workflow_id: 'text', created_at: 'ts', finished_at: 'ts?',
  }),
  table('runsheet_notifications', {
    ...owned, kind: 'text', contact_id: 'uuid?', to_user_id: 'uuid?', plan_id: 'uuid?', channel: 'text', subject: 'text?', body: 'text', status: 'text',
    problem: 'jsonb?', sent_at: 'ts?', created_at: 'ts',
  }),
  table('runsheet_offers', {
    ...owned, substitution_id: 'uuid', contact_id: 'uuid', rank: 'int', status: 'text', reason: 'text?', message_id: 'uuid?', offered_at: 'ts', expires_at: 'ts',
    responded_at: 'ts?',
  }),
];
