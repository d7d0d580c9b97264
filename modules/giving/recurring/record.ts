import { randomUUID } from 'node:crypto';
import { queryRows, type Queryable } from '../../../db/pool';
import { recordUsage } from '../../../kernel/billing';
import { recordJobChange } from '../../audit/api';
import { initialGiftAidStatus } from '../donations';
import { minorUnits } from '../money';
import { firstOccurrenceAfter, occurrencesBetween } from './calendar';
import { resumeGiftRow, type RecurringGiftRow } from './gifts';

/**
 * Recording due occurrences of recurring gifts, one organisation at a time, in the caller's
 * transaction (the scheduled run's activity).
 *
 * Exactly once per occurrence, however often this runs, retries or is cut short:
 * - each due gift's row is locked (FOR UPDATE) and re-read, so two runs take turns and the
 *   second finds `next_on` already past the dates the first recorded;
 * - the donation, its designation, the gift's new `next_on`, the batch and the usage event are
 *   written in one transaction: a crash before COMMIT leaves nothing, after it leaves all, and a
 *   retried run then has nothing left to do;
 * - the unique index (recurring_gift_id, occurrence_on) refuses a second donation for an
 *   occurrence whatever happens (ON CONFLICT DO NOTHING).
 *
 * Where the money goes: every occurrence one run records for an organisation goes into one
 * batch, "Recurring gifts <date>", committed in the same transaction. The money has already
 * arrived (a standing order, a card payment), so it counts in totals at once, and the batch is
 * never edited afterwards, like any committed batch.
 */

/** Gifts one call records at most; the run calls again while `more` is true. */
export const MAX_GIFTS_PER_CALL = 200;
/** Occurrences one gift catches up on in one call (after an outage of the scheduled runs). */
export const MAX_OCCURRENCES_PER_GIFT = 60;

export interface RecordedRun {
  orgId: string;
  asOf: string;
  /** Donations written by this call (0 when a retry finds the work done). */
  recorded: number;
  donationIds: string[];
  batchId: string | null;
  /** Paused gifts whose resume date arrived and that are active again. */
  resumed: number;
  /** True when more is due than one call records: call again. */
  more: boolean;
}

/** Paused gifts whose resume date has come: active again from that date (the dates before it stay skipped). */
async function resumeDueGifts(db: Queryable, orgId: string, asOf: string): Promise<number> {
  const due = await queryRows<RecurringGiftRow>(db, `SELECT * FROM giving_recurring_gifts
    WHERE org_id = $1 AND status = 'paused' AND resume_on <= $2 ORDER BY id FOR UPDATE`, [orgId, asOf]);
  for (const gift of due) await resumeGiftRow(db, gift, gift.resume_on!);
  return due.length;
}

async function openBatch(db: Queryable, orgId: string, asOf: string, currency: string): Promise<string> {
  const id = randomUUID();
  await db.query(`INSERT INTO giving_batches (id, org_id, name, status, currency) VALUES ($1, $2, $3, 'in_progress', $4)`,
    [id, orgId, `Recurring gifts ${asOf}`, currency]);
  return id;
}

type JobChange = Parameters<typeof recordJobChange>[1];

/**
 * One occurrence as a donation; null when it was recorded already (the unique index said so). Its
 * audit event is added to `events`, recorded after the whole loop: an audit event holds the
 * organisation's chain head until commit, and each later gift's donation waits for its giver's and its
 * fund's rows, which a person's edit may hold while it waits, at its own end, for that chain head.
 */
