import { DataTypes, Model, type ModelAttributeColumnOptions, type ModelAttributes, type ModelStatic } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

/**
 * The grow module's tables (migrations/); only this module imports them. Its services use SQL with
 * bind parameters (submissions arrive concurrently from strangers), so the models describe the
 * tables for the schema checks.
 */

type Kind = 'uuid' | 'text' | 'int' | 'bool' | 'date' | 'day' | 'jsonb' | 'text[]';
const TYPES: Record<Kind, ModelAttributeColumnOptions['type']> = {
  uuid: DataTypes.UUID, text: DataTypes.TEXT, int: DataTypes.INTEGER, bool: DataTypes.BOOLEAN, date: DataTypes.DATE, day: DataTypes.DATEONLY, jsonb: DataTypes.JSONB,
  'text[]': DataTypes.ARRAY(DataTypes.TEXT),
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

export const growModels = [
  table('grow_forms', {
    id: 'uuid!', org_id: 'uuid', name: 'text', status: 'text=', fields: 'jsonb', revision: 'int=', opens_at: 'date?', closes_at: 'date?', thank_you: 'text',
    follow_up_subject: 'text?', follow_up_body: 'text?', creates: 'text[]=', published_at: 'date?', closed_at: 'date?', created_at: 'date=', updated_at: 'date=',
    prayer_field: 'text?', join_group_id: 'uuid?',
  }),
  table('grow_form_revisions', { org_id: 'uuid', form_id: 'uuid!', revision: 'int!', fields: 'jsonb', created_at: 'date=' }),
  table('grow_landing_pages', {
    id: 'uuid!', org_id: 'uuid', slug: 'text', title: 'text', blocks: 'jsonb', status: 'text=', published_at: 'date?', created_at: 'date=', updated_at: 'date=',
  }),
  table('grow_submissions', {
    id: 'uuid!', org_id: 'uuid', form_id: 'uuid', revision: 'int', page_id: 'uuid?', answers: 'jsonb?', contact_id: 'uuid?', contact_outcome: 'text',
    matched_on: 'text[]=', guest_card_id: 'uuid?', follow_up_message_id: 'uuid?', created_at: 'date=',
    prayer_request_id: 'uuid?', join_request_id: 'uuid?', join_outcome: 'text?',
  }),
  table('grow_page_views', { org_id: 'uuid', page_id: 'uuid!', day: 'day!', views: 'int=' }),
];

export const growCampaignModels = [
  table('grow_campaigns', {
    id: 'uuid!', org_id: 'uuid', name: 'text', status: 'text=', audience: 'jsonb', purpose: 'text', subject: 'text', body: 'text', from_name: 'text?', reply_to: 'text?',
    links: 'text[]=', preview_hash: 'text?', preview: 'jsonb?', total_recipients: 'int=', send_at: 'date?', ab_variable: 'text?', ab_test_percent: 'int?', ab_wait_seconds: 'int?',
    winner_variant: 'int?', winner_by: 'text?', test_sent_at: 'date?', sent_at: 'date?', created_at: 'date=', updated_at: 'date=',
  }),
  table('grow_campaign_variants', { org_id: 'uuid', campaign_id: 'uuid!', position: 'int!', subject: 'text', from_name: 'text?', body: 'text', links: 'text[]=' }),
  table('grow_campaign_recipients', {
    id: 'uuid!', org_id: 'uuid', campaign_id: 'uuid', contact_id: 'uuid', phase: 'text=', variant: 'int?', status: 'text=', skip_reason: 'text?', message_id: 'uuid?', handed_at: 'date?', attempts: 'int=', not_before: 'date?',
  }),
  table('grow_campaign_events', { id: 'uuid!', org_id: 'uuid', campaign_id: 'uuid', contact_id: 'uuid?', variant: 'int?', kind: 'text', link_index: 'int?', machine: 'bool=', created_at: 'date=' }),
  table('grow_campaign_test_sends', {
    id: 'uuid!', org_id: 'uuid', campaign_id: 'uuid', contact_id: 'uuid?', message_id: 'uuid', variant: 'int=', created_at: 'date=',
  }),
];

export const growAutomationModels = [
  table('grow_automations', {
    id: 'uuid!', org_id: 'uuid', name: 'text', status: 'text=', version: 'int=', allow_reentry: 'bool=', messages_people: 'bool=', activated_at: 'date?', trigger_cursor: 'date?',
    created_at: 'date=', updated_at: 'date=',
  }),
  table('grow_automation_versions', { org_id: 'uuid', automation_id: 'uuid!', version: 'int!', trigger: 'jsonb', conditions: 'jsonb?', steps: 'jsonb', created_at: 'date=' }),
  table('grow_automation_runs', {
    id: 'uuid!', org_id: 'uuid', automation_id: 'uuid', version: 'int', contact_id: 'uuid', entry: 'int=', event_key: 'text', status: 'text=', step: 'int=', next_at: 'date?',
    pending_message_id: 'uuid?', stop_reason: 'text?', failures: 'int=', attempts: 'int=', last_error: 'text?', workflow_started: 'bool=', started_at: 'date=', finished_at: 'date?', updated_at: 'date=',
  }),
];
