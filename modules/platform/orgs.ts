import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, tenantRead, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import type { OrgSettings } from '../tool';
import { Organisation, Plan } from './models';

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
  const id = randomUUID();
  await withModels(db, async (transaction) => {
    const plan = await Plan.count({ where: { code: planCode }, transaction });
    if (!plan) throw new StewardError('validation_failed', `Unknown plan "${planCode}"`, { hint: 'Plans: starter, growth, enterprise' });
    await Organisation.create({ id, name: input.name, country, dateFormat: dateFormatForCountry(country), planCode }, { transaction });
  });
  return { id, name: input.name, country, dateFormat: dateFormatForCountry(country), planCode };
}

/**
 * The organisation's settings as one JSON value, for withTenantTransactionReading (`$2` is its id):
 * every tool call reads them in the statement that opens its transaction.
 */
export const ORG_SETTINGS_READ = tenantRead(`SELECT json_build_object('id', id, 'name', name, 'country', country, 'date_format', date_format, 'plan_code', plan_code)
  FROM organisations WHERE id = $2::uuid`);

/** An organisations row as the settings are read from it. */
export interface OrgRow { id: string; name: string; country: string; date_format: OrgSettings['dateFormat']; plan_code: string }

/** The settings of a row read by getOrgSettings or ORG_SETTINGS_READ; not_found when there was none. */
export function orgSettingsOf(org: OrgRow | null | undefined): OrgSettings {
  if (!org) throw new StewardError('not_found', 'Organisation was not found');
  // date_format holds only the three formats (a CHECK constraint).
  return { id: org.id, name: org.name, country: org.country, dateFormat: org.date_format, planCode: org.plan_code };
}

/**
 * One plain statement (through the Organisation model, findOne and a model instance cost about 0.3 ms
 * more CPU per read: bench/README.md). A tool call's own transaction reads them by ORG_SETTINGS_READ.
 */
export async function getOrgSettings(db: Queryable, orgId: string): Promise<OrgSettings> {
  return orgSettingsOf(await queryOne<OrgRow>(db, 'SELECT id, name, country, date_format, plan_code FROM organisations WHERE id = $1', [orgId]));
}