async function insertOccurrence(
  db: Queryable, gift: RecurringGiftRow & { gift_aid_eligible: boolean }, batchId: string, occurrenceOn: string, events: JobChange[],
): Promise<string | null> {
  const id = randomUUID();
  // The same rule as every recorded gift; the declaration is checked when a claim is made.
  const giftAidStatus = initialGiftAidStatus({ contactId: gift.contact_id, amount: minorUnits(gift.amount), isGasds: false, funds: [{ giftAidEligible: gift.gift_aid_eligible }] });
  const inserted = await queryRows<{ id: string }>(db, `INSERT INTO giving_donations
      (id, org_id, batch_id, contact_id, amount, currency, method, received_on, source, recurring_gift_id, occurrence_on, gift_aid_status)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'recurring', $9, $8, $10)
    ON CONFLICT (recurring_gift_id, occurrence_on) WHERE recurring_gift_id IS NOT NULL DO NOTHING
    RETURNING id`,
  [id, gift.org_id, batchId, gift.contact_id, gift.amount, gift.currency, gift.method, occurrenceOn, gift.id, giftAidStatus]);
  if (inserted.length === 0) return null;
  await db.query('INSERT INTO giving_designations (org_id, donation_id, fund_id, amount) VALUES ($1, $2, $3, $4)', [gift.org_id, id, gift.fund_id, gift.amount]);
  await recordUsage(db, { orgId: gift.org_id, feature: 'donations', units: 1, idempotencyKey: `giving-recurring-${gift.id}-${occurrenceOn}`, tool: 'recurring-gifts-run' });
  // The run records the gift on the giver's standing instruction: the system is the actor, the donation its target.
  events.push({
    orgId: gift.org_id, channel: 'job:giving.recurring', module: 'giving', noun: 'donation', verb: 'record', target: { type: 'donation', id },
    fields: { recurringGiftId: gift.id, occurrenceOn, fundId: gift.fund_id, method: gift.method, batchId, giftAidStatus },
    amountMinor: minorUnits(gift.amount), currency: gift.currency, contactIds: gift.contact_id ? [gift.contact_id] : [],
  });
  return id;
}

/**
 * Records every occurrence of the organisation's active gifts dated on or before `asOf` that is
 * not recorded yet, and moves each gift's `next_on` past them. `onGift` is called after each gift
 * (the activity heartbeats there).
 */
export async function recordDueOccurrences(db: Queryable, orgId: string, asOf: string, onGift: () => void = () => undefined): Promise<RecordedRun> {
  const resumed = await resumeDueGifts(db, orgId, asOf);
  const gifts = await queryRows<RecurringGiftRow & { gift_aid_eligible: boolean }>(db, `SELECT g.*, f.gift_aid_eligible
    FROM giving_recurring_gifts g JOIN giving_funds f ON f.id = g.fund_id
    WHERE g.org_id = $1 AND g.status = 'active' AND g.next_on <= $2
    ORDER BY g.next_on, g.id LIMIT ${MAX_GIFTS_PER_CALL + 1} FOR UPDATE OF g`, [orgId, asOf]);
  let more = gifts.length > MAX_GIFTS_PER_CALL;
  let batchId: string | null = null;
  const donationIds: string[] = [];
  const events: JobChange[] = [];
  for (const gift of gifts.slice(0, MAX_GIFTS_PER_CALL)) {
    const dates = occurrencesBetween(gift.starts_on, gift.frequency, gift.next_on!, asOf, MAX_OCCURRENCES_PER_GIFT);
    for (const date of dates) {
      batchId ??= await openBatch(db, orgId, asOf, gift.currency);
      const donationId = await insertOccurrence(db, gift, batchId, date, events);
      if (donationId) donationIds.push(donationId);
    }
    const last = dates[dates.length - 1];
    if (last) {
      const nextOn = firstOccurrenceAfter(gift.starts_on, gift.frequency, last);
      if (nextOn <= asOf) more = true;
      await db.query('UPDATE giving_recurring_gifts SET next_on = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, gift.id, nextOn]);
    }
    onGift();
  }
  if (batchId) {
    if (donationIds.length > 0) {
      await db.query(`UPDATE giving_batches SET status = 'committed', committed_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, batchId]);
    } else {
      await db.query('DELETE FROM giving_batches WHERE org_id = $1 AND id = $2', [orgId, batchId]);
      batchId = null;
    }
  }
  for (const event of events) await recordJobChange(db, event);
  return { orgId, asOf, recorded: donationIds.length, donationIds, batchId, resumed, more };
}

/** Organisations with a gift due on or before `asOf` (or a paused gift due to resume), in id order after `after`; read across organisations by the scheduled run. */
export async function organisationsWithDueGifts(db: Queryable, asOf: string, after: string | null, limit: number): Promise<string[]> {
  const rows = await queryRows<{ org_id: string }>(db, `SELECT DISTINCT org_id FROM giving_recurring_gifts
    WHERE ((status = 'active' AND next_on <= $1) OR (status = 'paused' AND resume_on <= $1)) AND ($2::uuid IS NULL OR org_id > $2::uuid)
    ORDER BY org_id LIMIT $3`, [asOf, after, limit]);
  return rows.map((row) => row.org_id);
}
