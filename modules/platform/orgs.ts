import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, type Queryable } from '../../db/pool';
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
 * Read at the start of every tool call, so as one plain statement: through the Organisation model
 * (findOne and a model instance) the same read cost about 0.3 ms more CPU per call (bench/README.md).
 */
export async function getOrgSettings(db: Queryable, orgId: string): Promise<OrgSettings> {
  const org = await queryOne<{ id: string; name: string; country: string; date_format: OrgSettings['dateFormat']; plan_code: string }>(db,
    'SELECT id, name, country, date_format, plan_code FROM organisations WHERE id = $1', [orgId]);
  if (!org) throw new StewardError('not_found', 'Organisation was not found');
  // date_format holds only the three formats (a CHECK constraint).
  return { id: org.id, name: org.name, country: org.country, dateFormat: org.date_format, planCode: org.plan_code };
}
