import { StewardError } from '../../core/errors';
import { queryOne, type Queryable } from '../../db/pool';
import type { OrgSettings } from '../tool';
import { currencyForCountry, minorUnits } from './money';

/** A batch above this total (in minor units: £5,000.00 in GBP) needs an owner/admin's approval to commit, unless the organisation sets its own. */
export const DEFAULT_COMMIT_APPROVAL_THRESHOLD = 500_000;

export interface GivingSettingsView {
  /** The currency every donation, pledge and recurring gift of the organisation is in. Null only for a country with no known currency until one is set. */
  currency: string | null;
  currencySource: 'setting' | 'country' | 'unset';
  commitApprovalThreshold: number;
}

/** The organisation's giving settings: its stored row, or the defaults (currency from its country). */
export async function givingSettingsOf(db: Queryable, org: OrgSettings): Promise<GivingSettingsView> {
  const row = await queryOne<{ currency: string | null; commit_approval_threshold: number }>(db,
    'SELECT currency, commit_approval_threshold FROM giving_settings WHERE org_id = $1', [org.id]);
  const fromCountry = currencyForCountry(org.country);
  return {
    currency: row?.currency ?? fromCountry,
    currencySource: row?.currency ? 'setting' : fromCountry ? 'country' : 'unset',
    commitApprovalThreshold: row ? minorUnits(row.commit_approval_threshold) : DEFAULT_COMMIT_APPROVAL_THRESHOLD,
  };
}

/** The organisation's currency, or a clear refusal when its country implies none and none is set. */
export async function organisationCurrency(db: Queryable, org: OrgSettings): Promise<string> {
  const { currency } = await givingSettingsOf(db, org);
  if (currency) return currency;
  throw new StewardError('validation_failed', `The organisation's country (${org.country}) has no default currency for giving`, {
    hint: 'Set it once with giving_update_settings { currency }.',
    issues: [{ path: 'currency', message: 'organisation currency not set' }],
  });
}
