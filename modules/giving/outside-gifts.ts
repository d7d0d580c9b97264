import { StewardError } from '../../core/errors';
import type { Queryable } from '../../db/pool';
import { recordUsage } from '../../kernel/billing';
import type { OrgSettings } from '../tool';
import { commitBatch, createBatch } from './batches';
import { resolveDonation, insertDonation, type DonationMethod } from './donations';
import { defaultFund, requireFund } from './funds';
import { organisationCurrency } from './settings';

/**
 * Gifts that arrive through another module's payment: a shop's "donate £5 extra" at checkout.
 * They are donations like any other (the giving module's own checks, batch, Gift Aid rule and
 * totals), never part of the sale that carried them.
 */

export interface OutsideGiftOffer {
  amount: number;
  currency: string;
  fundId?: string;
}

/** What a donation offered at checkout will go to: checked before the buyer is asked to pay. */
export async function checkOutsideGift(db: Queryable, org: OrgSettings, offer: OutsideGiftOffer, path = 'donation'): Promise<{ fundId: string; fundName: string }> {
  const currency = await organisationCurrency(db, org);
  if (offer.currency.toUpperCase() !== currency) {
    throw new StewardError('validation_failed', `A donation is recorded in the organisation's giving currency, ${currency}, not ${offer.currency.toUpperCase()}`, {
      hint: 'Offer the extra donation only in a shop or event priced in the giving currency (giving_get_settings).',
      issues: [{ path, message: `currency must be ${currency}` }],
    });
  }
  const fund = offer.fundId ? await requireFund(db, org.id, offer.fundId, { active: true, field: `${path}.fundId` }) : await defaultFund(db, org.id);
  return { fundId: fund.id, fundName: fund.name };
}

export interface OutsideGift extends OutsideGiftOffer {
  /** Where it came from ('store') and its id there: one donation per source and id, however often this runs. */
  source: string;
  externalId: string;
  contactId: string | null;
  method: DonationMethod;
  receivedOn: string;
  batchName: string;
  note?: string;
}

/**
 * Records the gift in a batch of its own, committed at once: the money has already arrived (as a
 * recurring gift's does), so it counts in totals now and needs no count to approve. A repeat (the
 * same source and external id) returns the donation recorded first and leaves no empty batch.
 */
export async function recordOutsideGift(db: Queryable, org: OrgSettings, gift: OutsideGift): Promise<{ donationId: string; duplicate: boolean }> {
  await checkOutsideGift(db, org, gift);
  const currency = await organisationCurrency(db, org);
  const resolved = await resolveDonation(db, org, currency, {
    contactId: gift.contactId, amount: gift.amount, currency, method: gift.method, receivedOn: gift.receivedOn,
    fundId: gift.fundId, externalId: gift.externalId, note: gift.note,
  }, { source: gift.source });
  const batch = await createBatch(db, org.id, { name: gift.batchName, currency, userId: null });
  const recorded = await insertDonation(db, org.id, batch.id, resolved, null);
  if (recorded.duplicate) {
    await db.query('DELETE FROM giving_batches WHERE org_id = $1 AND id = $2', [org.id, batch.id]);
    return { donationId: recorded.id, duplicate: true };
  }
  await commitBatch(db, org, batch.id, { userId: null, approved: true });
  // Counted like every recorded gift; never refused here, since the money has already arrived.
  await recordUsage(db, { orgId: org.id, feature: 'donations', units: 1, idempotencyKey: `giving-outside-${gift.source}-${gift.externalId}`, tool: `${gift.source}-donation` });
  return { donationId: recorded.id, duplicate: false };
}
