import { queryOne } from '../../../db/pool';
import type { ModulePart } from '../../module';
import { guestsCheckin } from './migrations/2026.11.24T15.00.00.guests-checkin';
import { guestsCheckinWindowMerge } from './migrations/2026.11.25T02.00.00.guests-checkin-window-merge';
import { guestsSpacesRooms } from './migrations/2026.11.28T03.20.00.guests-spaces-rooms';
import { checkinModels } from './models';
import { childrenStillCheckedInRule, sweepEndedServices } from './sweep';
import { checkinTools } from './tools/checkin';
import { setupTools } from './tools/setup';
import { importSpacesRoomsTool } from './tools/spaces-rooms';

/**
 * The check-in part of the guests module: locations, stations, settings, check-in with child
 * safety, the live roster, checkout and the end-of-service sweep.
 *
 * Metering: `check_ins` counts unique people checked in on the busiest local day of the current
 * month (a standing count from the check-in rows themselves). Checking the same child in to two
 * services on one Sunday counts once, and a quiet month is not charged for its busy Sunday twice.
 */
export const checkinPart: ModulePart = {
  name: 'checkin',
  tools: [...setupTools, importSpacesRoomsTool, ...checkinTools],
  models: [...checkinModels],
  migrations: [guestsCheckin, guestsCheckinWindowMerge, guestsSpacesRooms],
  contactRefs: [
    // Both merged contacts checked in to one service: the earlier check-in stays open, the other closes as merged into it (a trigger, see the migrations).
    { table: 'guests_checkins', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    // The name typed at checkout is the same person's: erased with the id.
    { table: 'guests_checkins', column: 'pickup_contact_id', onMerge: 'move', onErase: 'null', alsoClear: ['pickup_name'] },
    // Both merged contacts had a profile: the kept one absorbs the other (a trigger, see the migrations).
    { table: 'guests_child_profiles', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    // Authorised pickups: a merged-away id becomes the kept contact's; an erased person leaves every list.
    { table: 'guests_child_profiles', column: 'authorised_pickup_ids', list: true, onMerge: 'move', onErase: 'null' },
  ],
  meters: [{
    feature: 'check_ins',
    allowances: { starter: 2000, growth: 20000, enterprise: 1000000 },
    standingCount: async (db, orgId) => (await queryOne<{ n: number }>(db, `SELECT COALESCE(max(n), 0)::int AS n FROM (
        SELECT count(DISTINCT contact_id) AS n FROM guests_checkins
        WHERE org_id = $1 AND local_date >= date_trunc('month', now())::date AND local_date < (date_trunc('month', now()) + interval '1 month')::date
        GROUP BY local_date) days`, [orgId]))?.n ?? 0,
  }],
  alerts: [childrenStillCheckedInRule],
  jobs: [{
    name: 'guests.checkin_sweep',
    description: 'Reports children still checked in after their service ended (plus the grace minutes) to the staff; never checks anyone out.',
    everyMs: 5 * 60_000,
    run: async (pool, { now, orgId }) => sweepEndedServices(pool, now, orgId),
  }],
};
