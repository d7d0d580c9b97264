import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, type Queryable } from '../../db/pool';
import type { OrgSettings } from '../tool';

/** Day-before-month where the country writes dates that way; the US month-first; ISO otherwise. */
export function dateFormatForCountry(country: string): OrgSettings['dateFormat'] {
  const upper = country.toUpperCase();
  if (upper === 'US') return 'MDY';
  if (['CN', 'JP', 'KR', 'TW', 'HU', 'LT', 'SE'].includes(upper)) return 'YMD';
  return 'DMY';
}

export async function createOrganisation(db: Queryable, input: { name: string; country?: string; planCode?: string }): Promise<OrgSettings> {
  const country = (input.country ?? 'GB').toUpperCase();
  const planCode = input.planCode ?? 'starter';
  const plan = await queryOne(db, 'SELECT code FROM plans WHERE code = $1', [planCode]);
  if (!plan) throw new StewardError('validation_failed', `Unknown plan "${planCode}"`, { hint: 'Plans: starter, growth, enterprise' });
  const id = randomUUID();
  await db.query('INSERT INTO organisations (id, name, country, date_format, plan_code) VALUES ($1, $2, $3, $4, $5)', [
    id, input.name, country, dateFormatForCountry(country), planCode,
  ]);
  return { id, name: input.name, country, dateFormat: dateFormatForCountry(country), planCode };
}

export async function getOrgSettings(db: Queryable, orgId: string): Promise<OrgSettings> {
  const row = await queryOne<{ id: string; name: string; country: string; date_format: OrgSettings['dateFormat']; plan_code: string }>(
    db, 'SELECT id, name, country, date_format, plan_code FROM organisations WHERE id = $1', [orgId],
  );
  if (!row) throw new StewardError('not_found', 'Organisation was not found');
  return { id: row.id, name: row.name, country: row.country, dateFormat: row.date_format, planCode: row.plan_code };
}
