import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { nameOr, namesOf, planState, requirePlan, requirePosition, requireServiceType } from './common';
import { planLabel, queueRunsheetMessage } from './messages';
import { rankCandidates } from './ranking';
import { gatherFacts, openPlaces, poolFor } from './scheduling';

/**
 * The steps of a substitute search (workflows/substitution.ts runs them as activities, one at a time):
 * the next best substitute gets an offer that expires; an answer or the expiry settles it; when nobody
 * is left the search ends unfilled and the scheduler is told. Each step locks the search's row, so a
 * retried activity or an answer arriving at the same moment changes things once.
 */
export type NextStep =
  | { kind: 'offer'; offerId: string; messageId: string; contactId: string; expiresInMs: number }
  | { kind: 'done'; status: 'filled' | 'unfilled' | 'cancelled'; noticeMessageId: string | null };

/** The search ending by itself (nobody left, or nothing left to fill): the system's change, in the step's transaction. */
async function endSearch(db: Queryable, orgId: string, substitutionId: string, status: 'cancelled' | 'unfilled', why: string): Promise<void> {
  await db.query('UPDATE runsheet_substitutions SET status = $3, finished_at = now() WHERE org_id = $1 AND id = $2', [orgId, substitutionId, status]);
  await recordJobChange(db, {
    orgId, channel: 'job:runsheet.substitution', module: 'runsheet', noun: 'substitution', verb: 'end', target: { type: 'substitution', id: substitutionId },
    fields: { status, why }, previous: { status: 'searching' },
  });
}

/** An offer's status moved by the search itself (expired, or its message undeliverable). */
async function recordOfferChange(db: Queryable, orgId: string, offerId: string, verb: 'expire' | 'close', status: string): Promise<void> {
  await recordJobChange(db, {
    orgId, channel: 'job:runsheet.substitution', module: 'runsheet', noun: 'offer', verb, target: { type: 'offer', id: offerId },
    fields: { status }, previous: { status: 'offered' },
  });
}

