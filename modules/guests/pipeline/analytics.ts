import { DateTime } from 'luxon';
import { queryOne, type Queryable } from '../../../db/pool';
import { listCheckins, type CheckinRecord } from '../checkin/published';
import { organisationTimeZone } from '../../schedule/api';
import { submissionCounts } from './welcome-cards';

export interface AnalyticsSummary {
  from: string;
  to: string;
  checkins: number;
  uniquePeople: number;
  firstTimeGuests: number;
  returningGuests: number;
  byKind: { adult: number; child: number; volunteer: number };
  servicesWithCheckins: number;
  cardsOpened: number;
  cardsCompleted: number;
  welcomeCardsQueued: number;
  welcomeCardsSent: number;
  cardSubmissions: { createdContact: number; matchedContact: number };
}

/**
 * Guests over a range of service dates: check-ins (from check-in records), first-timers and guests who
 * came back, and what the pipeline did with them. A returning guest is someone with a pipeline card
 * opened before the range who checked in during it.
 */
export async function analyticsSummary(db: Queryable, orgId: string, range: { from: string; to: string }): Promise<AnalyticsSummary> {
  const checkins = await listCheckins(db, orgId, range);
  const people = new Set(checkins.map((c) => c.contactId));
  const firstTimers = new Set(checkins.filter((c) => c.firstTime && c.personKind !== 'volunteer').map((c) => c.contactId));
  const counts = await queryOne<{ opened: number; completed: number; queued: number; sent: number; returning: number }>(db, `SELECT
      (SELECT count(*)::int FROM guests_pipeline_cards WHERE org_id = $1 AND created_at >= $2::date AND created_at < $3::date + 1) AS opened,
      (SELECT count(*)::int FROM guests_pipeline_cards WHERE org_id = $1 AND completed_at >= $2::date AND completed_at < $3::date + 1) AS completed,
      (SELECT count(*)::int FROM guests_welcome_cards WHERE org_id = $1 AND status <> 'cancelled' AND created_at >= $2::date AND created_at < $3::date + 1) AS queued,
      (SELECT count(*)::int FROM guests_welcome_cards WHERE org_id = $1 AND sent_at >= $2::date AND sent_at < $3::date + 1) AS sent,
      (SELECT count(*)::int FROM guests_pipeline_cards WHERE org_id = $1 AND created_at < $2::date AND contact_id = ANY($4::uuid[])) AS returning`,
  [orgId, range.from, range.to, [...people]]);
  const submissions = await submissionCounts(db, orgId, range.from, range.to);
  const kindCount = (kind: CheckinRecord['personKind']) => checkins.filter((c) => c.personKind === kind).length;
  return {
    from: range.from, to: range.to, checkins: checkins.length, uniquePeople: people.size, firstTimeGuests: firstTimers.size, returningGuests: counts?.returning ?? 0,
    byKind: { adult: kindCount('adult'), child: kindCount('child'), volunteer: kindCount('volunteer') },
    servicesWithCheckins: new Set(checkins.map((c) => c.instanceId)).size,
    cardsOpened: counts?.opened ?? 0, cardsCompleted: counts?.completed ?? 0, welcomeCardsQueued: counts?.queued ?? 0, welcomeCardsSent: counts?.sent ?? 0,
    cardSubmissions: { createdContact: submissions.created, matchedContact: submissions.matched },
  };
}

export interface Heatmap {
  from: string;
  to: string;
  timeZone: string;
  slotMinutes: number;
  slots: string[];
  locations: Array<{ locationId: string; locationName: string; arrivals: number[]; total: number }>;
  totalsBySlot: number[];
  busiest: { locationName: string; slot: string; arrivals: number } | null;
}

/**
 * Arrivals by local time slot (the organisation's zone) and location: every check-in counted in the
 * slot its check-in time falls in. Slots run from the earliest to the latest one with an arrival.
 */
export async function analyticsHeatmap(db: Queryable, orgId: string, input: { from: string; to: string; slotMinutes: number; locationId?: string }): Promise<Heatmap> {
  const timeZone = await organisationTimeZone(db, orgId);
  const checkins = await listCheckins(db, orgId, { from: input.from, to: input.to, locationId: input.locationId });
  const slotOf = (at: string) => {
    const local = DateTime.fromISO(at, { zone: timeZone });
    return Math.floor((local.hour * 60 + local.minute) / input.slotMinutes);
  };
  const indexes = checkins.map((c) => slotOf(c.checkedInAt));
  const base = { from: input.from, to: input.to, timeZone, slotMinutes: input.slotMinutes };
  if (checkins.length === 0) return { ...base, slots: [], locations: [], totalsBySlot: [], busiest: null };
  const first = Math.min(...indexes);
  const last = Math.max(...indexes);
  const slots = Array.from({ length: last - first + 1 }, (_, i) => {
    const minutes = (first + i) * input.slotMinutes;
    return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  });
  const byLocation = new Map<string, { locationId: string; locationName: string; arrivals: number[]; total: number }>();
  checkins.forEach((checkin, i) => {
    const row = byLocation.get(checkin.locationId) ?? { locationId: checkin.locationId, locationName: checkin.locationName, arrivals: slots.map(() => 0), total: 0 };
    row.arrivals[indexes[i] - first] += 1;
    row.total += 1;
    byLocation.set(checkin.locationId, row);
  });
  const locations = [...byLocation.values()].sort((a, b) => a.locationName.localeCompare(b.locationName));
  const totalsBySlot = slots.map((_, i) => locations.reduce((sum, row) => sum + row.arrivals[i], 0));
  let busiest: Heatmap['busiest'] = null;
  for (const row of locations) {
    row.arrivals.forEach((arrivals, i) => {
      if (!busiest || arrivals > busiest.arrivals) busiest = { locationName: row.locationName, slot: slots[i], arrivals };
    });
  }
  return { ...base, slots, locations, totalsBySlot, busiest };
}
