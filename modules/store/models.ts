import { DataTypes, Model, type ModelAttributeColumnOptions, type ModelAttributes, type ModelStatic } from 'sequelize';
import { databaseDefault, sequelize } from '../../db/sequelize';

/**
 * The store module's tables (migrations/2026.11.28T05.00.00.store.ts); only this module imports
 * them. Its services use SQL with bind parameters under row locks (inventory counts must hold
 * under concurrency), so the models describe the tables for the schema checks and are not
 * otherwise read.
 */

type Kind = 'uuid' | 'text' | 'int' | 'bool' | 'date' | 'jsonb' | 'text[]';
const TYPES: Record<Kind, ModelAttributeColumnOptions['type']> = {
  uuid: DataTypes.UUID, text: DataTypes.TEXT, int: DataTypes.INTEGER, bool: DataTypes.BOOLEAN, date: DataTypes.DATE, jsonb: DataTypes.JSONB, 'text[]': DataTypes.ARRAY(DataTypes.TEXT),
};

/** `name: 'kind'` (not null), `'kind?'` (nullable), `'kind='` (not null, database default), `'kind!'` (primary key). */
function columns(spec: Record<string, string>): ModelAttributes {
  const out: ModelAttributes = {};
  for (const [name, raw] of Object.entries(spec)) {
    const mark = /[?=!]$/.test(raw) ? raw.slice(-1) : '';
    const type = TYPES[(mark ? raw.slice(0, -1) : raw) as Kind];
    out[name] = {
      type, allowNull: mark === '?', ...(mark === '!' ? { primaryKey: true } : {}), ...(mark === '=' ? { defaultValue: databaseDefault() } : {}),
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

export const storeModels = [
  table('store_shops', {
    id: 'uuid!', org_id: 'uuid', name: 'text', description: 'text?', currency: 'text', fulfilment_modes: 'text[]', status: 'text=',
    refund_approval_above_minor: 'int=', cash_sale_limit_minor: 'int=', checkout_minutes: 'int=', opened_at: 'date?', created_at: 'date=', updated_at: 'date=',
  }),
  table('store_locations', { id: 'uuid!', org_id: 'uuid', shop_id: 'uuid', name: 'text', is_default: 'bool=', created_at: 'date=' }),
  table('store_products', {
    id: 'uuid!', org_id: 'uuid', shop_id: 'uuid', kind: 'text', title: 'text', description: 'text?', status: 'text=', image_media_id: 'uuid?',
    download_url: 'text?', download_limit: 'int=', download_days: 'int=', archived_at: 'date?', created_at: 'date=', updated_at: 'date=',
  }),
  table('store_variants', {
    id: 'uuid!', org_id: 'uuid', product_id: 'uuid', sku: 'text', title: 'text', price_minor: 'int', track_inventory: 'bool=', oversell: 'text=',
    low_stock_threshold: 'int=', created_at: 'date=', updated_at: 'date=',
  }),
  table('store_inventory_levels', {
    org_id: 'uuid', variant_id: 'uuid!', location_id: 'uuid!', available: 'int=', committed: 'int=', unavailable: 'int=', updated_at: 'date=',
  }),
  table('store_inventory_adjustments', {
    id: 'uuid!', org_id: 'uuid', variant_id: 'uuid', location_id: 'uuid', state: 'text', delta: 'int', reason: 'text', reference: 'text?', order_id: 'uuid?',
    created_by_user_id: 'uuid?', created_at: 'date=',
  }),
  table('store_orders', {
    id: 'uuid!', org_id: 'uuid', shop_id: 'uuid', location_id: 'uuid', source: 'text', financial_status: 'text', fulfilment_status: 'text=', units_held: 'bool=',
    contact_id: 'uuid?', buyer_name: 'text?', buyer_email: 'text?', currency: 'text', total_minor: 'int', refunded_minor: 'int=', checkout_session_id: 'text?',
    checkout_url: 'text?', payment_intent_id: 'text?', expires_at: 'date?', paid_at: 'date?', cancel_reason: 'text?', created_by_user_id: 'uuid?',
    donation_minor: 'int=', donation_fund_id: 'uuid?', donation_id: 'uuid?', created_at: 'date=', updated_at: 'date=',
  }),
  table('store_order_lines', {
    id: 'uuid!', org_id: 'uuid', order_id: 'uuid', variant_id: 'uuid', product_id: 'uuid', kind: 'text', title: 'text', sku: 'text', tracked: 'bool',
    quantity: 'int', unit_price_minor: 'int', fulfilled_quantity: 'int=', refunded_quantity: 'int=',
  }),
  table('store_fulfilments', { id: 'uuid!', org_id: 'uuid', order_id: 'uuid', mode: 'text', lines: 'jsonb', tracking: 'text?', created_by_user_id: 'uuid?', created_at: 'date=' }),
  table('store_refunds', {
    id: 'uuid!', org_id: 'uuid', order_id: 'uuid', amount_minor: 'int', restock: 'bool', lines: 'jsonb', reason: 'text?', provider_refund_id: 'text?',
    created_by_user_id: 'uuid?', created_at: 'date=',
  }),
  table('store_entitlements', {
    id: 'uuid!', org_id: 'uuid', order_id: 'uuid', order_line_id: 'uuid', product_id: 'uuid', contact_id: 'uuid?', signing_key: 'text', expires_at: 'date',
    download_limit: 'int', download_count: 'int=', status: 'text=', revoked_at: 'date?', created_at: 'date=',
  }),
  table('store_payment_events', { provider_event_id: 'text!', org_id: 'uuid', type: 'text', order_id: 'uuid?', outcome: 'text', received_at: 'date=' }),
];