export async function nextOffer(db: Queryable, orgId: string, substitutionId: string): Promise<NextStep> {
  const search = await queryOne<{ id: string; plan_id: string; position_id: string; plan_time_id: string | null; status: string; vacated_plan_person_id: string | null; notify_user_id: string | null }>(db,
    'SELECT id, plan_id, position_id, plan_time_id, status, vacated_plan_person_id, notify_user_id FROM runsheet_substitutions WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, substitutionId]);
  if (!search) return { kind: 'done', status: 'cancelled', noticeMessageId: null };
  if (search.status !== 'searching') return { kind: 'done', status: search.status as 'filled' | 'unfilled' | 'cancelled', noticeMessageId: null };
  const open = await queryOne<{ id: string; message_id: string | null; contact_id: string; expires_at: Date }>(db,
    "SELECT id, message_id, contact_id, expires_at FROM runsheet_offers WHERE org_id = $1 AND substitution_id = $2 AND status = 'offered'", [orgId, substitutionId]);
  if (open) {
    // A retried step finds the offer it made already.
    return { kind: 'offer', offerId: open.id, messageId: open.message_id!, contactId: open.contact_id, expiresInMs: Math.max(0, open.expires_at.getTime() - Date.now()) };
  }
  const plan = await requirePlan(db, orgId, search.plan_id);
  if (planState(plan) === 'past' || planState(plan) === 'live') {
    await endSearch(db, orgId, substitutionId, 'cancelled', 'plan_started');
    return { kind: 'done', status: 'cancelled', noticeMessageId: null };
  }
  const position = await requirePosition(db, orgId, search.position_id);
  const places = await openPlaces(db, orgId, plan.id, position.id, search.plan_time_id);
  if (places.filled >= places.quantity) {
    // Someone was scheduled into the place by hand meanwhile: nothing is left to fill.
    await endSearch(db, orgId, substitutionId, 'cancelled', 'place_filled');
    return { kind: 'done', status: 'cancelled', noticeMessageId: null };
  }
  const asked = await queryRows<{ contact_id: string }>(db, 'SELECT contact_id FROM runsheet_offers WHERE org_id = $1 AND substitution_id = $2', [orgId, substitutionId]);
  const vacated = search.vacated_plan_person_id
    ? await queryOne<{ contact_id: string }>(db, 'SELECT contact_id FROM runsheet_plan_people WHERE org_id = $1 AND id = $2', [orgId, search.vacated_plan_person_id])
    : undefined;
  const exclude = [...asked.map((row) => row.contact_id), ...(vacated ? [vacated.contact_id] : [])];
  const pool = await poolFor(db, orgId, plan.id, position.id, exclude, search.plan_time_id);
  const ranked = rankCandidates([...(await gatherFacts(db, orgId, plan, position, pool, search.plan_time_id)).values()]);
  const serviceType = await requireServiceType(db, orgId, plan.service_type_id);
  const label = planLabel(plan, serviceType.name);
  const best = ranked[0];
  if (!best) {
    // The notice first: its insert waits for the plan's row (a person editing the plan may hold it), and
    // the search's end records an audit event, which holds the organisation's chain head until commit.
    const noticeMessageId = search.notify_user_id ? await queueRunsheetMessage(db, orgId, {
      kind: 'scheduler_notice', toUserId: search.notify_user_id, planId: plan.id, channel: 'email', subject: `Nobody could cover ${position.name}: ${label}`,
      body: `The substitute search for ${position.name} (${position.team_name}) at ${label} asked ${asked.length} team member(s) and nobody accepted. `
        + 'The place is still open: runsheet_get_plan shows who was asked, and runsheet_schedule_person fills it by hand.',
    }) : null;
    await endSearch(db, orgId, substitutionId, 'unfilled', 'nobody_left');
    return { kind: 'done', status: 'unfilled', noticeMessageId };
  }
  const expiresAt = new Date(Date.now() + position.offer_expires_seconds * 1000);
  const names = await namesOf(db, orgId, [best.contactId]);
  const closes = DateTime.fromJSDate(expiresAt, { zone: plan.time_zone }).toFormat('cccc d LLLL HH:mm');
  const messageId = await queueRunsheetMessage(db, orgId, {
    kind: 'offer', contactId: best.contactId, planId: plan.id, channel: 'email', subject: `Could you serve as ${position.name}? ${label}`,
    body: `Hello ${nameOr(names, best.contactId)}, a place has come free: ${position.name} (${position.team_name}) at ${label}. `
      + `Could you take it? The offer stays open until ${closes}; after that we ask someone else.`,
  });
  const offerId = randomUUID();
  await db.query(`INSERT INTO runsheet_offers (id, org_id, substitution_id, contact_id, rank, message_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [offerId, orgId, substitutionId, best.contactId, asked.length + 1, messageId, expiresAt]);
  await recordJobChange(db, {
    orgId, channel: 'job:runsheet.substitution', module: 'runsheet', noun: 'offer', verb: 'create', target: { type: 'offer', id: offerId },
    fields: { substitutionId, contactId: best.contactId, rank: asked.length + 1, messageId, expiresAt: expiresAt.toISOString() }, contactIds: [best.contactId],
  });
  return { kind: 'offer', offerId, messageId, contactId: best.contactId, expiresInMs: position.offer_expires_seconds * 1000 };
}

/** Where an offer stands now: an open offer past its expiry is marked expired here (an acceptance committed first wins). */
export async function settleOffer(db: Queryable, orgId: string, offerId: string): Promise<{ status: string; remainingMs: number }> {
  const offer = await queryOne<{ status: string; expires_at: Date }>(db, 'SELECT status, expires_at FROM runsheet_offers WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, offerId]);
  if (!offer) return { status: 'withdrawn', remainingMs: 0 };
  if (offer.status !== 'offered') return { status: offer.status, remainingMs: 0 };
  const remainingMs = offer.expires_at.getTime() - Date.now();
  if (remainingMs > 0) return { status: 'offered', remainingMs };
  await db.query("UPDATE runsheet_offers SET status = 'expired' WHERE org_id = $1 AND id = $2", [orgId, offerId]);
  await recordOfferChange(db, orgId, offerId, 'expire', 'expired');
  return { status: 'expired', remainingMs: 0 };
}

/** The offer's message could not be delivered: the offer is closed as unreachable and the search moves on. */
export async function offerUnreachable(db: Queryable, orgId: string, offerId: string, reason: string): Promise<void> {
  const closed = await db.query("UPDATE runsheet_offers SET status = 'unreachable', reason = $3 WHERE org_id = $1 AND id = $2 AND status = 'offered'", [orgId, offerId, reason.slice(0, 500)]);
  // The reason is the provider's wording, which may quote an address: the offer keeps it, the trail does not.
  if ((closed.rowCount ?? 0) > 0) await recordOfferChange(db, orgId, offerId, 'close', 'unreachable');
}
