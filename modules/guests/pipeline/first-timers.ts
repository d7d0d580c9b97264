import { DateTime } from 'luxon';
import { StewardError } from '../../../core/errors';
import { withTenantTransaction, type Pool } from '../../../db/pool';
import { listCheckins, orgsWithCheckinsBetween } from '../checkin/published';
import { organisationTimeZone } from '../../schedule/api';
import { openGuestCard, utcToday } from './cards';

/**
 * The Sunday a run as of `now` looks back on: the last Sunday before today in the organisation's
 * zone. On a Monday that is yesterday; a run missed on Monday catches up later in the week; a run on
 * Sunday itself looks at the week before, so nobody's card opens on the day they came.
 */
export function sundayBefore(now: Date, timeZone: string): string {
  const today = DateTime.fromJSDate(now, { zone: timeZone }).startOf('day');
  const back = today.weekday % 7 === 0 ? 7 : today.weekday % 7; // luxon: Monday 1 … Sunday 7
  return today.minus({ days: back }).toISODate()!;
}

/**
 * First-time guests checked in on a Sunday get a pipeline card on Monday, once: a guest has one card
 * ever, so a repeated or overlapping run finds the card there and opens nothing. Adults only: children
 * are welcomed through the adults who brought them, and volunteers are not guests.
 */
export async function openFirstTimerCards(pool: Pool, input: { now: Date; orgId?: string }): Promise<Record<string, number>> {
  const window = { from: DateTime.fromJSDate(input.now).minus({ days: 8 }).toISODate()!, to: utcToday(input.now) };
  const orgIds = input.orgId ? [input.orgId] : await orgsWithCheckinsBetween(pool, window.from, window.to);
  const counts = { organisations: 0, firstTimers: 0, cardsOpened: 0, alreadyHadCard: 0, deletedSince: 0 };
  for (const orgId of orgIds) {
    await withTenantTransaction(pool, orgId, async (db) => {
      const sunday = sundayBefore(input.now, await organisationTimeZone(db, orgId));
      const guests = [...new Map((await listCheckins(db, orgId, { from: sunday, to: sunday }))
        .filter((checkin) => checkin.firstTime && checkin.personKind === 'adult')
        .map((checkin) => [checkin.contactId, checkin])).values()];
      counts.organisations += 1;
      for (const guest of guests) {
        counts.firstTimers += 1;
        const opened = await openGuestCard(db, orgId, {
          contactId: guest.contactId, source: 'first_visit', instanceId: guest.instanceId, note: `First visit on ${sunday}`, today: utcToday(input.now),
        }).catch((error: unknown) => {
          // A guest deleted since Sunday has nobody to follow up; the others still get their cards.
          if (error instanceof StewardError && error.code === 'not_found') return null;
          throw error;
        });
        if (!opened) counts.deletedSince += 1;
        else if (opened.created) counts.cardsOpened += 1;
        else counts.alreadyHadCard += 1;
      }
    });
  }
  return counts;
}
