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

/**
 * Changes the organisation's giving settings. The currency can change only while no donation,
 * pledge or recurring gift exists: money already recorded keeps the currency it was recorded in.
 */
export async function updateGivingSettings(
  db: Queryable, org: OrgSettings, input: { currency?: string; commitApprovalThreshold?: number },
): Promise<GivingSettingsView> {
  // One row per organisation, locked for the change; created on the first write.
  await db.query('INSERT INTO giving_settings (org_id) VALUES ($1) ON CONFLICT (org_id) DO NOTHING', [org.id]);
  await db.query('SELECT org_id FROM giving_settings WHERE org_id = $1 FOR UPDATE', [org.id]);
  const currency = input.currency?.toUpperCase();
  if (currency !== undefined) {
    const current = await givingSettingsOf(db, org);
    const used = await queryOne<{ n: number }>(db, `SELECT
        (SELECT count(*) FROM giving_donations WHERE org_id = $1) + (SELECT count(*) FROM giving_pledges WHERE org_id = $1)
        + (SELECT count(*) FROM giving_recurring_gifts WHERE org_id = $1) + (SELECT count(*) FROM giving_batches WHERE org_id = $1) AS n`, [org.id]);
    if (currency !== current.currency && Number(used?.n ?? 0) > 0) {
      throw new StewardError('conflict', `Giving is already recorded in ${current.currency}; the currency can no longer change`, {
        hint: 'The currency is set once, before the first batch, gift, pledge or recurring gift.',
      });
    }
  }
  await db.query(`UPDATE giving_settings SET currency = COALESCE($2, currency),
      commit_approval_threshold = COALESCE($3, commit_approval_threshold), updated_at = now() WHERE org_id = $1`, [
    org.id, currency ?? null, input.commitApprovalThreshold ?? null,
  ]);
  return givingSettingsOf(db, org);
}

/** The organisation's batch commit approval threshold, in minor units (the default until one is set). */
export async function commitThresholdOf(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ commit_approval_threshold: number }>(db, 'SELECT commit_approval_threshold FROM giving_settings WHERE org_id = $1', [orgId]);
  return row ? minorUnits(row.commit_approval_threshold) : DEFAULT_COMMIT_APPROVAL_THRESHOLD;
}
