import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import type { Queryable } from '../../db/pool';
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

export async function getOrgSettings(db: Queryable, orgId: string): Promise<OrgSettings> {
  const org = await withModels(db, (transaction) => Organisation.findOne({
    attributes: ['id', 'name', 'country', 'dateFormat', 'planCode'], where: { id: orgId }, transaction,
  }));
  if (!org) throw new StewardError('not_found', 'Organisation was not found');
  // date_format holds only the three formats (a CHECK constraint), which the model types as text.
  return { id: org.id, name: org.name, country: org.country, dateFormat: org.dateFormat as OrgSettings['dateFormat'], planCode: org.planCode };
}
